// A real SMTP server for the e-mail tests (smtp-server), each message parsed with
// mailparser; `refuse` decides, message by message, whether to refuse it and with which code.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Received {
  parsed: ParsedMail;
  raw: string;
  envelope: { from: string; to: string[] };
}

export interface TestSmtp {
  url: string;
  received: Received[];
  /** Data attempts seen (accepted or refused). */
  attempts: number;
  /** Returns an SMTP code (4xx, 5xx) to refuse the message, or null to accept it. */
  refuse: (attempt: number, raw: string) => { code: number; message: string } | null;
  close: () => Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const state: TestSmtp = { url: '', received: [], attempts: 0, refuse: () => null, close: async () => undefined };
  const server = new SMTPServer({
    // Plain SMTP on localhost: no TLS upgrade, no authentication.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        state.attempts += 1;
        const refusal = state.refuse(state.attempts, raw);
        if (refusal) {
          callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
          return;
        }
        simpleParser(raw).then(
          (parsed) => {
            const envelope = {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
            };
            state.received.push({ parsed, raw, envelope });
            callback(null, 'Message accepté pour remise');
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  state.url = `smtp://127.0.0.1:${port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function until<T>(check: () => Promise<T | null | undefined | false>, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition non atteinte à temps');
    await new Promise((r) => setTimeout(r, 25));
  }
}
