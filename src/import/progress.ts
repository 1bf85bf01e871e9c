// Import progress: a bar on a terminal (rows, rows per second, percentage of the file),
// plain periodic lines otherwise.
import cliProgress from 'cli-progress';

export interface Progress {
  update(rows: number, readBytes: number): void;
  stop(): void;
}

export function createProgress(label: string, totalBytes: number, out: NodeJS.WriteStream = process.stderr): Progress {
  const started = Date.now();
  const rate = (rows: number) => Math.round(rows / Math.max((Date.now() - started) / 1000, 0.001));
  if (out.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {percentage} % | {rows} lignes | {rate} lignes/s | {eta_formatted}`, stream: out, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(totalBytes, 1), 0, { rows: 0, rate: 0 });
    return {
      update: (rows, readBytes) => bar.update(Math.min(readBytes, totalBytes), { rows, rate: rate(rows) }),
      stop: () => bar.stop(),
    };
  }
  let lastLine = 0;
  return {
    update: (rows, readBytes) => {
      if (Date.now() - lastLine < 2000) return;
      lastLine = Date.now();
      const percent = totalBytes ? Math.min(100, Math.round((readBytes / totalBytes) * 100)) : null;
      out.write(`${label} : ${rows} lignes, ${rate(rows)} lignes/s${percent === null ? '' : `, ${percent} %`}\n`);
    },
    stop: () => undefined,
  };
}
