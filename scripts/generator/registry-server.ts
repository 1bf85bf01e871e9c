// Transform: the MCP Registry description of the public deployment (server.json, schema of
// 2025-12-11), from the package's name, version and description, the catalogue's service
// name and published address, and the path of the canonical MCP address. The remote URL is
// written out whole: registry clients connect to it as it is.

export const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

export interface RegistryServerInput {
  /** package.json `name`: the part after the namespace. */
  packageName: string;
  /** package.json `version`: one exact version, never a range. */
  version: string;
  /** package.json `description`: at most 100 characters (the registry's limit). */
  description: string;
  /** tools.yaml `service.name`. */
  title: string;
  /** tools.yaml `service.public_url`: the public deployment's https origin; its host, reversed, is the namespace. */
  publicUrl: string;
  /** The canonical MCP address's path (profile `full`). */
  mcpPath: string;
}

export interface RegistryServer {
  $schema: string;
  name: string;
  title: string;
  description: string;
  version: string;
  remotes: { type: 'streamable-http'; url: string }[];
}

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const RANGE = /^[\^~<>=*]|\.[x*](\.|$)|\s/;

export function registryServer(input: RegistryServerInput): RegistryServer {
  const problems: string[] = [];
  let origin: URL | null = null;
  try {
    origin = new URL(input.publicUrl);
  } catch {
    problems.push(`service.public_url n'est pas une adresse : « ${input.publicUrl} »`);
  }
  if (origin && (origin.protocol !== 'https:' || origin.pathname !== '/' || origin.search || origin.hash || origin.port)) {
    problems.push(`service.public_url doit être une origine https sans chemin ni port : « ${input.publicUrl} »`);
  }
  const name = origin ? `${origin.hostname.split('.').reverse().join('.')}/${input.packageName}` : '';
  if (origin && !NAME.test(name)) problems.push(`nom de registre invalide : « ${name} » (nom du paquet et hôte de service.public_url)`);
  const description = input.description.trim();
  if (!description || [...description].length > 100) problems.push(`la description du paquet doit compter de 1 à 100 caractères (${[...description].length})`);
  if (!input.title.trim() || [...input.title].length > 100) problems.push(`service.name doit compter de 1 à 100 caractères (${[...input.title].length})`);
  if (!input.version || RANGE.test(input.version)) problems.push(`la version du paquet doit être une version exacte : « ${input.version} »`);
  if (!input.mcpPath.startsWith('/')) problems.push(`le chemin MCP doit commencer par « / » : « ${input.mcpPath} »`);
  if (problems.length) throw new Error(`server.json : ${problems.join(' ; ')}`);
  return {
    $schema: SERVER_SCHEMA,
    name,
    title: input.title.trim(),
    description,
    version: input.version,
    remotes: [{ type: 'streamable-http', url: `${(origin as URL).origin}${input.mcpPath}` }],
  };
}
