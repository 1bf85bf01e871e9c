// Starting and stopping the processes a benchmark measures.
import { spawn, type ChildProcess } from 'node:child_process';

export interface Started {
  url: string;
  child: ChildProcess;
  stdout: string;
}

/** Starts a node script that prints « Service à l'écoute : URL » and waits for that line. */
export function startProcess(script: string, env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import=tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const untilListening = (c: Buffer) => {
      out += c;
      const m = /Service à l'écoute : (\S+)/.exec(out);
      if (!m?.[1]) return;
      // Then read and dropped: a service logging each call (LOG_LEVEL=info) wrote megabytes,
      // and matching the whole text again at each chunk made the load generator's own CPU per
      // call grow with the run (266 → 808 µs over four rounds of 4 s, the measured service
      // starved of calls). A caller wanting the logs listens itself.
      child.stdout.off('data', untilListening);
      child.stdout.resume();
      resolve({ url: m[1], child, stdout: out });
    };
    child.stdout.on('data', untilListening);
    // The last of it only, for the message if the process stops.
    child.stderr.on('data', (c) => (err = (err + c).slice(-2000)));
    child.once('exit', (code) => reject(new Error(`${script} s'est arrêté (${code}) : ${err.slice(-500)}`)));
  });
}

/**
 * Starts the service as deployed (`src/main.ts`). Never `npm start`'s script: on a database
 * without companies it imports the demo data after it begins answering, and a part measuring
 * meanwhile measures that import's load too (it halved the bare server's calls beside it).
 */
export function startService(env: Record<string, string>): Promise<Started> {
  return startProcess('src/main.ts', env);
}

export async function stopProcess(p: Started): Promise<void> {
  if (p.child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    p.child.once('exit', () => resolve());
    p.child.kill('SIGTERM');
  });
}
