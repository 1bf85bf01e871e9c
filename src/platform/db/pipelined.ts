// Statements of a bulk write in turn, each next one's parameters built while the database
// runs the one before: on one connection the thread would otherwise wait idle during each
// statement, and the database during each build. Their parameters as PostgreSQL reads them
// fastest: one array per column (`unnest`), written as the array's literal.
import type { Knex } from 'knex';

/** Waits for an I/O turn: the statement just started has then been written to its connection (Knex and pg send it after some promise steps and a `nextTick`). */
const afterSend = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * For each item in order: `build` its statement's parameters, then `run` them; the next item
 * is built while the current statement runs, and no statement starts before the one before
 * has answered (a transaction's statements go one at a time). `done` sees each answer in
 * order. A failure stops at once: no further statement runs, and it is thrown.
 */
export async function pipelined<Item, Built, Answer>(
  items: readonly Item[],
  build: (item: Item) => Built,
  run: (built: Built) => Promise<Answer>,
  done: (answer: Answer, item: Item) => void = () => undefined,
): Promise<void> {
  if (!items.length) return;
  let built = build(items[0] as Item);
  for (let i = 0; i < items.length; i++) {
    const running = run(built);
    if (i + 1 < items.length) {
      // A failure while the next one is built is thrown below, where it is awaited.
      running.catch(() => undefined);
      await afterSend();
      built = build(items[i + 1] as Item);
    }
    done(await running, items[i] as Item);
  }
}

/**
 * The text pg writes for an array of texts, numbers and booleans (`{"a","b",NULL}`, every
 * value quoted, `\` and `"` escaped), or null for any other value. Built here with one join
 * instead of pg's string appended value by value, each through two regular expressions:
 * it is the thread's work while the database waits for the statement.
 */
export function arrayLiteral(values: readonly unknown[]): string | null {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    let text: string;
    if (value === null || value === undefined) {
      parts[i] = 'NULL';
      continue;
    }
    if (typeof value === 'string') text = value;
    else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
    else return null;
    parts[i] = text.includes('\\') || text.includes('"') ? `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${text}"`;
  }
  return `{${parts.join(',')}}`;
}

/**
 * One parameter per column, in the rows' order (undefined as null, as Knex binds it): the
 * array's literal (`arrayLiteral`), or the array itself for pg to write when a value is not
 * a plain text, number or boolean.
 */
export function columnArrays(rows: readonly object[], columns: readonly string[]): Knex.RawBinding[] {
  return columns.map((c) => {
    const values = rows.map((row) => (row as Record<string, unknown>)[c] ?? null);
    return arrayLiteral(values) ?? (values as Knex.RawBinding);
  });
}
