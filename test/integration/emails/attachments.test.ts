// Attachments of e-mail sends: the organisation's response-file documents arrive byte for byte with their names, 10 MiB at most per message, another organisation's document is refused like an unknown one (nothing recorded), and a document gone from the store ends the message in échec, never sent without it.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { call, seedPublicRecords } from '../workspace/fixtures.js';
import { startSmtp, until, type TestSmtp } from './smtp.js';

const TIMING = { tickMs: 40, retryBaseMs: 150, leaseMs: 600 };
type Who = { token: string; mcp: Client };

describe('e-mail attachments from response files', function () {
  this.timeout(60000);
  const storeDir = join(tmpdir(), `dce-objects-${randomBytes(6).toString('hex')}`);
  let smtp: TestSmtp;
  let svc: TestService;
  let me: Who;
  let other: Who;
  let fileId: string;
  let otherFileId: string;
  let suffix = 0;

  /** Attaches one document to item p1 of the file; its id. */
  async function attach(who: Who, id: string, name: string, bytes: Buffer): Promise<string> {
    const current = (await call(svc, 'rest', 'dossiers.get', { id }, who)).body.dossier;
    const r = await call(svc, 'rest', 'dossiers.update', { id, version: current.version, joindre: [{ piece: 'p1', nom: name, contenu_base64: bytes.toString('base64') }] }, who);
    expect(r.ok, r.message).to.equal(true);
    const documents = r.body.dossier.pieces[0].documents as { id: string; nom: string }[];
    return (documents.at(-1) as { id: string }).id;
  }

  async function newFile(who: Who): Promise<string> {
    suffix += 1;
    const records = await seedPublicRecords(svc.db, String(suffix));
    const r = await call(svc, 'rest', 'dossiers.create', { marche_id: records.marcheId }, who);
    expect(r.ok, r.message).to.equal(true);
    return r.body.dossier.id as string;
  }

  async function stateOf(id: string): Promise<Record<string, unknown>> {
    return (await svc.db('email_messages').where({ id }).first()) as Record<string, unknown>;
  }

  before(async () => {
    smtp = await startSmtp();
    svc = await startTestService({ config: { smtpUrl: smtp.url, mailTiming: TIMING, dceStoreDir: storeDir } });
    me = { token: svc.token, mcp: await mcpClient(`${svc.url}/api/mcp`, svc.token) };
    const account = await svc.createAccount({ organisation: 'Autre organisation' });
    const token = await svc.tokenFor(account);
    other = { token, mcp: await mcpClient(`${svc.url}/api/mcp`, token) };
    fileId = await newFile(me);
    otherFileId = await newFile(other);
  });
  after(async () => {
    await me.mcp.close();
    await other.mcp.close();
    await svc.close();
    await smtp.close();
    rmSync(storeDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    smtp.received.length = 0;
    smtp.attempts = 0;
  });

  it('joins the documents byte for byte, with their names and types, and lists them with the message', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(200_000)]);
    const text = Buffer.from('Attestation URSSAF — à jour au 1er juin.\n', 'utf8');
    const pdfId = await attach(me, fileId, 'Kbis société.pdf', pdf);
    const textId = await attach(me, fileId, 'attestation urssaf.txt', text);
    const { status, json } = await svc.rest('emails.send', {
      destinataires: ['acheteur@mairie-exemple.fr'],
      sujet: 'Pièces demandées',
      texte: 'Bonjour,\n\nCi-joint les pièces.\n',
      pieces_jointes: [
        { dossier_id: fileId, document_id: pdfId },
        { dossier_id: fileId.toUpperCase(), document_id: textId },
        { dossier_id: fileId, document_id: pdfId },
      ],
      cle: 'pieces-1',
    });
    expect(status, JSON.stringify(json)).to.equal(200);
    // Named twice, joined once; in the order given.
    expect(json.courriel.pieces_jointes).to.deep.equal([
      { dossier_id: fileId, document_id: pdfId, nom: 'Kbis société.pdf', content_type: 'application/pdf', taille: pdf.length },
      { dossier_id: fileId, document_id: textId, nom: 'attestation urssaf.txt', content_type: 'text/plain; charset=utf-8', taille: text.length },
    ]);
    const got = await until(async () => smtp.received[0]);
    expect(got.parsed.text).to.equal('Bonjour,\n\nCi-joint les pièces.\n');
    expect(got.parsed.attachments.map((a) => [a.filename, a.contentType])).to.deep.equal([
      ['Kbis société.pdf', 'application/pdf'],
      ['attestation urssaf.txt', 'text/plain'],
    ]);
    expect(Buffer.compare(got.parsed.attachments[0]?.content as Buffer, pdf)).to.equal(0);
    expect(Buffer.compare(got.parsed.attachments[1]?.content as Buffer, text)).to.equal(0);
    await until(async () => (await stateOf(json.courriel.id)).state === 'envoye');
    const listed = (await svc.rest('emails.list', {})).json.items.find((m: { id: string }) => m.id === json.courriel.id);
    expect(listed.pieces_jointes).to.deep.equal(json.courriel.pieces_jointes);
    // The attachments are part of what a key names: the same key with other attachments is a conflict.
    const again = await svc.rest('emails.send', {
      destinataires: ['acheteur@mairie-exemple.fr'],
      sujet: 'Pièces demandées',
      texte: 'Bonjour,\n\nCi-joint les pièces.\n',
      pieces_jointes: [{ dossier_id: fileId, document_id: textId }],
      cle: 'pieces-1',
    });
    expect(again.status).to.equal(409);
    const replay = await svc.rest('emails.send', {
      destinataires: ['acheteur@mairie-exemple.fr'],
      sujet: 'Pièces demandées',
      texte: 'Bonjour,\n\nCi-joint les pièces.\n',
      pieces_jointes: [
        { dossier_id: fileId, document_id: pdfId },
        { dossier_id: fileId, document_id: textId },
      ],
      cle: 'pieces-1',
    });
    expect(replay.json.cree).to.equal(false);
    expect(smtp.received).to.have.length(1);
  });

  it('refuses more than 10 MiB of attachments in all, naming the size, and records nothing', async () => {
    const big = await newFile(me);
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(await attach(me, big, `plan-${i}.dwg`, randomBytes(1_900_000)));
    const before = await svc.db('email_messages').count({ n: '*' }).first();
    const refused = await call(svc, 'rest', 'emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Plans', texte: 'Les plans.', pieces_jointes: ids.map((document_id) => ({ dossier_id: big, document_id })) }, me);
    expect(refused.status).to.equal(400);
    expect(refused.code).to.equal('invalid_arguments');
    expect(refused.message).to.contain('10,9 Mio (11400000 octets)');
    expect(refused.message).to.contain('10 Mio au plus par message');
    const viaMcp = await call(svc, 'mcp', 'emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Plans', texte: 'Les plans.', pieces_jointes: ids.map((document_id) => ({ dossier_id: big, document_id })) }, me);
    expect(viaMcp.ok).to.equal(false);
    expect(viaMcp.message).to.contain(refused.message);
    const after = await svc.db('email_messages').count({ n: '*' }).first();
    expect(Number(after?.n)).to.equal(Number(before?.n));
    // Five of them (9.5 MB) pass.
    const fits = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Plans', texte: 'Les plans.', pieces_jointes: ids.slice(0, 5).map((document_id) => ({ dossier_id: big, document_id })) });
    expect(fits.status, JSON.stringify(fits.json)).to.equal(200);
    const got = await until(async () => smtp.received[0]);
    expect(got.parsed.attachments).to.have.length(5);
  });

  it('answers another organisation’s document exactly as an unknown one (404), on REST and MCP, and records nothing', async () => {
    const theirs = await attach(other, otherFileId, 'leur devis.txt', Buffer.from('Devis confidentiel.'));
    const mine = await attach(me, fileId, 'mon devis.txt', Buffer.from('Mon devis.'));
    const before = await svc.db('email_messages').count({ n: '*' }).first();
    const send = (ref: { dossier_id: string; document_id: string }, via: 'rest' | 'mcp') =>
      call(svc, via, 'emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Devis', texte: 'Le devis.', pieces_jointes: [{ dossier_id: fileId, document_id: mine }, ref] }, me);
    const foreign = await send({ dossier_id: otherFileId, document_id: theirs }, 'rest');
    const unknown = await send({ dossier_id: fileId, document_id: randomUUID() }, 'rest');
    // My file, their document: still not found.
    const mixed = await send({ dossier_id: fileId, document_id: theirs }, 'rest');
    expect([foreign.status, unknown.status, mixed.status]).to.deep.equal([404, 404, 404]);
    expect(foreign.code).to.equal('not_found');
    expect(foreign.message).to.equal(unknown.message);
    expect(mixed.message).to.equal(unknown.message);
    expect(foreign.message).to.equal("Pièce jointe introuvable dans les dossiers de réponse de l'organisation (pieces_jointes[1]).");
    const viaMcp = await send({ dossier_id: otherFileId, document_id: theirs }, 'mcp');
    expect(viaMcp.ok).to.equal(false);
    expect(viaMcp.message).to.contain(foreign.message);
    const after = await svc.db('email_messages').count({ n: '*' }).first();
    expect(Number(after?.n)).to.equal(Number(before?.n));
    const joined = await svc.db('email_attachments').where('document_id', theirs).count({ n: '*' }).first();
    expect(Number(joined?.n)).to.equal(0);
  });

  it('ends in échec, never sent, when a document left the store before delivery', async () => {
    const bytes = Buffer.from(`Mémoire technique ${randomUUID()}`);
    const id = await attach(me, fileId, 'mémoire technique.txt', bytes);
    const key = createHash('sha256').update(bytes).digest('hex');
    rmSync(join(storeDir, key.slice(0, 2), key.slice(2, 4), key));
    const { status, json } = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Mémoire', texte: 'Le mémoire.', pieces_jointes: [{ dossier_id: fileId, document_id: id }] });
    expect(status, JSON.stringify(json)).to.equal(200);
    const failed = await until(async () => {
      const r = await stateOf(json.courriel.id);
      return r.state === 'echec' ? r : null;
    });
    expect(failed.last_response).to.equal("Non remis : la pièce jointe « mémoire technique.txt » n'est plus conservée par le service.");
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.attempts).to.equal(0);
  });
});
