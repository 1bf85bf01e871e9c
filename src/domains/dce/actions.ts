// Consultation files: read a piece by reading pages, the table of contents, locate terms in
// a file, search the files, and a temporary download link. Returning text or a link takes
// a file unit (one per distinct file per Paris day); the rest is free.
import type { Caller } from '../../access/caller.js';
import { InvalidArgumentsError, NotFoundError } from '../../errors.js';
import { departementsOf } from '../reference/lists.js';
import { pagedSearch } from '../../platform/search/cursor.js';
import { matchesWords, parseQuery, searchWords, type ParsedQuery } from '../../platform/search/query-syntax.js';
import { foldText } from '../../platform/search/text-fold.js';
import { parisIso } from '../../platform/paris-time.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';
import { maskContactDetails } from '../../import/contact-details.js';
import { DCE_LINK_PATH, DCE_LINK_TTL_SECONDS, signLink } from './links.js';
import { dceFileOf, pagesOf, piecesOf, readingPage, searchDcePages, type DceFile, type DcePieceRow } from './store.js';

type DceActions = Pick<HandlerMap<Caller>, 'dce.read' | 'dce.download'>;
type ReadResult = OperationResults['dce.read'];
type Piece = NonNullable<ReadResult['fichiers']>[number];

const EXTRACT_CHARS = 160;

/** Stored text as answered: contact details masked (the import masks them; a file imported before it did is masked here). */
const withoutContactDetails = (text: string) => maskContactDetails(text).text;
const MAX_LOCATIONS = 50;

function pieceOut(p: DcePieceRow): Piece {
  return { filename: p.filename, doc_type: p.doc_type as Piece['doc_type'], lot: p.lot, pages_total: p.reading_pages, pages_document: p.source_pages, taille: p.size, content_type: p.content_type };
}

const list = (names: string[]) => names.map((n) => `« ${n} »`).join(', ');

/** The piece an approximate name designates: the same name folded, else the pieces holding it, else holding all its words. */
export function resolvePiece(pieces: readonly DcePieceRow[], given: string): DcePieceRow {
  const wanted = foldText(given);
  const base = (p: DcePieceRow) => p.filename.split('/').pop() as string;
  const tiers: ((p: DcePieceRow) => boolean)[] = [
    (p) => foldText(p.filename) === wanted || foldText(base(p)) === wanted,
    (p) => foldText(p.filename).includes(wanted),
    (p) => {
      const words = new Set(foldText(p.filename).split(' '));
      return wanted.split(' ').every((w) => [...words].some((x) => x.startsWith(w)));
    },
  ];
  for (const test of tiers) {
    const found = pieces.filter(test);
    if (found.length === 1) return found[0] as DcePieceRow;
    if (found.length > 1) throw new InvalidArgumentsError(`L'argument « filename » (« ${given} ») désigne plusieurs pièces : ${list(found.map((p) => p.filename))} ; préciser.`);
  }
  throw new InvalidArgumentsError(`L'argument « filename » (« ${given} ») ne désigne aucune pièce du dossier ; pièces : ${list(pieces.map((p) => p.filename))}.`);
}

/** A short extract of `text` around the first word the query matches, cut between words. */
export function extractAround(stored: string, parsed: ParsedQuery): string {
  const text = withoutContactDetails(stored);
  const terms = parsed.groups.flatMap((g) => g.terms.flatMap((t) => (t.kind === 'word' ? [t] : t.words.map((w) => ({ kind: 'word' as const, word: w, prefix: false })))));
  const tokens = /[\p{L}\p{N}]+/gu;
  let at = -1;
  for (let m = tokens.exec(text); m; m = tokens.exec(text)) {
    const word = searchWords(m[0])[0];
    if (word && terms.some((t) => word === t.word || (t.prefix && word.startsWith(t.word)))) {
      at = m.index;
      break;
    }
  }
  if (at < 0) at = 0;
  let start = Math.max(0, at - EXTRACT_CHARS / 2);
  let end = Math.min(text.length, at + EXTRACT_CHARS);
  while (start > 0 && !/\s/.test(text[start - 1] as string)) start--;
  while (end < text.length && !/\s/.test(text[end] as string)) end++;
  return `${start > 0 ? '… ' : ''}${text.slice(start, end).replace(/\s+/g, ' ').trim()}${end < text.length ? ' …' : ''}`;
}

function fileOrFail(file: DceFile | null, given: string): DceFile {
  if (!file) throw new NotFoundError(`Aucun dossier de consultation pour « ${given} » (marche_id, annonce_id ou id d'un dossier).`);
  return file;
}

const idOf = (file: DceFile) => file.marcheId ?? file.id;

