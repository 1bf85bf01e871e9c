// Rule: a slow client never holds a connection: headers and bodies have their time limits on every route (OAuth included), and an answer sent before the body was read closes the connection.
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

/** Opens a connection, writes `head`, then one byte of `dribble` every 200 ms; resolves with what came back and when the server closed. */
function dribbling(port: number, head: string, dribble: string): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = '';
    const socket: Socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      let i = 0;
      const timer = setInterval(() => {
        if (i < dribble.length && !socket.destroyed) socket.write(dribble[i++] as string);
      }, 200);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ answer, closedAfterMs: Date.now() - started });
      });
    });
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('error', () => undefined);
  });
}

describe('faults: slow clients', function () {
  this.timeout(30_000);
  let svc: TestService;
  let port: number;
  before(async () => {
    svc = await startTestService({ limits: { headersTimeoutMs: 1000, bodyTimeoutMs: 1500 } });
    port = Number(new URL(svc.url).port);
  });
  after(async () => svc.close());

  it('closes a connection whose headers dribble past the headers limit', async () => {
    const { closedAfterMs } = await dribbling(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 'X-Lent: ' + 'a'.repeat(200));
    expect(closedAfterMs).to.be.lessThan(4000);
  });

  it('answers an unauthenticated call at once and closes the connection, without waiting for the dribbled body', async () => {
    const { answer, closedAfterMs } = await dribbling(
      port,
      'POST /api/mcp/v1/referentiels.sources HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n',
      '{' + ' '.repeat(199),
    );
    expect(answer).to.match(/^HTTP\/1\.1 401/);
    expect(answer.toLowerCase()).to.include('connection: close');
    expect(closedAfterMs).to.be.lessThan(1000);
  });

  for (const [path, type, body] of [
    ['/oauth/token', 'application/x-www-form-urlencoded', 'grant_type=authorization_code&code=' + 'a'.repeat(400)],
    ['/oauth/register', 'application/json', JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], client_name: 'x'.repeat(400) })],
  ] as const)
    it(`answers 408 and closes a dribbled body on ${path} at the body limit, as REST does`, async () => {
      const { answer, closedAfterMs } = await dribbling(
        port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
      );
      // The service's own answer at the body limit (1.5 s here), not Node's bare 408 at headers + body limits.
      expect(answer).to.match(/^HTTP\/1\.1 408/);
      expect(answer.toLowerCase()).to.include('connection: close');
      expect(answer).to.include('"error":"invalid_request"');
      expect(answer).to.include('trop lentement');
      expect(closedAfterMs).to.be.at.least(1400);
      expect(closedAfterMs).to.be.lessThan(5000);
    });

  it('closes a dribbled body on a page form within the body limit', async () => {
    const { answer, closedAfterMs } = await dribbling(
      port,
      'POST /compte/connexion HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n',
      'email=' + 'a'.repeat(400),
    );
    expect(answer).to.match(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).to.be.lessThan(5000);
  });
});
