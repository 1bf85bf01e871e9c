// Ajv errors into one French sentence naming the argument at fault, the same on REST
// and MCP.
import type { ErrorObject } from 'ajv';
import { QuerySyntaxError } from '../platform/search/errors.js';
import { parseQuery, QUERY_LIMITS } from '../platform/search/query-syntax.js';
import { echoed, forbiddenCharacter } from './text-rules.js';

/** The argument at fault as a caller writes it: `cible.id`, `destinataires[0]`. */
function argumentName(err: ErrorObject): string {
  const segments = err.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return segments.reduce((out, s) => (/^\d+$/.test(s) ? `${out}[${s}]` : out ? `${out}.${s}` : s), '');
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

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The sets of arguments of an `anyOf` whose branches each require some: « a », ou « b » et « c ». */
function requiredSets(branches: unknown): string | null {
  if (!Array.isArray(branches) || !branches.every((b) => isRecord(b) && Array.isArray(b.required) && b.required.length)) return null;
  const sets = branches.map((b) => ((b as { required: string[] }).required.map((n) => `« ${n} »`).join(' et ')));
  return sets.length > 2 ? `${sets.slice(0, -1).join(', ')} ou ${sets[sets.length - 1]}` : sets.some((s) => s.includes(' et ')) ? sets.join(', ou ') : sets.join(' ou ');
}

/** Why a search text fails the syntax's pattern: the parser's own words, or the limits. */
function queryMessage(name: string, value: unknown): string {
  if (typeof value === 'string') {
    try {
      parseQuery(value);
    } catch (err) {
      if (err instanceof QuerySyntaxError) return err.message.replace('« query »', `« ${name} »`);
    }
  }
  return (
    `L'argument « ${name} » ne respecte pas la syntaxe de recherche : au moins un mot (et deux caractères autres que des espaces et des virgules), ` +
    `${QUERY_LIMITS.wordLength} caractères au plus par mot, ${QUERY_LIMITS.wordsPerAlternative} mots au plus par alternative, ` +
    `${QUERY_LIMITS.alternatives} alternatives au plus (séparées par des virgules, jamais entre guillemets).`
  );
}

export function frenchMessage(err: ErrorObject): string {
  const name = argumentName(err);
  const p = err.params as Record<string, unknown>;
  const arg = (n: string) => `« ${n} »`;
  const parent = isRecord(err.parentSchema) ? err.parentSchema : {};
  // A rule written under `then` (or a nested `anyOf`) says in its description what it asks.
  if (typeof parent.description === 'string' && /\/(then|anyOf\/\d+)\/[^/]+$/.test(err.schemaPath) && err.keyword !== 'pattern') return parent.description;
  switch (err.keyword) {
    case 'anyOf': {
      if (err.schemaPath !== '#/anyOf' && typeof parent.description === 'string') return parent.description;
      const sets = requiredSets(err.schema);
      return sets ? `Argument manquant : donner ${sets}.` : name ? `L'argument ${arg(name)} est invalide.` : 'Arguments invalides.';
    }
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
    case 'pattern': {
      const value: unknown = err.data;
      const forbidden = typeof value === 'string' ? forbiddenCharacter(value) : null;
      if (forbidden) return `L'argument ${arg(name)} contient un caractère refusé : ${forbidden}.`;
      if (parent['x-query-syntax'] === true) return queryMessage(name, value);
      if (typeof value === 'string' && !value.trim()) return `L'argument ${arg(name)} est vide.`;
      const own = String(p.pattern);
      // A long pattern is no help quoted: the parameter's description says what it wants.
      if (own.length > 100 || err.schemaPath.includes('/then/')) return `L'argument ${arg(name)} n'a pas le format attendu${typeof parent.description === 'string' ? ` : ${parent.description}` : '.'}`;
      return `L'argument ${arg(name)} n'a pas le format attendu (motif ${own}).`;
    }
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

/**
 * The first error that names the most specific problem (a wrong or unknown argument before
 * a missing one). The errors inside an `anyOf`'s branches are how it failed, not what to
 * say (the `anyOf` error says it); an `if` error only announces its `then` errors.
 */
export function pickError(errors: ErrorObject[]): ErrorObject | undefined {
  const order = ['additionalProperties', 'maxProperties', 'type', 'required', 'enum', 'const'];
  const rank = (e: ErrorObject) => {
    const i = order.indexOf(e.keyword);
    return i === -1 ? order.length : i;
  };
  const said = errors.filter((e) => e.keyword !== 'if' && !/\/anyOf\/\d+\//.test(e.schemaPath));
  return [...(said.length ? said : errors)].sort((a, b) => rank(a) - rank(b))[0];
}