export function dceActions({ db, quota, publicUrl, cursorKey, now, dceLinkKey }: Services): DceActions {
  const fields = (file: DceFile) => ({ version: file.version, mis_a_jour: parisIso(new Date(file.updatedAt)) });
  const contents = (file: DceFile, pieces: DcePieceRow[], hint: string): ReadResult => ({
    ok: true,
    action: 'sommaire_dce',
    marche_id: idOf(file),
    titre: file.titre,
    fichiers: pieces.map(pieceOut),
    count: pieces.length,
    hint,
    fields: fields(file),
  });

  return {
    'dce.read': async (args, caller) => {
      if (args.query !== undefined && args.marche_id === undefined) return search(args);
      if (args.marche_id === undefined || (args.type === undefined && args.query === undefined))
        throw new InvalidArgumentsError(`Donner « query » (recherche dans tous les dossiers), « marche_id » et « query » (situer des termes), ou « marche_id » et « type » (lecture).`);
      const file = fileOrFail(await dceFileOf(db, args.marche_id), args.marche_id);
      const pieces = await piecesOf(db, file.id);

      if (args.query !== undefined) {
        // Location: the pages and extracts where the terms are, free of file units.
        const parsed = parseQuery(args.query);
        const names = new Map(pieces.map((p) => [p.position, p]));
        const results = (await pagesOf(db, file.id))
          .filter((p) => matchesWords(parsed, [searchWords(p.text)]))
          .slice(0, MAX_LOCATIONS)
          .map((p) => ({
            acheteur: file.acheteur,
            doc_type: names.get(p.position)?.doc_type ?? null,
            lieu: file.departements.join(', ') || null,
            titre: file.titre,
            extrait: extractAround(p.text, parsed),
            filename: names.get(p.position)?.filename ?? '',
            marche_id: idOf(file),
            page: p.page,
          }));
        return { ok: true, action: 'localisation_dce', marche_id: idOf(file), titre: file.titre, query: args.query, count: results.length, results, fields: fields(file) };
      }

      if (args.type === 'sommaire') return contents(file, pieces, 'Lire une pièce avec « type » et « filename » (nom exact ou approché), page par page.');
      let piece: DcePieceRow;
      if (args.filename !== undefined) piece = resolvePiece(pieces, args.filename);
      else {
        const ofType = pieces.filter((p) => p.doc_type === args.type);
        if (!ofType.length)
          throw new InvalidArgumentsError(`Le dossier n'a pas de pièce de type « ${args.type} » ; types présents : ${list([...new Set(pieces.map((p) => p.doc_type))])} (ou « sommaire »).`);
        if (ofType.length > 1)
          return contents(file, ofType, `Plusieurs pièces de type « ${args.type} » (un dossier par lot) : choisir avec « filename ».`);
        piece = ofType[0] as DcePieceRow;
      }
      if (!piece.reading_pages)
        throw new InvalidArgumentsError(`La pièce « ${piece.filename} » n'a pas de texte (${piece.content_type}) : l'obtenir avec dce.download.`);
      const page = args.page ?? 1;
      if (page > piece.reading_pages)
        throw new InvalidArgumentsError(`L'argument « page » (${page}) dépasse les ${piece.reading_pages} page${piece.reading_pages > 1 ? 's' : ''} de lecture de « ${piece.filename} ».`);
      // Returning text takes the file's unit for the day (free when already opened today).
      await quota.openFile(caller, file.id);
      const texte = withoutContactDetails((await readingPage(db, file.id, piece.position, page)) ?? '');
      return {
        ok: true,
        action: 'lecture_dce',
        marche_id: idOf(file),
        titre: file.titre,
        filename: piece.filename,
        doc_type: piece.doc_type as Piece['doc_type'],
        page,
        pages_total: piece.reading_pages,
        texte,
        fichiers: pieces.map(pieceOut),
        ...(page < piece.reading_pages ? { hint: `Page suivante : « page » ${page + 1}.` } : {}),
        fields: fields(file),
      };
    },

    'dce.download': async (args, caller) => {
      const file = fileOrFail(await dceFileOf(db, args.marche_id), args.marche_id);
      const pieces = await piecesOf(db, file.id);
      // A piece named exactly (or unambiguously), else the whole archive, as the spec says.
      let piece: DcePieceRow | null = null;
      if (args.filename !== undefined) {
        try {
          piece = resolvePiece(pieces, args.filename);
        } catch {
          piece = null;
        }
      }
      await quota.openFile(caller, file.id);
      const expires = Math.floor(now().getTime() / 1000) + DCE_LINK_TTL_SECONDS;
      const token = signLink(dceLinkKey, { account: caller.accountId, dce: file.id, piece: piece?.position ?? null, expires });
      return {
        ok: true,
        action: 'telechargement_dce',
        marche_id: idOf(file),
        filename: piece?.filename ?? `dce-${idOf(file)}.zip`,
        download_url: `${publicUrl}${DCE_LINK_PATH}${token}`,
        content_type: piece?.content_type ?? 'application/zip',
        expires_in: DCE_LINK_TTL_SECONDS,
        titre: file.titre,
        ...(piece ? { doc_type: piece.doc_type as Piece['doc_type'] } : { count: pieces.length, fichiers: pieces.map(pieceOut) }),
        ...(args.filename !== undefined && !piece ? { hint: `« ${args.filename} » ne désigne pas une pièce unique : le lien mène à l'archive complète.` } : {}),
      };
    },
  };

  async function search(args: Parameters<HandlerMap<Caller>['dce.read']>[0]): Promise<ReadResult> {
    const parsed = parseQuery(args.query as string);
    const answer = await pagedSearch('dce.read', args, cursorKey, async (page) => {
      const found = await searchDcePages(db, parsed, { departements: departementsOf(args.departements, args.region), from: args.publie_depuis, to: args.publie_avant }, page);
      const records = found.hits.map((h) => ({
        acheteur: h.acheteur,
        doc_type: h.docType,
        lieu: h.departements.join(', ') || null,
        titre: h.titre,
        extrait: extractAround(h.text, parsed),
        filename: h.filename,
        marche_id: h.marcheId ?? h.dceId,
        page: h.page,
      }));
      return { records, hasMore: found.hasMore, total: found.total };
    });
    return { ok: true, action: 'recherche_dce', query: args.query as string, count: answer.results.length, ...answer };
  }
}
