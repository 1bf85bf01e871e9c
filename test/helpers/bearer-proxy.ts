// A loopback HTTP proxy that adds `Authorization: Bearer <token>` to every request it
// forwards: for outside tools that take a server URL but no header (the MCP conformance
// suite), so they reach the real service as a signed-in client would. It listens before
// it is aimed, so the service can be started knowing the proxy's origin (a browser origin
// the service must accept, as ALLOWED_ORIGINS declares in production).
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** The proxy's origin (http://127.0.0.1:port). */
  url: string;
  /** Where to forward, with which token. */
  aim(target: string, token: string): void;
  close(): Promise<void>;
}

export async function startBearerProxy(): Promise<BearerProxy> {
  let upstream: URL | null = null;
  let bearer = '';
  const server: Server = createServer((req: IncomingMessage, res) => {
    if (!upstream) {
      res.writeHead(503).end();
      return;
    }
    const target = upstream;
    // The Host the client sent travels on, as through any reverse proxy: the service judges it.
    const headers = { ...req.headers, authorization: `Bearer ${bearer}` };
    const forward = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    aim: (target, token) => {
      upstream = new URL(target);
      bearer = token;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
