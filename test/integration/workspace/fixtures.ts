// Public records the workspace tests follow: a notice (with a deadline), a consultation
// file of that notice, a company and a buyer, written straight into the tables the
// importers fill. Also a REST-or-MCP caller that answers one outcome shape.
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Database } from '../../../src/platform/db/database.js';
import { Contract } from '../../../src/contract/runtime.js';
import type { TestService } from '../../helpers/service.js';

const contract = Contract.load();

export interface PublicRecords {
  marcheId: string;
  annonceId: string;
  deadline: string;
  dceId: string;
  siren: string;
  buyerId: string;
}

export async function seedPublicRecords(db: Database, suffix = '1'): Promise<PublicRecords> {
  const at = new Date().toISOString();
  const marcheId = randomUUID();
  const annonceId = `26-9${suffix.padStart(4, '0')}`;
  const deadline = '2026-09-30T12:00:00+02:00';
  await db('notices').insert({
    marche_id: marcheId,
    annonce_id: annonceId,
    source: 'boamp',
    objet: `Réfection de la toiture du gymnase ${suffix}`,
    acheteur_nom: 'Commune de Plouha',
    date_parution: '2026-06-01',
    date_limite: deadline,
    departements: '["22"]',
    types_marche: '["TRAVAUX"]',
    etat: 'INITIAL',
    nature: 'APPEL_OFFRE',
    cpv_codes: '[]',
    ingested_at: at,
    updated_at: at,
  });
  const dceId = randomUUID();
  await db('dce_files').insert({ id: dceId, marche_id: marcheId, annonce_id: annonceId, label: `DCE gymnase ${suffix}`, version: 1, content_sha: dceId.replace(/-/g, ''), pieces: 0, bytes: 0, ingested_at: at, updated_at: at });
  const siren = `73282932${suffix.slice(-1)}`;
  await db('companies').insert({ siren, denomination: `Toitures Armor ${suffix}`, etat: 'A', ingested_at: at, updated_at: at });
  const buyerId = `2122011500001${suffix.slice(-1)}`;
  await db('buyers').insert({ id: buyerId, nom: 'Commune de Plouha', siret: buyerId, ingested_at: at });
  return { marcheId, annonceId, deadline, dceId, siren, buyerId };
}

export type Via = 'rest' | 'mcp';
export interface Outcome {
  ok: boolean;
  status: number;
  code: string | null;
  message: string;
  body: any;
}

/** Calls an operation through REST (token) or its MCP tool (client); the same outcome shape either way. */
export async function call(svc: TestService, via: Via, operation: string, args: Record<string, unknown>, who: { token: string; mcp: Client }): Promise<Outcome> {
  if (via === 'rest') {
    const r = await svc.rest(operation, args, { token: who.token });
    return { ok: r.status === 200, status: r.status, code: r.json?.error?.code ?? null, message: r.json?.error?.message ?? '', body: r.json };
  }
  const tool = contract.operation(operation)?.mcpTool as string;
  const r: any = await who.mcp.callTool({ name: tool, arguments: args });
  const text = (r.content?.[0]?.text as string | undefined) ?? '';
  return { ok: r.isError !== true, status: r.isError ? 0 : 200, code: null, message: r.isError ? text : '', body: r.structuredContent };
}

/** The demo RC's wording (scripts/demo/dce.ts) as the consultation file's RC, plus a DPGF per lot: what a response file reads. */
export async function seedRc(db: Database, records: PublicRecords): Promise<void> {
  const piece = (position: number, filename: string, docType: string) => ({
    dce_id: records.dceId,
    position,
    filename,
    doc_type: docType,
    lot: null,
    content_type: 'application/pdf',
    size: 1000,
    object_key: 'a'.repeat(64),
    source_pages: 2,
    scanned_pages: 0,
    reading_pages: 2,
  });
  await db('dce_pieces').insert([piece(1, '01 RC.pdf', 'rc'), piece(2, 'Lot 01 Couverture/DPGF lot 1.xlsx', 'dpgf'), piece(3, 'Lot 02 Zinguerie/DPGF lot 2.xlsx', 'dpgf')]);
  const pages = [
    "RÈGLEMENT DE LA CONSULTATION\nArticle 1 – Objet de la consultation\nLes travaux sont répartis en 2 lots.",
    "Article 3 – Présentation des candidatures et des offres\nChaque candidat produit le formulaire DC1 ou le DUME, le formulaire DC2, un mémoire technique, l'attestation d'assurance décennale en cours de validité, les certificats de qualification professionnelle, le planning prévisionnel.\nQualification exigée ou équivalente : Qualibat 3194.",
  ];
  await db('dce_pages').insert(pages.map((text, i) => ({ dce_id: records.dceId, position: 1, page: i + 1, search_key: `${records.dceId}/1/${i + 1}`, text })));
}
