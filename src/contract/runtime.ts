// The contract as the running service reads it: generated/operations.json and
// generated/tools.json, with one compiled Ajv 2020 validator per input and output schema.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { InvalidArgumentsError } from '../errors.js';
import { frenchMessage, pickError } from './french-messages.js';
import { forbiddenCharacterIn } from './text-rules.js';
import type { OperationEntry, ProfileEntry, ProfileName, ToolEntry } from './types.js';

// ajv-formats is CommonJS; its plugin is both module.exports and module.exports.default.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => void }).default;

const generatedDir = new URL('../../generated/', import.meta.url);

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, generatedDir), 'utf8')) as T;
}

export class Contract {
  readonly version: string;
  readonly operations: ReadonlyMap<string, OperationEntry>;
  readonly tools: readonly ToolEntry[];
  readonly profiles: readonly ProfileEntry[];
  private readonly inputValidators = new Map<string, ValidateFunction>();
  private readonly outputValidators = new Map<string, ValidateFunction>();

  constructor(ops: { contract_version: string; operations: OperationEntry[] }, tools: { profiles: ProfileEntry[]; tools: ToolEntry[] }) {
    this.version = ops.contract_version;
    this.operations = new Map(ops.operations.map((o) => [o.name, o]));
    this.tools = tools.tools;
    this.profiles = tools.profiles;
    // verbose: a refusal's message reads the failing value and the schema holding the rule.
    const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true });
    addFormats(ajv);
    for (const op of ops.operations) {
      this.inputValidators.set(op.name, ajv.compile(op.inputSchema));
      this.outputValidators.set(op.name, ajv.compile(op.outputSchema));
    }
  }

  static load(): Contract {
    return new Contract(readJson('operations.json'), readJson('tools.json'));
  }

  operation(name: string): OperationEntry | undefined {
    return this.operations.get(name);
  }

  /**
   * Checks arguments against the operation's input schema, then the text rule (no NUL, no
   * unpaired surrogate: see text-rules.ts) on every string; throws the French refusal. The
   * schema first: once it holds, every string and list is bounded, so the walk is short.
   */
  validateArguments(operation: string, args: unknown): void {
    const validate = this.inputValidators.get(operation);
    if (!validate) throw new Error(`unknown operation ${operation}`);
    if (!validate(args)) {
      const first = pickError(validate.errors ?? []);
      throw new InvalidArgumentsError(first ? frenchMessage(first) : 'Arguments invalides.');
    }
    const forbidden = forbiddenCharacterIn(args);
    if (forbidden) {
      const where = forbidden.inName ? `Un nom d'argument${forbidden.path ? ` dans « ${forbidden.path} »` : ''}` : `L'argument « ${forbidden.path} »`;
      throw new InvalidArgumentsError(`${where} contient un caractère refusé : ${forbidden.what}.`);
    }
  }

  /** The output schema check: null when the result conforms, else a description for the log. */
  outputProblem(operation: string, result: unknown): string | null {
    const validate = this.outputValidators.get(operation);
    if (!validate) return `unknown operation ${operation}`;
    return validate(result) ? null : JSON.stringify(validate.errors?.slice(0, 3));
  }

  /** Tools an MCP address announces in tools/list. */
  listedTools(profile: ProfileName): ToolEntry[] {
    return this.tools.filter((t) => t.status === 'active' && t.profiles.includes(profile));
  }

  /** A tool callable at an address: announced tools and historic names of announced tools. */
  callableTool(profile: ProfileName, name: string): ToolEntry | undefined {
    const tool = this.tools.find((t) => t.name === name);
    if (!tool || tool.status === 'preparation' || !tool.profiles.includes(profile)) return undefined;
    if (tool.status === 'alias') {
      const target = this.tools.find((t) => t.name === tool.aliasOf);
      return target && target.profiles.includes(profile) ? tool : undefined;
    }
    return tool;
  }

  /**
   * The operation a tool call runs and its arguments: the tool's one operation, or for a
   * tool that dispatches, the one its choosing argument names (that argument removed).
   * Throws the French refusal when the choice is missing or unknown.
   */
  resolveToolCall(tool: ToolEntry, args: Record<string, unknown>): { operation: string; args: Record<string, unknown> } {
    const target = tool.status === 'alias' ? (this.tools.find((t) => t.name === tool.aliasOf) ?? tool) : tool;
    if (!target.dispatch) return { operation: target.operations[0] as string, args };
    const { argument, operations } = target.dispatch;
    const { [argument]: choice, ...rest } = args;
    const values = Object.keys(operations).join(', ');
    if (choice === undefined) throw new InvalidArgumentsError(`Argument manquant : « ${argument} » est obligatoire (${values}).`);
    // Own keys only: `constructor` or `__proto__` must not find what every object inherits.
    const operation = typeof choice === 'string' && Object.hasOwn(operations, choice) ? operations[choice] : undefined;
    if (!operation) throw new InvalidArgumentsError(`L'argument « ${argument} » doit valoir l'une de ces valeurs : ${values}.`);
    return { operation, args: rest };
  }

  profile(name: ProfileName): ProfileEntry {
    const found = this.profiles.find((p) => p.name === name);
    if (!found) throw new Error(`unknown profile ${name}`);
    return found;
  }
}
