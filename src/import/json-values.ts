// A sequence of JSON documents, streamed: one or several documents one after the other (the
// files of a zip read in turn), or one record a line. Each top-level object is a record;
// each item of a top-level array is a record (a stock file is an array of companies). A
// syntax error stops the reading where it is, the records read before it are kept.
import type { Readable } from 'node:stream';
import Assembler from 'stream-json/assembler.js';
import { parser } from 'stream-json';
import batch from 'stream-json/utils/batch.js';
import type { RawRecord } from './importer.js';

type Token = { name: string; value?: unknown };

export async function* jsonValueRecords(source: Readable): AsyncGenerator<RawRecord<unknown>> {
  const tokens = parser.asStream({ packValues: true, streamValues: false, jsonStreaming: true });
  const batches = batch.asStream({ batchSize: 1000 });
  let failure: unknown = null;
  const stop = (err: unknown) => {
    failure ??= err;
    tokens.unpipe(batches);
    if (!batches.writableEnded) batches.end();
  };
  for (const stream of [source, tokens, batches]) stream.on('error', stop);
  source.pipe(tokens).pipe(batches);
  let depth = 0;
  /** The depth at which records start: 0 for a top-level object, 1 inside a top-level array. */
  let recordDepth = -1;
  let position = 0;
  let assembler: Assembler | null = null;
  for await (const group of batches as AsyncIterable<Token[]>) {
    const out: RawRecord<unknown>[] = [];
    for (const token of group) {
      const opens = token.name === 'startObject' || token.name === 'startArray';
      const closes = token.name === 'endObject' || token.name === 'endArray';
      if (assembler) {
        assembler.consume(token as never);
        if (opens) depth += 1;
        else if (closes) depth -= 1;
        if (assembler.done) {
          position += 1;
          out.push({ position, value: assembler.current });
          assembler = null;
        }
        continue;
      }
      if (depth === 0) {
        if (token.name === 'startArray') {
          recordDepth = 1;
          depth = 1;
        } else if (token.name === 'startObject') {
          recordDepth = 0;
          assembler = new Assembler();
          assembler.consume(token as never);
          depth = 1;
        } else if (token.name !== 'endArray') {
          position += 1;
          out.push({ position, error: 'valeur JSON qui n’est ni un objet ni une liste d’objets' });
        }
        continue;
      }
      if (depth === recordDepth) {
        if (token.name === 'startObject') {
          assembler = new Assembler();
          assembler.consume(token as never);
          depth += 1;
        } else if (token.name === 'endArray') {
          depth = 0;
        } else {
          if (token.name === 'startArray') {
            // A list inside the list is not a record: skipped whole.
            assembler = new Assembler();
            assembler.consume(token as never);
            depth += 1;
            continue;
          }
          position += 1;
          out.push({ position, error: 'élément de la liste qui n’est pas un objet' });
        }
      }
    }
    yield* out;
  }
  if (failure) {
    const message = failure instanceof Error ? failure.message : String(failure);
    yield { position: position + 1, error: /^Parser/.test(message) ? 'syntaxe JSON invalide' : 'lecture impossible', stop: true };
  }
}
