// The full notice BOAMP publishes in `donnees` (a JSON string), read for what the service
// shows: CPV codes (main first), lots, the buyer's SIRET and name, the deadline, the
// estimated value, the procedure, and an award notice's results. Its first key names the
// form family: `EFORMS` (the European eForms UBL notice as JSON: `cac:`/`cbc:`/`efac:`/`efbc:`
// keys, text under `#text`, attributes under `@listName`, `@currencyID`…, one element as an
// object but several as an array), `MAPA` or `FNSimple` (the national forms: `{family:
// {initial | rectificatif | attribution | annulation: {…}}}`); older notices have no family
// key (IDENTITE, OBJET, CPV {PRINCIPAL}…). Contact details inside it are never read.
import { normaliseCpv } from '../reference/lists.js';

type Json = Record<string, unknown>;

export interface NoticeLot {
  numero: string;
  titre: string | null;
  cpv_codes: string[];
  valeur_estimee: number | null;
}

export interface ResultHolder {
  nom: string | null;
  /** The identifier as published (SIRET, SIREN or another one), digits only when it is French. */
  identifiant: string | null;
}

export interface NoticeResult {
  lot: string | null;
  montant: number | null;
  date: string | null;
  titulaires: ResultHolder[];
}

export interface NoticeDetails {
  family: 'EFORMS' | 'MAPA' | 'FNSimple' | 'BOAMP' | null;
  /** The form inside the family (`ContractNotice`, `ContractAwardNotice`, `initial`, `rectificatif`…). */
  form: string | null;
  cpvCodes: string[];
  lots: NoticeLot[];
  buyerSiret: string | null;
  buyerName: string | null;
  /** ISO 8601 instant. */
  deadline: string | null;
  estimatedValue: number | null;
  procedure: string | null;
  results: NoticeResult[];
}

export const NO_DETAILS: NoticeDetails = { family: null, form: null, cpvCodes: [], lots: [], buyerSiret: null, buyerName: null, deadline: null, estimatedValue: null, procedure: null, results: [] };

/** Lots and results kept at most (the contract's maxItems). */
export const MAX_LOTS = 200;

