// describeParameters lists an input schema's parameters in French (type, required or not, description, constraints), nested objects flattened with dotted names.
import { expect } from 'chai';
import { describeParameters, type ParameterDescription } from '../../src/contract/parameters.js';
import type { JsonSchema } from '../../src/contract/types.js';

interface Case {
  name: string;
  given: JsonSchema | null;
  want: ParameterDescription[];
}

const param = (nom: string, type: string, overrides: Partial<ParameterDescription> = {}): ParameterDescription => ({
  nom,
  type,
  requis: false,
  description: null,
  contraintes: [],
  ...overrides,
});

const object = (properties: Record<string, JsonSchema>, required?: string[]): JsonSchema => ({ type: 'object', properties, ...(required ? { required } : {}) });

const cases: Case[] = [
  { name: 'a null schema (tool in preparation) has no parameter', given: null, want: [] },
  { name: 'the empty-object schema has no parameter', given: { type: 'object', additionalProperties: false, maxProperties: 0 }, want: [] },
  { name: 'an object without properties has no parameter', given: { type: 'object', properties: {} }, want: [] },
  {
    name: 'required flags follow `required`, in property order',
    given: object({ b: { type: 'string' }, a: { type: 'integer' }, c: { type: 'boolean' } }, ['a', 'c']),
    want: [param('b', 'string'), param('a', 'integer', { requis: true }), param('c', 'boolean', { requis: true })],
  },
  {
    name: 'a description is kept as written',
    given: object({ q: { type: 'string', description: 'Mots cherchés (casse ignorée).' } }),
    want: [param('q', 'string', { description: 'Mots cherchés (casse ignorée).' })],
  },
  {
    name: 'enum values are listed',
    given: object({ statut: { type: 'string', enum: ['active', 'alias', 'preparation'] } }),
    want: [param('statut', 'string', { contraintes: ['valeurs : active, alias, preparation'] })],
  },
  {
    name: 'an enum without type is a string',
    given: object({ region: { enum: ['11', '53'] } }),
    want: [param('region', 'string', { contraintes: ['valeurs : 11, 53'] })],
  },
  {
    name: 'an array of enum lists the values of its items, with its item bounds',
    given: object({ sources: { type: 'array', items: { type: 'string', enum: ['marche', 'dce'] }, minItems: 1, maxItems: 10 } }),
    want: [param('sources', 'array<string>', { contraintes: ['valeurs : marche, dce', '1 élément(s) au moins', '10 éléments au plus'] })],
  },
  {
    name: 'minLength and maxLength',
    given: object({ nom: { type: 'string', minLength: 1, maxLength: 100 } }, ['nom']),
    want: [param('nom', 'string', { requis: true, contraintes: ['1 caractère(s) au moins', '100 caractères au plus'] })],
  },
  {
    name: 'minimum and maximum, zero included',
    given: object({ offset: { type: 'integer', minimum: 0, maximum: 1000 } }),
    want: [param('offset', 'integer', { contraintes: ['minimum 0', 'maximum 1000'] })],
  },
  {
    name: 'a pattern, on the value or on array items',
    given: object({ prefix: { type: 'string', pattern: '^45[0-9]{0,6}$' }, departements: { type: 'array', items: { type: 'string', pattern: '^[0-9]{2}$' } } }),
    want: [
      param('prefix', 'string', { contraintes: ['motif : ^45[0-9]{0,6}$'] }),
      param('departements', 'array<string>', { contraintes: ['motif : ^[0-9]{2}$'] }),
    ],
  },
  {
    name: 'a format',
    given: object({ depuis: { type: 'string', format: 'date' } }),
    want: [param('depuis', 'string', { contraintes: ['format : date'] })],
  },
  {
    name: 'a default, as JSON, falsy values included',
    given: object({ limit: { type: 'integer', default: 20 }, tri: { type: 'string', default: 'date' }, archive: { type: 'boolean', default: false }, page: { type: 'integer', default: 0 } }),
    want: [
      param('limit', 'integer', { contraintes: ['défaut : 20'] }),
      param('tri', 'string', { contraintes: ['défaut : "date"'] }),
      param('archive', 'boolean', { contraintes: ['défaut : false'] }),
      param('page', 'integer', { contraintes: ['défaut : 0'] }),
    ],
  },
  {
    name: 'constraints come in a fixed order',
    given: object({ code: { type: 'string', enum: ['ab', 'cd'], minLength: 2, maxLength: 2, pattern: '^[a-z]+$', default: 'ab' } }),
    want: [param('code', 'string', { contraintes: ['valeurs : ab, cd', '2 caractère(s) au moins', '2 caractères au plus', 'motif : ^[a-z]+$', 'défaut : "ab"'] })],
  },
  {
    name: 'a type list reads "ou"; an untyped property is any; an array of arrays nests',
    given: object({ curseur: { type: ['string', 'null'] }, valeur: {}, grille: { type: 'array', items: { type: 'array', items: { type: 'integer' } } } }),
    want: [param('curseur', 'string ou null'), param('valeur', 'any'), param('grille', 'array<array<integer>>')],
  },
  {
    name: 'an array without items is an array of any',
    given: object({ ids: { type: 'array' } }),
    want: [param('ids', 'array<any>')],
  },
  {
    name: 'a nested object is listed, then its properties with dotted names; required inside an optional object means required when it is given',
    given: object(
      {
        periode: object({ du: { type: 'string', format: 'date' }, au: { type: 'string', format: 'date' } }, ['du']),
        query: { type: 'string' },
      },
      ['query'],
    ),
    want: [
      param('periode', 'object'),
      param('periode.du', 'string', { contraintes: ['obligatoire quand « periode » est donné', 'format : date'] }),
      param('periode.au', 'string', { contraintes: ['format : date'] }),
      param('query', 'string', { requis: true }),
    ],
  },
  {
    name: 'objects nested two levels deep',
    given: object({ a: { ...object({ b: object({ c: { type: 'integer', minimum: 1 } }, ['c']) }), description: 'Niveau un.' } }, ['a']),
    want: [
      param('a', 'object', { requis: true, description: 'Niveau un.' }),
      param('a.b', 'object'),
      param('a.b.c', 'integer', { contraintes: ['obligatoire quand « a.b » est donné', 'minimum 1'] }),
    ],
  },
];

describe('describeParameters', () => {
  for (const c of cases) it(c.name, () => expect(describeParameters(c.given)).to.deep.equal(c.want));
});
