// server.json (the MCP Registry description) names the deployment by its reversed host and the package, carries the package's version and description and one streamable-http remote at the canonical MCP address, and refuses what the registry would refuse.
import { expect } from 'chai';
import { registryServer, SERVER_SCHEMA, type RegistryServerInput } from '../../../scripts/generator/registry-server.js';

const input = (overrides: Partial<RegistryServerInput> = {}): RegistryServerInput => ({
  packageName: 'batidata-api',
  version: '0.1.0',
  description: 'Marchés publics et données du bâtiment.',
  title: 'Données marchés publics et bâtiment',
  publicUrl: 'https://api.exemple.fr',
  mcpPath: '/api/mcp',
  ...overrides,
});

interface Case {
  name: string;
  given: RegistryServerInput;
  want: ReturnType<typeof registryServer> | { error: RegExp };
}

const cases: Case[] = [
  {
    name: 'the namespace is the host reversed, the remote the canonical address on that origin',
    given: input(),
    want: {
      $schema: SERVER_SCHEMA,
      name: 'fr.exemple.api/batidata-api',
      title: 'Données marchés publics et bâtiment',
      description: 'Marchés publics et données du bâtiment.',
      version: '0.1.0',
      remotes: [{ type: 'streamable-http', url: 'https://api.exemple.fr/api/mcp' }],
    },
  },
  {
    name: 'a trailing slash and upper case in the address give the same origin',
    given: input({ publicUrl: 'https://MCP.Exemple.fr/', version: '2.1.0-beta.1' }),
    want: {
      $schema: SERVER_SCHEMA,
      name: 'fr.exemple.mcp/batidata-api',
      title: 'Données marchés publics et bâtiment',
      description: 'Marchés publics et données du bâtiment.',
      version: '2.1.0-beta.1',
      remotes: [{ type: 'streamable-http', url: 'https://mcp.exemple.fr/api/mcp' }],
    },
  },
  { name: 'a plain http address is refused (the registry lists public servers)', given: input({ publicUrl: 'http://api.exemple.fr' }), want: { error: /origine https/ } },
  { name: 'an address with a path is refused (the path is the MCP address’s own)', given: input({ publicUrl: 'https://exemple.fr/service' }), want: { error: /sans chemin/ } },
  { name: 'an address with a port is refused', given: input({ publicUrl: 'https://exemple.fr:8443' }), want: { error: /sans chemin ni port/ } },
  { name: 'a text that is no address is refused', given: input({ publicUrl: '{base_url}' }), want: { error: /n'est pas une adresse/ } },
  { name: 'a description over 100 characters is refused (the registry’s limit)', given: input({ description: 'é'.repeat(101) }), want: { error: /1 à 100 caractères \(101\)/ } },
  { name: 'an empty description is refused', given: input({ description: '  ' }), want: { error: /description du paquet/ } },
  { name: 'a version range is refused', given: input({ version: '^1.2.3' }), want: { error: /version exacte/ } },
  { name: 'a wildcard version is refused', given: input({ version: '1.x' }), want: { error: /version exacte/ } },
  { name: 'a scoped package name does not fit the registry’s name pattern', given: input({ packageName: '@org/api' }), want: { error: /nom de registre invalide/ } },
  { name: 'every problem is named at once', given: input({ description: '', version: '*' }), want: { error: /description du paquet.*version exacte/ } },
];

describe('registryServer', () => {
  for (const c of cases) {
    it(c.name, () => {
      if ('error' in c.want) expect(() => registryServer(c.given)).to.throw(c.want.error);
      else expect(registryServer(c.given)).to.deep.equal(c.want);
    });
  }
});
