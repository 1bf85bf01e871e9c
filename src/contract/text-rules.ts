// What a text received from a caller may hold, and how a refusal quotes it back. The
// same rule for every argument of every operation, on both transports and both engines:
// PostgreSQL refuses the NUL character in text, and an unpaired UTF-16 surrogate has no
// UTF-8 form (each driver would replace it silently).

/**
 * The rule as the contract writes it into every text an operation accepts (the generator
 * adds it): a whole pattern for a text without one, a lookahead put after the `^` of a
 * pattern that admits any character. With the `u` flag a surrogate pair is one code point,
 * outside the class: only an unpaired half matches.
 */
export const TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';
export const TEXT_LOOKAHEAD = '(?![\\s\\S]*[\\u0000\\uD800-\\uDFFF])';
/** A text that is not only spaces (the contract's pattern for names and titles). */
export const NOT_BLANK_PATTERN = '^(?=[\\s\\S]*\\S)';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first forbidden character of a text, described in French; null when the text is acceptable. */
export function forbiddenCharacter(text: string): string | null {
  if (text.includes('\u0000')) return 'le caractère nul (U+0000)';
  const lone = LONE_SURROGATE.exec(text);
  if (lone) return `un demi-caractère UTF-16 isolé (U+${(lone[0].codePointAt(0) as number).toString(16).toUpperCase()})`;
  return null;
}

/** How many characters of a received value a message quotes at most (so a message stays short). */
export const ECHO_LIMIT = 80;

/**
 * A received value as a message quotes it: its first 80 characters, control characters and
 * unpaired surrogates shown as U+FFFD, so an answer never carries them back.
 */
export function echoed(value: string): string {
  const chars = Array.from(value);
  const shown = chars.length > ECHO_LIMIT ? `${chars.slice(0, ECHO_LIMIT).join('')}…` : value;
  // eslint-disable-next-line no-control-regex
  return shown.replace(/[\u0000-\u001F\u007F-\u009F]/g, '\uFFFD').replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';

/**
 * The first forbidden character in the arguments (keys and string values, at any depth),
 * with the dotted path of the argument holding it, as Ajv's messages name arguments.
 * Iterative: the depth of what a caller sends does not reach the call stack.
 */
export function forbiddenCharacterIn(args: unknown): { path: string; what: string; inName: boolean } | null {
  const pending: { value: unknown; path: string }[] = [{ value: args, path: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      const what = forbiddenCharacter(value);
      if (what) return { path, what, inName: false };
    } else if (isObject(value)) {
      const keys = Object.keys(value);
      for (const key of keys) {
        const what = forbiddenCharacter(key);
        if (what) return { path, what, inName: true };
      }
      // Reversed, so the first argument of the object is looked at first.
      for (const key of keys.reverse()) pending.push({ value: value[key], path: path ? `${path}.${key}` : key });
    }
  }
  return null;
}
