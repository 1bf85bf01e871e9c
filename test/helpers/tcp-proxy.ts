// A TCP proxy in front of the tests' PostgreSQL that can freeze (stop forwarding, sockets
// kept open: a server that answers nothing) and cut (every connection closed, new ones
// refused: a server stopped), then work again: the faults the service must survive.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  freeze(): void;
  cut(): void;
  /** Forwards again: what froze is delivered, new connections accepted. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let frozen = false;
  let refusing = false;
  const pairs = new Set<{ client: Socket; upstream: Socket; held: { to: Socket; data: Buffer }[] }>();
  const server: Server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream, held: [] as { to: Socket; data: Buffer }[] };
    pairs.add(pair);
    const forward = (to: Socket) => (data: Buffer) => {
      if (frozen) pair.held.push({ to, data });
      else to.write(data);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => {
      frozen = true;
    },
    cut: () => {
      refusing = true;
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
    },
    restore: () => {
      frozen = false;
      refusing = false;
      for (const pair of pairs) {
        for (const { to, data } of pair.held) to.write(data);
        pair.held = [];
      }
    },
    close: async () => {
      refusing = true;
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
