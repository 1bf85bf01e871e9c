// The results card as an MCP Apps UI resource (`ui://`, `text/html;profile=mcp-app`): which
// tools announce it, on which addresses, and what resources/list and resources/read answer.
// The card only presents: the data stays in the tool result's `structuredContent`, and
// `content` keeps its readable text for hosts without MCP Apps.
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import type { ProfileName, ToolEntry } from '../contract/types.js';
import { cardDocument } from './card-template.js';

export const CARD_MIME_TYPE = 'text/html;profile=mcp-app';

/** The card loads nothing from the network: no origin declared, the host's strictest CSP applies. */
export const CARD_CSP = { connectDomains: [] as string[], resourceDomains: [] as string[] };

/**
 * The spec promises the card on `/api/mcp/connectors` (its four tools) and on
 * `/api/mcp/assistant` (company and market searches): the catalogue's `card` lists, per
 * tool, the addresses that announce it. `/api/mcp` (the full registry, for scripts and
 * automation) keeps plain tools and an empty resources/list, so a card URI read there is
 * unknown too. The transport is stateless (no session keeps the client's `initialize`), so
 * the card is announced to every client of these addresses: a host without MCP Apps ignores
 * `_meta` and shows `content`.
 */
export interface CardKind {
  uri: string;
  name: string;
  title: string;
  description: string;
  html: string;
}

/**
 * One card kind: the answer of a card tool. Search tools answer `results[]` of `{id, titre,
 * resume, fields}` (the card picks each record's badges from its fields); the consultation
 * file tools answer by `action` (search and location excerpts, a reading page, the table of
 * contents, a download link), and the card lays out each.
 */
export const RESULTS_CARD: CardKind = {
  uri: 'ui://cartes/resultats.html',
  name: 'carte-resultats',
  title: 'Carte de résultats',
  description:
    "Présente la réponse d'un outil de recherche (titre, résumé et repères : activité, lieu, RGE ; acheteur, départements, date limite) ou d'un dossier de consultation (extraits, page de lecture, sommaire des pièces, lien de téléchargement).",
  html: cardDocument(),
};

const CARD_KINDS: readonly CardKind[] = [RESULTS_CARD];

/** The card a tool announces at this address, or null. */
export function cardOf(tool: ToolEntry, profile: ProfileName): CardKind | null {
  return tool.card.includes(profile) ? RESULTS_CARD : null;
}

/** `_meta` of a tool in tools/list: the MCP Apps link and its OpenAI alias, for a card tool on a card address. */
export function toolCardMeta(tool: ToolEntry, profile: ProfileName): Record<string, unknown> | undefined {
  const card = cardOf(tool, profile);
  if (!card) return undefined;
  return { ui: { resourceUri: card.uri, csp: CARD_CSP }, 'openai/outputTemplate': card.uri };
}

function resourceMeta(): Record<string, unknown> {
  return { ui: { csp: CARD_CSP, prefersBorder: true } };
}

/** The cards the tools listed at this address announce (none on `/api/mcp`). */
function cardsAt(profile: ProfileName, tools: readonly ToolEntry[]): CardKind[] {
  const uris = new Set(tools.map((t) => cardOf(t, profile)?.uri).filter((u): u is string => !!u));
  return CARD_KINDS.filter((c) => uris.has(c.uri));
}

export function listCardResources(profile: ProfileName, tools: readonly ToolEntry[]): Resource[] {
  return cardsAt(profile, tools).map((c) => ({ uri: c.uri, name: c.name, title: c.title, description: c.description, mimeType: CARD_MIME_TYPE, _meta: resourceMeta() }));
}

/** resources/read of a card at this address; null for any other URI (the caller answers -32602). */
export function readCardResource(profile: ProfileName, tools: readonly ToolEntry[], uri: string): ReadResourceResult | null {
  const card = cardsAt(profile, tools).find((c) => c.uri === uri);
  if (!card) return null;
  return { contents: [{ uri: card.uri, mimeType: CARD_MIME_TYPE, text: card.html, _meta: resourceMeta() }] };
}