const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const arr = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
/** The text of a value: a string, a number, or an element's `#text`. */
function txt(v: unknown): string | null {
  if (Array.isArray(v)) return txt(v[0]);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'string') return v.replace(/\s+/g, ' ').trim() || null;
  const o = obj(v);
  return o ? txt(o['#text']) : null;
}
function num(v: unknown): number | null {
  const t = txt(v);
  if (!t) return null;
  const n = Number(t.replace(/\s/g, '').replace(',', '.'));
  return Number.isFinite(n) && n >= 0 ? n : null;
}
const path = (v: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((o, k) => obj(Array.isArray(o) ? o[0] : o)?.[k], v);
/** Digits of a French identifier (SIRET 14, SIREN 9), else null. */
function frenchId(v: string | null): string | null {
  const d = (v ?? '').replace(/[\s.]/g, '');
  return /^\d{14}$/.test(d) || /^\d{9}$/.test(d) ? d : null;
}
const unique = (list: (string | null)[]) => [...new Set(list.filter((x): x is string => !!x))];

/** The first value under `key` anywhere in the tree (breadth first), for the parts whose place varies. */
function findKey(root: unknown, key: string, maxDepth = 8): unknown {
  let level: unknown[] = [root];
  for (let depth = 0; depth < maxDepth && level.length; depth++) {
    const next: unknown[] = [];
    for (const node of level) {
      if (Array.isArray(node)) next.push(...node);
      else if (node && typeof node === 'object') {
        const o = node as Json;
        if (key in o) return o[key];
        next.push(...Object.values(o));
      }
    }
    level = next;
  }
  return undefined;
}

/** eForms date (`2026-08-04+02:00`) and time (`12:00:00+02:00`) as an ISO instant. */
function eformsInstant(date: unknown, time: unknown): string | null {
  const d = /^(\d{4}-\d{2}-\d{2})(Z|[+-]\d{2}:\d{2})?/.exec(txt(date) ?? '');
  if (!d) return null;
  const t = /^(\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?/.exec(txt(time) ?? '');
  const offset = t?.[2] ?? d[2] ?? '+01:00';
  const at = new Date(`${d[1]}T${t?.[1] ?? '23:59:59'}${offset}`);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

function instant(v: unknown): string | null {
  const t = txt(v);
  if (!t || !/^\d{4}-\d{2}-\d{2}/.test(t)) return null;
  const at = new Date(t);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/** eForms procedure codes (procurement-procedure-type), as BOAMP names them. */
const EFORMS_PROCEDURES: Readonly<Record<string, string>> = {
  open: 'Procédure ouverte',
  restricted: 'Procédure restreinte',
  'neg-w-call': 'Procédure avec négociation',
  'neg-wo-call': 'Procédure négociée sans publication préalable',
  'comp-dial': 'Dialogue compétitif',
  innovation: 'Partenariat d’innovation',
  oth: 'Autre procédure',
  'oth-single': 'Autre procédure en une étape',
  'oth-mult': 'Autre procédure en plusieurs étapes',
};

/** CPV codes of an eForms project: main first, then the additional ones. */
function eformsCpv(project: unknown): string[] {
  const codes = (items: unknown) =>
    arr(items).flatMap((c) =>
      arr(obj(c)?.['cbc:ItemClassificationCode'])
        .filter((code) => {
          const list = obj(code)?.['@listName'];
          return list === undefined || String(list).toLowerCase() === 'cpv';
        })
        .map((code) => normaliseCpv(txt(code) ?? '')),
    );
  const p = obj(project);
  return unique([...codes(p?.['cac:MainCommodityClassification']), ...codes(p?.['cac:AdditionalCommodityClassification'])]);
}

const eformsAmount = (project: unknown) => num(path(project, 'cac:RequestedTenderTotal', 'cbc:EstimatedOverallContractAmount'));

function eformsDeadline(process: unknown): string | null {
  for (const period of ['cac:TenderSubmissionDeadlinePeriod', 'cac:ParticipationRequestReceptionPeriod']) {
    const p = path(process, period);
    const at = p ? eformsInstant(path(p, 'cbc:EndDate'), path(p, 'cbc:EndTime')) : null;
    if (at) return at;
  }
  return null;
}

function readEforms(form: string, notice: Json): NoticeDetails {
  // The organisations: ORG-xxxx → name and legal identifier (BT-501, the SIRET in France).
  const orgs = new Map<string, { name: string | null; id: string | null }>();
  for (const o of arr(path(findKey(notice, 'efac:Organizations'), 'efac:Organization'))) {
    const company = obj(obj(o)?.['efac:Company']);
    const ref = txt(path(company, 'cac:PartyIdentification', 'cbc:ID'));
    if (company && ref) orgs.set(ref, { name: txt(path(company, 'cac:PartyName', 'cbc:Name')), id: txt(path(company, 'cac:PartyLegalEntity', 'cbc:CompanyID')) });
  }
  const buyerRef = arr(notice['cac:ContractingParty'])
    .map((p) => txt(path(p, 'cac:Party', 'cac:PartyIdentification', 'cbc:ID')))
    .find((r) => r && orgs.has(r));
  const buyer = buyerRef ? orgs.get(buyerRef) : undefined;
  const buyerId = frenchId(buyer?.id ?? null);
  const project = notice['cac:ProcurementProject'];
  const lots: NoticeLot[] = [];
  let deadline: string | null = eformsDeadline(notice['cac:TenderingProcess']);
  const lotCpv: string[] = [];
  for (const [i, l] of arr(notice['cac:ProcurementProjectLot']).entries()) {
    const lot = obj(l);
    if (!lot) continue;
    const lp = lot['cac:ProcurementProject'];
    const cpv = eformsCpv(lp);
    lotCpv.push(...cpv);
    lots.push({ numero: txt(lot['cbc:ID']) ?? String(i + 1), titre: txt(path(lp, 'cbc:Name')), cpv_codes: cpv, valeur_estimee: eformsAmount(lp) });
    const lotDeadline = eformsDeadline(lot['cac:TenderingProcess']);
    // The procedure's deadline is the earliest of its lots'.
    if (lotDeadline && (!deadline || lotDeadline < deadline)) deadline = lotDeadline;
  }
  // The results: each lot's winning tender, its amount and its tenderers (organisations).
  const result = obj(findKey(notice, 'efac:NoticeResult'));
  const results: NoticeResult[] = [];
  if (result) {
    const tenders = new Map(arr(result['efac:LotTender']).map((t) => [txt(path(t, 'cbc:ID')) ?? '', obj(t) ?? {}]));
    const parties = new Map(arr(result['efac:TenderingParty']).map((p) => [txt(path(p, 'cbc:ID')) ?? '', obj(p) ?? {}]));
    const contracts = new Map(arr(result['efac:SettledContract']).map((c) => [txt(path(c, 'cbc:ID')) ?? '', obj(c) ?? {}]));
    for (const r of arr(result['efac:LotResult'])) {
      const lr = obj(r);
      if (!lr) continue;
      // `selec-w`: a winner was chosen; `clos-nw` / `open-nw`: none.
      const code = txt(lr['cbc:TenderResultCode']);
      if (code && code !== 'selec-w') continue;
      const lotId = txt(path(lr, 'efac:TenderLot', 'cbc:ID'));
      for (const tref of arr(lr['efac:LotTender'])) {
        const tender = tenders.get(txt(path(tref, 'cbc:ID')) ?? '');
        if (!tender) continue;
        const party = parties.get(txt(path(tender, 'efac:TenderingParty', 'cbc:ID')) ?? '');
        const holders = arr(party?.['efac:Tenderer']).map((t) => {
          const org = orgs.get(txt(path(t, 'cbc:ID')) ?? '');
          return { nom: org?.name ?? null, identifiant: org?.id ?? null };
        });
        const contract = arr(lr['efac:SettledContract'])
          .map((c) => contracts.get(txt(path(c, 'cbc:ID')) ?? ''))
          .find((c) => c);
        const date = txt(path(contract, 'cbc:IssueDate'))?.slice(0, 10) ?? null;
        results.push({ lot: lotId, montant: num(path(tender, 'cac:LegalMonetaryTotal', 'cbc:PayableAmount')), date: date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null, titulaires: holders.filter((h) => h.nom || h.identifiant) });
      }
    }
  }
  const procedureCode = txt(path(notice['cac:TenderingProcess'], 'cbc:ProcedureCode'));
  return {
    family: 'EFORMS',
    form,
    cpvCodes: unique([...eformsCpv(project), ...lotCpv]),
    lots: lots.slice(0, MAX_LOTS),
    buyerSiret: buyerId && buyerId.length === 14 ? buyerId : null,
    buyerName: buyer?.name ?? null,
    deadline,
    estimatedValue: eformsAmount(project) ?? (lots.length ? lots.reduce<number | null>((s, l) => (l.valeur_estimee === null ? s : (s ?? 0) + l.valeur_estimee), null) : null),
    procedure: procedureCode ? (EFORMS_PROCEDURES[procedureCode] ?? procedureCode) : null,
    results: results.slice(0, MAX_LOTS),
  };
}

/**
 * Which of its patterns a key matches (bit i: `patterns[i]`), remembered by key: the same few
 * hundred keys come back in every notice, and one look-up costs less than testing each
 * pattern on each key of each notice (the national forms' walks below spent most of their
 * time in these tests).
 */
export class KeyPatterns {
  private readonly seen = new Map<string, number>();
  constructor(readonly patterns: readonly RegExp[]) {
    // A global or sticky pattern keeps its place between tests: its answer would depend on the last key.
    if (patterns.length > 30 || patterns.some((p) => p.global || p.sticky)) throw new Error('KeyPatterns : au plus 30 motifs, sans g ni y');
  }
  mask(key: string): number {
    let m = this.seen.get(key);
    if (m === undefined) {
      m = 0;
      for (let i = 0; i < this.patterns.length; i++) if ((this.patterns[i] as RegExp).test(key)) m |= 1 << i;
      // Bounded: a file with ever new keys costs the tests again, never memory.
      if (this.seen.size >= 4096) this.seen.clear();
      this.seen.set(key, m);
    }
    return m;
  }
}

const CPV_IN_KEY = 1;
const LOTS_KEY = 2;
const CPV_CODE_KEY = 4;
const MAIN_CPV_KEY = 8;
const CPV_KEYS = new KeyPatterns([/cpv/i, /^(lots?|LOTS?)$/, /classPrincipale|^PRINCIPAL$|^SECONDAIRE|^SUPPLEMENTAIRE/i, /objetPrincipal|^PRINCIPAL$/i]);

/**
 * The CPV codes under `n` into `main` and `others` (see formCpv). A function of the module, not
 * a closure made per call: under tsx each closure made also costs a naming call.
 */
function cpvWalk(n: unknown, key: string, inCpv: boolean, skipLots: boolean, main: string[], others: string[]): void {
  if (typeof n === 'string' || typeof n === 'number') {
    const m = CPV_KEYS.mask(key);
    if (inCpv || m & CPV_CODE_KEY) {
      const code = normaliseCpv(String(n));
      if (code) (m & MAIN_CPV_KEY ? main : others).push(code);
    }
    return;
  }
  if (Array.isArray(n)) {
    for (const x of n) cpvWalk(x, key, inCpv, skipLots, main, others);
    return;
  }
  const o = obj(n);
  if (!o) return;
  for (const k of Object.keys(o)) {
    const m = CPV_KEYS.mask(k);
    if (skipLots && m & LOTS_KEY) continue;
    const cpvKey = (m & CPV_IN_KEY) !== 0;
    cpvWalk(o[k], cpvKey || inCpv ? `${key}.${k}` : k, inCpv || cpvKey, skipLots, main, others);
  }
}

/**
 * CPV codes of a national form's subtree: `classPrincipale` under `objetPrincipal` first (the
 * main one), then the others (`objetComplementaire`, the older `CPV: {PRINCIPAL,
 * SECONDAIRE…}`), never the lots' ones when `skipLots`.
 */
function formCpv(node: unknown, skipLots: boolean): string[] {
  const main: string[] = [];
  const others: string[] = [];
  cpvWalk(node, '', false, skipLots, main, others);
  return unique([...main, ...others]);
}

interface TextSearch {
  keys: KeyPatterns;
  found: (string | null)[];
  /** Bit i: `keys.patterns[i]` not answered yet. */
  open: number;
}

function textWalk(node: unknown, left: number, s: TextSearch): void {
  if (left < 0) return;
  if (Array.isArray(node)) {
    for (const x of node) {
      textWalk(x, left - 1, s);
      if (!s.open) return;
    }
    return;
  }
  const o = obj(node);
  if (!o) return;
  const names = Object.keys(o);
  for (const k of names) {
    const m = s.keys.mask(k) & s.open;
    if (!m) continue;
    const t = txt(o[k]);
    if (!t) continue;
    for (let i = 0; i < s.found.length; i++) if (m & (1 << i)) s.found[i] = t;
    s.open &= ~m;
    if (!s.open) return;
  }
  for (const k of names) {
    textWalk(o[k], left - 1, s);
    if (!s.open) return;
  }
}

/**
 * For each pattern of `keys`, the text of the first value under a key it matches in the
 * subtree: at each object its own keys first, then its values in order, `depth` levels at
 * most. One walk answers every pattern, each with the value a walk of its own would find
 * first (the same order, each pattern answered once).
 */
export function firstTexts(root: unknown, keys: KeyPatterns, depth = 8): (string | null)[] {
  const s: TextSearch = { keys, found: new Array<string | null>(keys.patterns.length).fill(null), open: (1 << keys.patterns.length) - 1 };
  textWalk(root, depth, s);
  return s.found;
}

const LOT_VALUE_KEYS = new KeyPatterns([/^(valeurEstimee|valeur|montantEstime|VALEUR)$/i]);
const BODY_KEYS = new KeyPatterns([
  /^(siret|codeIdentificationNational|codeIdentification|SIRET)$/i,
  /^(valeurEstimee|valeurTotale|montantEstime|VALEUR_TOTALE|VALEUR_ESTIMEE)$/i,
  /^(dateLimiteReponse|dateReceptionOffres|dateLimiteReceptionOffres|RECEPT_OFFRES|RECEPT_CANDIDATURES)$/i,
]);

function readForm(family: NoticeDetails['family'], form: string | null, body: Json): NoticeDetails {
  const lotList = arr(path(body, 'lots', 'lot') ?? path(body, 'OBJET', 'LOTS', 'LOT') ?? path(body, 'LOTS', 'LOT'));
  const lots: NoticeLot[] = lotList
    .map((l, i) => {
      const lot = obj(l);
      if (!lot) return null;
      const [valeur] = firstTexts(lot, LOT_VALUE_KEYS);
      return {
        numero: txt(lot.numLot ?? lot.numero ?? lot.num ?? lot.NUM ?? lot['@NUM']) ?? String(i + 1),
        titre: txt(lot.intitule ?? lot.titre ?? lot.INTITULE ?? lot.description ?? lot.DESCRIPTION),
        cpv_codes: formCpv(lot, false),
        valeur_estimee: valeur ? num(valeur) : null,
      };
    })
    .filter((l): l is NoticeLot => l !== null);
  const [siretText = null, value = null, deadlineText = null] = firstTexts(body, BODY_KEYS);
  const siret = frenchId(siretText);
  const deadline = instant(deadlineText);
  const procedureNode = body.procedure ?? body.PROCEDURE;
  const procedure = txt(path(procedureNode, 'typeProcedure')) ?? Object.keys(obj(path(procedureNode, 'TYPE_PROCEDURE')) ?? {})[0] ?? null;
  return {
    family,
    form,
    cpvCodes: unique([...formCpv(body, true), ...lots.flatMap((l) => l.cpv_codes)]),
    lots: lots.slice(0, MAX_LOTS),
    buyerSiret: siret && siret.length === 14 ? siret : null,
    buyerName: txt(path(body, 'organisme', 'acheteurPublic')) ?? txt(path(body, 'IDENTITE', 'DENOMINATION')),
    deadline,
    estimatedValue: value ? num(value) : null,
    procedure,
    results: [],
  };
}

/** What `donnees` says, or NO_DETAILS when it cannot be read. */
export function readDonnees(donnees: unknown): NoticeDetails {
  let parsed: unknown = donnees;
  if (typeof donnees === 'string') {
    try {
      parsed = JSON.parse(donnees);
    } catch {
      return NO_DETAILS;
    }
  }
  const root = obj(parsed);
  if (!root) return NO_DETAILS;
  for (const family of ['EFORMS', 'MAPA', 'FNSimple'] as const) {
    const inner = obj(root[family]);
    if (!inner) continue;
    const [form, body] = Object.entries(inner).find(([, v]) => obj(v)) ?? [null, null];
    if (!body) return { ...NO_DETAILS, family };
    return family === 'EFORMS' ? readEforms(form as string, body as Json) : readForm(family, form, body as Json);
  }
  return readForm('BOAMP', null, root);
}

/** Every CPV code of the notice, the principal one first (the former reader's answer). */
export function cpvCodesOf(donnees: unknown): string[] {
  return readDonnees(donnees).cpvCodes;
}
