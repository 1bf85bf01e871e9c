// The pieces are kept by the SHA-256 of their bytes, once, whole or not at all, in the data folder and in an S3-compatible store (s3rver, started by the test): what is read back is what was put, and a missing key is said as missing.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import S3rver from 's3rver';
import { fileObjectStore, ObjectMissingError, openObjectStore, s3ObjectStore, s3SettingsOf, stageStream, type ObjectStore } from '../../../src/platform/files/object-store.js';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('object stores', function () {
  this.timeout(30000);
  let dir: string;
  let server: S3rver;
  let endpoint: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'objects-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'dce-test', configs: [] }] });
    const { port } = (await server.run()) as { port: number };
    endpoint = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stages a stream to a file with its SHA-256 and size, and refuses one over the limit leaving nothing', async () => {
    const body = Buffer.from('Règlement de la consultation '.repeat(1000));
    const { path, object } = await stageStream(Readable.from([body.subarray(0, 100), body.subarray(100)]), join(dir, 'staging'));
    expect(object).to.deep.equal({ key: createHash('sha256').update(body).digest('hex'), size: body.length });
    expect(existsSync(path)).to.equal(true);
    const err = await stageStream(Readable.from([body]), join(dir, 'staging-limit'), 1000).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RangeError);
    expect(readdirSync(join(dir, 'staging-limit'))).to.deep.equal([]);
  });

  const stores: [string, () => ObjectStore][] = [
    ['data folder', () => fileObjectStore(join(dir, 'objects'))],
    [
      'S3-compatible store',
      () => s3ObjectStore(s3SettingsOf('s3://dce-test/pieces', { AWS_ENDPOINT_URL: endpoint, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'eu-west-3' })),
    ],
  ];
  for (const [name, make] of stores) {
    it(`${name}: keeps an object once under its key and reads it back`, async () => {
      const store = make();
      const body = Buffer.from(`CCTP lot 2 — ${name}\n`.repeat(5000));
      const { path, object } = await stageStream(Readable.from([body]), join(dir, 'staging'));
      expect(await store.has(object.key)).to.equal(false);
      await store.put(path, object);
      await store.put(path, object);
      expect(await store.has(object.key)).to.equal(true);
      expect((await bytesOf(await store.open(object.key))).equals(body)).to.equal(true);
      const missing = 'f'.repeat(64);
      expect(await store.has(missing)).to.equal(false);
      expect(await store.open(missing).catch((e: unknown) => e)).to.be.instanceOf(ObjectMissingError);
      // A key is the hexadecimal SHA-256, never a path.
      expect(await store.has('../../etc/passwd').catch((e: unknown) => e)).to.be.instanceOf(Error);
    });
  }

  it('reads DCE_STORE_URL: s3:// for the object store, nothing for the data folder, anything else refused', () => {
    expect(openObjectStore(undefined, '/var/donnees/dce').description).to.equal('dossier /var/donnees/dce');
    expect(openObjectStore('s3://mon-seau/dce/pieces/', '/x', {}).description).to.equal('s3://mon-seau/dce/pieces');
    expect(() => openObjectStore('ftp://x', '/x')).to.throw(/DCE_STORE_URL invalide/);
    expect(s3SettingsOf('s3://mon-seau', { AWS_ENDPOINT_URL: 'http://127.0.0.1:9000' })).to.include({ bucket: 'mon-seau', prefix: '', forcePathStyle: true, region: 'us-east-1' });
  });
});
