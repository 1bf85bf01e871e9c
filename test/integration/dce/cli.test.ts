// `npm run import -- dce` takes folders (pieces named by their path, lots kept) and a folder's manifest (dce.json: several files, each whole or refused alone; a bad manifest imports nothing), and with DCE_STORE_URL keeps the pieces in an S3-compatible store (s3rver) that the service then reads and serves through its signed link.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import S3rver from 's3rver';
import { docxDocument, pdfDocument, xlsxDocument, zipOf } from '../../../scripts/demo/documents.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { zipEntryNames } from '../../helpers/zip.js';
import { freshDatabase, startTestService, usingPostgres, type TestDatabaseUrl, type TestService } from '../../helpers/service.js';

const exec = promisify(execFile);

async function runImport(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import=tsx', 'scripts/import.ts', 'dce', ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}


const noStack = (text: string) => expect(text).to.not.match(/\n\s+at |node:internal|\.ts:\d+/);

describe('npm run import -- dce: folders, manifests and the S3-compatible store', function () {
  this.timeout(120_000);
  let database: TestDatabaseUrl;
  let db: Database;
  let dir: string;
  let server: S3rver;
  let stopped = false;
  let s3Env: Record<string, string>;
  const env = () => ({ DATABASE_URL: database.databaseUrl });
  const write = (name: string, bytes: Uint8Array | string): string => {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
    return path;
  };
  const piecesOf = async (annonceId: string): Promise<string[]> =>
    (await db('dce_pieces').join('dce_files', 'dce_files.id', 'dce_pieces.dce_id').where('dce_files.annonce_id', annonceId).orderBy('position').select('filename', 'lot')).map(
      (r: { filename: string; lot: number | null }) => `${r.filename}${r.lot === null ? '' : ` (lot ${r.lot})`}`,
    );

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    dir = mkdtempSync(join(tmpdir(), 'dce-cli-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'dce-test', configs: [] }] });
    const { port } = (await server.run()) as { port: number };
    s3Env = { DCE_STORE_URL: 's3://dce-test/pieces', AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'eu-west-3' };
    // A first run migrates the database for this process's reads.
    const first = await runImport([join(dir, 'absent')], env());
    expect(first.code).to.equal(2);
    db = openDatabase(database.databaseUrl);
  });
  after(async () => {
    await db?.destroy();
    if (!stopped) await server?.close();
    await database.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a folder of pieces: each named by its path in the folder, so the lot folders give the lots', async () => {
    write('piece-folder/RC.pdf', await pdfDocument([{ lines: ['Règlement de la consultation'] }]));
    write('piece-folder/Lot 2 Charpente/CCTP.docx', await docxDocument(['CCTP lot 2', 'Bois massif C24.']));
    write('piece-folder/Lot 3/DPGF.xlsx', await xlsxDocument([{ name: 'DPGF', rows: [['1', 'Zinguerie', 'ml', 40]] }]));
    write('piece-folder/.DS_Store', 'x');
    const run = await runImport(['DOSSIER-1', join(dir, 'piece-folder')], env());
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include('ajouté, version 1');
    expect(await piecesOf('DOSSIER-1')).to.deep.equal(['Lot 2 Charpente/CCTP.docx (lot 2)', 'Lot 3/DPGF.xlsx (lot 3)', 'RC.pdf']);
  });

  it('a manifest of one file without « fichiers »: every piece of its folder but the manifest', async () => {
    write('un-dossier/dce.json', JSON.stringify({ cible: 'DOSSIER-2' }));
    write('un-dossier/RC.pdf', await pdfDocument([{ lines: ['Règlement de la consultation du dossier 2'] }]));
    write('un-dossier/Lot 1/CCTP.docx', await docxDocument(['CCTP lot 1']));
    const run = await runImport([join(dir, 'un-dossier')], env());
    expect(run.code, run.stderr).to.equal(0);
    expect(await piecesOf('DOSSIER-2')).to.deep.equal(['Lot 1/CCTP.docx (lot 1)', 'RC.pdf']);
  });

  it('a manifest of several files: each imported whole, a hostile one refused alone (exit 1), a second run unchanged', async () => {
    write('lot/a.zip', await zipOf([{ name: 'RC.pdf', data: await pdfDocument([{ lines: ['Règlement A'] }]) }]));
    write('lot/b/CCTP.docx', await docxDocument(['CCTP B']));
    write('lot/hostile.zip', Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(200, 7)]));
    write('lot/dce.json', JSON.stringify({ dossiers: [{ cible: 'LOT-A', fichiers: ['a.zip'] }, { cible: 'LOT-H', fichiers: ['hostile.zip'] }, { cible: 'LOT-B', fichiers: ['b'] }] }));
    const run = await runImport([join(dir, 'lot')], env());
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include('Erreur (cible LOT-H) : hostile.zip');
    expect(run.stderr).to.include("rien n'a été importé pour ce dossier");
    expect(run.stdout).to.include('3 dossiers en');
    expect(run.stdout).to.include('2 ajoutés, 0 remplacés, 0 inchangés, 1 refusés');
    noStack(run.stderr);
    expect(await piecesOf('LOT-A')).to.deep.equal(['RC.pdf']);
    expect(await piecesOf('LOT-B')).to.deep.equal(['CCTP.docx']);
    expect(await piecesOf('LOT-H')).to.deep.equal([]);
    const again = await runImport([join(dir, 'lot')], env());
    expect(again.stdout).to.include('0 ajoutés, 0 remplacés, 2 inchangés, 1 refusés');
  });

  it('a bad manifest imports nothing and says what is wrong, in French', async () => {
    const before = Number((await db('dce_files').count({ n: '*' }).first())?.n);
    const cases: [string, string][] = [
      [JSON.stringify({ dossiers: [{ cible: 'M-1', fichiers: ['../a.zip'] }] }), 'sort du dossier'],
      [JSON.stringify({ dossiers: [{ cible: 'M-1', fichiers: ['absent.zip'] }] }), '« absent.zip » introuvable dans le dossier'],
      [JSON.stringify({ dossiers: [{ cible: 'M-1' }] }), '« fichiers » est attendu'],
      [JSON.stringify({ cible: 'M-1', dossiers: [] }), 'pas les deux'],
      [JSON.stringify({ dossiers: [{ cible: 'M-1', fichiers: ['a.zip'], lot: 2 }] }), 'clé inconnue « lot »'],
      ['{ pas du json', "ce n'est pas du JSON valide"],
    ];
    for (const [manifest, message] of cases) {
      write('mauvais/a.zip', await zipOf([{ name: 'RC.pdf', data: await pdfDocument([{ lines: ['Règlement'] }]) }]));
      write('mauvais/dce.json', manifest);
      const run = await runImport([join(dir, 'mauvais')], env());
      expect(run.code, manifest).to.equal(1);
      expect(run.stderr, manifest).to.include('dce.json : ').and.include(message).and.include("rien n'a été importé");
      noStack(run.stderr);
    }
    expect(Number((await db('dce_files').count({ n: '*' }).first())?.n)).to.equal(before);
  });

  describe('with DCE_STORE_URL (s3rver)', () => {
    let svc: TestService;
    const saved: Record<string, string | undefined> = {};
    const rc = async () => pdfDocument([{ lines: ['Règlement de la consultation S3', 'Couverture en ardoise naturelle.'] }]);

    before(async () => {
      for (const [k, v] of Object.entries(s3Env)) {
        saved[k] = process.env[k];
        process.env[k] = v;
      }
      svc = await startTestService({ database, config: { dceStoreUrl: s3Env.DCE_STORE_URL } });
    });
    after(async () => {
      await svc?.close();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });

    it('the CLI puts the pieces in the bucket (not the data folder), the service reads and serves them back byte for byte', async () => {
      const rcBytes = await rc();
      const cctpBytes = await docxDocument(['CCTP lot 1 couverture', 'Ardoise naturelle posée au crochet.']);
      const archive = write('s3/dce-s3.zip', await zipOf([{ name: 'RC.pdf', data: rcBytes }, { name: 'Lot 1/CCTP.docx', data: cctpBytes }]));
      const run = await runImport(['S3-1', archive], { ...env(), ...s3Env });
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.include('s3://dce-test/pieces');
      const keys = (await db('dce_pieces').join('dce_files', 'dce_files.id', 'dce_pieces.dce_id').where('dce_files.annonce_id', 'S3-1').select('object_key')).map((r: { object_key: string }) => r.object_key);
      expect(keys).to.have.length(2);
      const bucketFiles = readdirSync(join(dir, 's3', 'dce-test'), { recursive: true }).map(String);
      for (const key of keys) expect(bucketFiles.some((f) => f.includes(key)), key).to.equal(true);
      if (!usingPostgres) {
        // The earlier imports of this file went to the data folder; these pieces did not.
        const folder = join(dirname(database.databaseUrl.replace(/^sqlite:/, '')), 'dce-objects');
        const inFolder = existsSync(folder) ? readdirSync(folder, { recursive: true }).map(String) : [];
        for (const key of keys) expect(inFolder.some((f) => f.includes(key)), key).to.equal(false);
      }

      const reading = await svc.rest('dce.read', { marche_id: 'S3-1', type: 'rc' });
      expect(reading.status, JSON.stringify(reading.json)).to.equal(200);
      expect(reading.json.texte).to.include('Règlement de la consultation S3');

      const piece = await svc.rest('dce.download', { marche_id: 'S3-1', filename: 'CCTP' });
      expect(piece.status, JSON.stringify(piece.json)).to.equal(200);
      const pieceAnswer = await fetch(piece.json.download_url as string);
      expect(pieceAnswer.status).to.equal(200);
      expect(Buffer.from(await pieceAnswer.arrayBuffer()).equals(cctpBytes)).to.equal(true);

      const whole = await svc.rest('dce.download', { marche_id: 'S3-1' });
      expect(whole.status, JSON.stringify(whole.json)).to.equal(200);
      const wholeAnswer = await fetch(whole.json.download_url as string);
      expect(wholeAnswer.status).to.equal(200);
      expect((await zipEntryNames(Buffer.from(await wholeAnswer.arrayBuffer()))).sort()).to.deep.equal(['Lot 1/CCTP.docx', 'RC.pdf']);
    });

    it('an object missing from the bucket is a French 410 before any byte (the piece, and the whole archive), never a trace; reading still works', async () => {
      const key = ((await db('dce_pieces').join('dce_files', 'dce_files.id', 'dce_pieces.dce_id').where('dce_files.annonce_id', 'S3-1').andWhere('filename', 'RC.pdf').first('object_key')) as { object_key: string }).object_key;
      for (const f of readdirSync(join(dir, 's3', 'dce-test'), { recursive: true }).map(String)) if (f.includes(key)) rmSync(join(dir, 's3', 'dce-test', f), { recursive: true, force: true });
      for (const args of [{ marche_id: 'S3-1', filename: 'RC.pdf' }, { marche_id: 'S3-1' }]) {
        const link = await svc.rest('dce.download', args);
        expect(link.status).to.equal(200);
        const answer = await fetch(link.json.download_url as string);
        expect(answer.status, JSON.stringify(args)).to.equal(410);
        const text = await answer.text();
        expect(text).to.include('n’est plus dans le stockage du service');
        expect(text).to.not.match(/s3rver|dce-test|\.ts:\d+|\n\s+at /);
      }
      expect((await svc.rest('dce.read', { marche_id: 'S3-1', type: 'rc' })).status).to.equal(200);
    });

    it('a store that does not answer is a French 503 with Retry-After, and the service keeps answering', async () => {
      await server.close();
      stopped = true;
      for (const args of [{ marche_id: 'S3-1', filename: 'CCTP' }, { marche_id: 'S3-1' }]) {
        const link = await svc.rest('dce.download', args);
        expect(link.status).to.equal(200);
        const answer = await fetch(link.json.download_url as string);
        expect(answer.status, JSON.stringify(args)).to.equal(503);
        expect(answer.headers.get('retry-after')).to.equal('30');
        const text = await answer.text();
        expect(text).to.include('Le stockage des dossiers ne répond pas');
        expect(text).to.not.match(/ECONNREFUSED|127\.0\.0\.1|\.ts:\d+|\n\s+at /);
      }
      expect((await svc.rest('dce.read', { marche_id: 'S3-1', type: 'rc' })).status).to.equal(200);
    });
  });
});
