// Where the pieces of consultation files are kept, by the SHA-256 of their bytes (the same
// bytes are kept once, a second import changes nothing): a folder of the data directory by
// default, written atomically (temporary file, then rename), or an S3-compatible object
// store for several machines (DCE_STORE_URL=s3://bucket/prefix).
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';

export interface StoredObject {
  /** The SHA-256 of the bytes, hexadecimal: the object's key. */
  key: string;
  size: number;
}

export interface ObjectStore {
  /** Where the objects are, for the README and the logs (never a secret). */
  readonly description: string;
  /** Keeps the local file `path` (its SHA-256 already known) under its key; nothing when already kept. */
  put(path: string, object: StoredObject): Promise<void>;
  has(key: string): Promise<boolean>;
  /** The object's bytes; `ObjectMissingError` when it is not kept. */
  open(key: string): Promise<Readable>;
}

export class ObjectMissingError extends Error {}

const KEY = /^[0-9a-f]{64}$/;
function checkKey(key: string): void {
  if (!KEY.test(key)) throw new Error('clé d’objet invalide');
}

/** Copies a stream to a new file of `dir`, hashing it on the way: its key and size. */
export async function stageStream(source: Readable, dir: string, maxBytes = Number.POSITIVE_INFINITY): Promise<{ path: string; object: StoredObject }> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${randomUUID()}.part`);
  const hash = createHash('sha256');
  let size = 0;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new RangeError(`plus de ${maxBytes} octets`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, counting, createWriteStream(path, { flags: 'wx' }));
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
  return { path, object: { key: hash.digest('hex'), size } };
}

/** The objects under `root`: `root/ab/cd/abcd…` (two levels keep folders small). */
export function fileObjectStore(root: string): ObjectStore {
  const where = (key: string) => join(root, key.slice(0, 2), key.slice(2, 4), key);
  return {
    description: `dossier ${root}`,
    async put(path, object) {
      checkKey(object.key);
      const target = where(object.key);
      if (await this.has(object.key)) return;
      await mkdir(dirname(target), { recursive: true });
      // Atomic: a copy beside the target, then a rename (a crash leaves a .part, never half an object).
      const temporary = `${target}.${randomUUID()}.part`;
      try {
        await pipeline(createReadStream(path), createWriteStream(temporary, { flags: 'wx' }));
        await rename(temporary, target);
      } catch (err) {
        await rm(temporary, { force: true });
        throw err;
      }
    },
    async has(key) {
      checkKey(key);
      try {
        return (await stat(where(key))).isFile();
      } catch {
        return false;
      }
    },
    async open(key) {
      checkKey(key);
      if (!(await this.has(key))) throw new ObjectMissingError(key);
      return createReadStream(where(key));
    },
  };
}

export interface S3Settings {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** `s3://bucket/prefix` and the usual variables (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE). */
export function s3SettingsOf(url: string, env: NodeJS.ProcessEnv): S3Settings {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new Error('DCE_STORE_URL invalide : attendu s3://seau/prefixe');
  return {
    bucket: match[1] as string,
    prefix: (match[2] ?? '').replace(/\/+$/, ''),
    endpoint: env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    forcePathStyle: env.S3_FORCE_PATH_STYLE ? env.S3_FORCE_PATH_STYLE !== 'false' : Boolean(env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL),
    accessKeyId: env.AWS_ACCESS_KEY_ID,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
  };
}

/** Per S3 request: a slow store never holds a call past the service's limits. */
const S3_REQUEST_TIMEOUT_MS = 10_000;

export function s3ObjectStore(settings: S3Settings): ObjectStore {
  // Loaded on first use: the SDK is large and warns about Node 20 when loaded, so the
  // default (folder) store never loads it.
  let loaded: Promise<{ client: S3Client; sdk: typeof S3Sdk }> | null = null;
  const s3 = () =>
    (loaded ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: settings.region,
        endpoint: settings.endpoint,
        forcePathStyle: settings.forcePathStyle,
        credentials: settings.accessKeyId && settings.secretAccessKey ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } : undefined,
        maxAttempts: 2,
        // The SDK's default CRC checksums send the body in `aws-chunked` encoding, which
        // S3-compatible stores (s3rver here, older MinIO, Ceph) store as is: only when required.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    })));
  const objectKey = (key: string) => (settings.prefix ? `${settings.prefix}/${key}` : key);
  const signal = () => AbortSignal.timeout(S3_REQUEST_TIMEOUT_MS);
  return {
    description: `s3://${settings.bucket}${settings.prefix ? `/${settings.prefix}` : ''}`,
    async put(path, object) {
      checkKey(object.key);
      if (await this.has(object.key)) return;
      const { client, sdk } = await s3();
      // S3 writes an object whole or not at all.
      await client.send(new sdk.PutObjectCommand({ Bucket: settings.bucket, Key: objectKey(object.key), Body: createReadStream(path), ContentLength: object.size }), {
        abortSignal: AbortSignal.timeout(Math.max(S3_REQUEST_TIMEOUT_MS, object.size / 1000)),
      });
    },
    async has(key) {
      checkKey(key);
      const { client, sdk } = await s3();
      try {
        await client.send(new sdk.HeadObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }), { abortSignal: signal() });
        return true;
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404 || (err as { name?: string }).name === 'NotFound') return false;
        throw err;
      }
    },
    async open(key) {
      checkKey(key);
      const { client, sdk } = await s3();
      // Bounded until the answer starts; the body then streams at the reader's pace.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), S3_REQUEST_TIMEOUT_MS);
      try {
        const answer = await client.send(new sdk.GetObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }), { abortSignal: controller.signal });
        clearTimeout(timer);
        return answer.Body as Readable;
      } catch (err) {
        const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404 || (err as { name?: string }).name === 'NoSuchKey') throw new ObjectMissingError(key);
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The store of DCE_STORE_URL (`s3://…`), else the folder `dce-objects` beside the SQLite database or under ./data. */
export function openObjectStore(storeUrl: string | undefined, defaultRoot: string, env: NodeJS.ProcessEnv = process.env): ObjectStore {
  if (storeUrl?.startsWith('s3://')) return s3ObjectStore(s3SettingsOf(storeUrl, env));
  if (storeUrl) throw new Error('DCE_STORE_URL invalide : attendu s3://seau/prefixe (ou rien, pour le dossier de données)');
  return fileObjectStore(defaultRoot);
}
