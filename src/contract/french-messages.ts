// Ajv errors into one French sentence naming the argument at fault, the same on REST
// and MCP.
import type { ErrorObject } from 'ajv';
import { echoed } from './text-rules.js';

function argumentName(err: ErrorObject): string {
  const base = err.instancePath.replace(/^\//, '').replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~');
  return base;
}

function joinPath(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'une chaîne de caractères',
  integer: 'un nombre entier',
  number: 'un nombre',
  boolean: 'un booléen (true ou false)',
  object: 'un objet',
  array: 'une liste',
  null: 'null',
};

function typeName(t: unknown): string {
  if (Array.isArray(t)) return t.map(typeName).join(' ou ');
  return TYPE_NAMES[String(t)] ?? String(t);
}

export function frenchMessage(err: ErrorObject): string {
  const name = argumentName(err);
  const p = err.params as Record<string, unknown>;
  const arg = (n: string) => `« ${n} »`;
  switch (err.keyword) {
    case 'additionalProperties':
      // The unknown name is the caller's own text: quoted short and clean.
      return `Argument inconnu : ${arg(joinPath(name, echoed(String(p.additionalProperty))))} n'est pas accepté${name ? ` dans ${arg(name)}` : ''}.`;
    case 'maxProperties':
      return name ? `L'argument ${arg(name)} accepte au plus ${String(p.limit)} propriété(s).` : `Cette opération n'accepte aucun argument : envoyer un objet vide {}.`;
    case 'required':
      return `Argument manquant : ${arg(joinPath(name, String(p.missingProperty)))} est obligatoire.`;
    case 'type':
      return name ? `L'argument ${arg(name)} doit être ${typeName(p.type)}.` : `Les arguments doivent former ${typeName(p.type)} JSON.`;
    case 'maxLength':
      return `L'argument ${arg(name)} est trop long : ${String(p.limit)} caractères au plus.`;
    case 'minLength':
      return `L'argument ${arg(name)} est trop court : ${String(p.limit)} caractère(s) au moins.`;
    case 'enum':
      return `L'argument ${arg(name)} doit valoir l'une de ces valeurs : ${(p.allowedValues as unknown[]).map(String).join(', ')}.`;
    case 'const':
      return `L'argument ${arg(name)} doit valoir ${JSON.stringify(p.allowedValue)}.`;
    case 'pattern':
      return `L'argument ${arg(name)} n'a pas le format attendu (motif ${String(p.pattern)}).`;
    case 'format':
      return `L'argument ${arg(name)} n'a pas le format attendu (${String(p.format)}).`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `L'argument ${arg(name)} doit être ${err.keyword === 'minimum' ? 'supérieur ou égal' : 'strictement supérieur'} à ${String(p.limit)}.`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `L'argument ${arg(name)} doit être ${err.keyword === 'maximum' ? 'inférieur ou égal' : 'strictement inférieur'} à ${String(p.limit)}.`;
    case 'minItems':
      return `L'argument ${arg(name)} doit contenir au moins ${String(p.limit)} élément(s).`;
    case 'maxItems':
      return `L'argument ${arg(name)} contient trop d'éléments : ${String(p.limit)} au plus.`;
    case 'uniqueItems':
      return `L'argument ${arg(name)} contient des doublons.`;
    default:
      return name ? `L'argument ${arg(name)} est invalide.` : 'Arguments invalides.';
  }
}

/** The first error that names the most specific problem (a wrong or unknown argument before a missing one). */
export function pickError(errors: ErrorObject[]): ErrorObject | undefined {
  const order = ['additionalProperties', 'maxProperties', 'type', 'required', 'enum', 'const'];
  const rank = (e: ErrorObject) => {
    const i = order.indexOf(e.keyword);
    return i === -1 ? order.length : i;
  };
  return [...errors].sort((a, b) => rank(a) - rank(b))[0];
}
