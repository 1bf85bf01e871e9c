// Transform: one catalogue entry into the MCP tool entry (schemas taken from the
// operation it runs; a historic name takes those of the tool it stands for; a tool that
// dispatches on an argument gets that argument plus every operation's arguments, each
// action's own rules under `if`/`then`, and an output that is one of its operations' outputs).
import type { JsonSchema, OperationEntry, ProfileName, ToolAnnotations, ToolDispatch, ToolEntry } from '../../src/contract/types.js';
import type { ToolSource } from './contract-source.js';

export function dispatchInputSchema(dispatch: ToolDispatch, operations: Map<string, OperationEntry>): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    [dispatch.argument]: {
      type: 'string',
      enum: Object.keys(dispatch.operations),
      description: `Action : ${Object.entries(dispatch.operations)
        .map(([value, op]) => `${value} (${operations.get(op)?.summary ?? op})`)
        .join(' ; ')}.`,
    },
  };
  for (const [value, opName] of Object.entries(dispatch.operations)) {
    const props = (operations.get(opName)?.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, schema] of Object.entries(props)) {
      const existing = properties[name];
      const used = existing ? `${String(existing['x-actions'])}, ${value}` : value;
      properties[name] = { ...(existing ?? schema), 'x-actions': used };
    }
  }
  for (const schema of Object.values(properties)) {
    if (schema['x-actions'] === undefined) continue;
    const actions = String(schema['x-actions']);
    delete schema['x-actions'];
    schema.description = `${schema.description ? `${String(schema.description)} ` : ''}(action ${actions})`.trim();
  }
  // Each action's own rules, as its operation checks them once the choice is made: its
  // arguments only (another action's are unknown to it), required ones, combinations.
  const rules = Object.entries(dispatch.operations).map(([value, opName]) => {
    const schema = operations.get(opName)?.inputSchema ?? {};
    const own = (schema.properties ?? {}) as Record<string, JsonSchema>;
    return {
      if: { properties: { [dispatch.argument]: { const: value } }, required: [dispatch.argument] },
      // The choosing argument is one more property (an action taking none allows it alone).
      then: { ...schema, properties: { ...own, [dispatch.argument]: true }, ...(typeof schema.maxProperties === 'number' ? { maxProperties: schema.maxProperties + 1 } : {}) },
    };
  });
  return { type: 'object', additionalProperties: false, required: [dispatch.argument], properties, allOf: rules };
}

export function dispatchOutputSchema(dispatch: ToolDispatch, operations: Map<string, OperationEntry>): JsonSchema {
  return { type: 'object', oneOf: Object.values(dispatch.operations).map((name) => operations.get(name)?.outputSchema ?? {}) };
}

/** The spec promises the results card on these addresses only; `/api/mcp` keeps plain tools. */
export const CARD_ADDRESSES: readonly ProfileName[] = ['connectors', 'assistant'];

/** Where a tool announces the card: `true` is every card address it is served on; a list names them. */
export function cardAddresses(card: boolean | ProfileName[] | undefined, profiles: readonly ProfileName[]): ProfileName[] {
  if (!card) return [];
  const wanted = card === true ? CARD_ADDRESSES : card;
  return CARD_ADDRESSES.filter((p) => wanted.includes(p) && profiles.includes(p));
}

/**
 * A tool's hints from its operations: read-only when all read, destructive when one
 * destroys, idempotent when all are, open-world when one reaches outside. A tool without
 * operations (in preparation) is described as a read.
 */
export function toolAnnotations(ops: readonly OperationEntry[]): ToolAnnotations {
  return {
    readOnlyHint: ops.every((o) => o.effect === 'read'),
    destructiveHint: ops.some((o) => o.destructive),
    idempotentHint: ops.every((o) => o.idempotent),
    openWorldHint: ops.some((o) => o.openWorld),
  };
}

export function toolEntry(tool: ToolSource, tools: ToolSource[], operations: Map<string, OperationEntry>): ToolEntry {
  const target = tool.status === 'alias' ? tools.find((t) => t.name === tool.alias_of) : tool;
  const opNames = target?.operations ?? [];
  const ops = opNames.map((n) => operations.get(n)).filter((o): o is OperationEntry => o !== undefined);
  const first = ops[0];
  const callable = tool.status !== 'preparation' && first !== undefined;
  const dispatch = target?.dispatch ?? null;
  // A historic name is the current tool under another name: same addresses, same scope.
  const profiles = (tool.status === 'alias' ? target?.profiles : tool.profiles) ?? [];
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description.trim(),
    status: tool.status,
    aliasOf: tool.status === 'alias' ? (tool.alias_of ?? null) : null,
    operations: opNames,
    dispatch,
    profiles,
    scope: (tool.status === 'alias' ? target?.scope : tool.scope) ?? first?.scope ?? 'mcp:read',
    effect: ops.some((o) => o.effect === 'write') ? 'write' : 'read',
    paidOnly: ops.some((o) => o.paidOnly),
    card: cardAddresses(tool.status === 'alias' ? target?.card : tool.card, profiles),
    annotations: toolAnnotations(ops),
    inputSchema: !callable ? null : dispatch ? dispatchInputSchema(dispatch, operations) : first.inputSchema,
    outputSchema: !callable ? null : dispatch ? dispatchOutputSchema(dispatch, operations) : first.outputSchema,
    recipes: (tool.status === 'alias' ? target?.recipes : tool.recipes) ?? [],
  };
}
