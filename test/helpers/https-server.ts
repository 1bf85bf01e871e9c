// A local HTTPS server with a certificate made for the test (openssl, for 127.0.0.1), to stand
// for a client's site serving its metadata document.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface TestHttpsServer {
  url: string;
  /** The certificate (PEM) a client must trust. */
  ca: string;
  close: () => Promise<void>;
}

export async function startHttpsServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestHttpsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'https-test-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    const key = readFileSync(join(dir, 'key.pem'), 'utf8');
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const server: Server = createServer({ key, cert }, handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `https://127.0.0.1:${port}`,
      ca: cert,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
