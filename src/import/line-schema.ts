// Validation of the records of a format written as a JSON Schema in the contract (our
// JSON-lines formats): Ajv 2020, and the first fault said in French, naming the field.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => void }).default;

const TYPE_NAMES: Record<string, string> = {
  string: 'une chaîne de caractères',
  integer: 'un nombre entier',
  number: 'un nombre',
  boolean: 'un booléen',
  object: 'un objet',
  array: 'une liste',
  null: 'null',
};
const typeName = (t: unknown): string => (Array.isArray(t) ? t.map(typeName).join(' ou ') : (TYPE_NAMES[String(t)] ?? String(t)));

/** A field name as written in a reason: short, without control characters. */
const quoted = (name: string) => `« ${[...name.slice(0, 60)].map((c) => (c < ' ' || c === '\u007f' ? '?' : c)).join('')} »`;

function fieldOf(err: ErrorObject): string {
  return err.instancePath.replace(/^\//, '').replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~');
}

/** One Ajv error as a French reason naming the field. */
export function lineFault(err: ErrorObject): string {
  const field = fieldOf(err);
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'additionalProperties':
      return `champ inconnu ${quoted(field ? `${field}.${String(p.additionalProperty)}` : String(p.additionalProperty))}`;
    case 'required':
      return `champ ${quoted(field ? `${field}.${String(p.missingProperty)}` : String(p.missingProperty))} absent`;
    case 'type':
      return field ? `champ ${quoted(field)} : ${typeName(p.type)} attendu` : `la ligne doit être ${typeName(p.type)} JSON`;
    case 'maxLength':
      return `champ ${quoted(field)} trop long (${String(p.limit)} caractères au plus)`;
    case 'minLength':
      return `champ ${quoted(field)} vide`;
    case 'enum':
      return `champ ${quoted(field)} : valeur non admise (valeurs : ${(p.allowedValues as unknown[]).map(String).join(', ')})`;
    case 'pattern':
      return `champ ${quoted(field)} : format non reconnu`;
    case 'format':
      return `champ ${quoted(field)} : ${p.format === 'date' ? 'date AAAA-MM-JJ attendue' : `format ${String(p.format)} attendu`}`;
    default:
      return `champ ${quoted(field || '(ligne)')} non conforme (${err.keyword})`;
  }
}

/** Faults a reader fixes first: a missing or unknown field before a bad value inside one. */
const ORDER = ['type', 'required', 'additionalProperties'];
const rank = (e: ErrorObject) => {
  const i = ORDER.indexOf(e.keyword);
  return (e.instancePath ? 10 : 0) + (i === -1 ? ORDER.length : i);
};

/** A validator of one format: null when the record conforms, else the French reason of its first fault. */
export function formatValidator(schema: object): (record: unknown) => string | null {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (record) => {
    if (validate(record)) return null;
    const errors = [...(validate.errors ?? [])].sort((a, b) => rank(a) - rank(b));
    return errors[0] ? lineFault(errors[0]) : 'ligne non conforme';
  };
}
