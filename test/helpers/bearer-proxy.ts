// A loopback HTTP proxy that adds `Authorization: Bearer <token>` to every request it
// forwards: for outside tools that take a server URL but no header (the MCP conformance
// suite), so they reach the real service as a signed-in client would.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** The proxy's origin (http://127.0.0.1:port). */
  url: string;
  close(): Promise<void>;
}

export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req: IncomingMessage, res) => {
    const headers = { ...req.headers, host: upstream.host, authorization: `Bearer ${token}` };
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
