// The password rule of every form that sets one (sign-up, reset, invitation, change): at
// least 12 characters, and not one of the common passwords of @zxcvbn-ts/language-common
// (49,000 leaked passwords), nor one of them padded with digits or symbols, nor repeated.
import { dictionary } from '@zxcvbn-ts/language-common';

export const MIN_PASSWORD_LENGTH = 12;
/** scrypt hashes whatever it is given: a bound keeps a huge password from costing more. */
export const MAX_PASSWORD_LENGTH = 200;

const COMMON = new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));

/** The word under the padding people add to a common password: « Azertyuiop2024! » → « azertyuiop ». */
function cores(password: string): string[] {
  const lower = password.toLowerCase();
  const stripped = lower.replace(/^[\d\W_]+|[\d\W_]+$/g, '');
  const out = [lower, stripped];
  // « motdepassemotdepasse »: a word repeated.
  const half = /^(.+?)\1+$/.exec(stripped)?.[1];
  if (half) out.push(half);
  return out.filter((c) => c.length >= 4);
}

/** Why the password is refused (French, names the rule), or null when it is accepted. */
export function passwordProblem(password: string, email = ''): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `Mot de passe trop court : ${MIN_PASSWORD_LENGTH} caractères au moins.`;
  if ([...password].length > MAX_PASSWORD_LENGTH) return `Mot de passe trop long : ${MAX_PASSWORD_LENGTH} caractères au plus.`;
  if (cores(password).some((c) => COMMON.has(c))) return 'Mot de passe trop courant (il figure dans les listes de mots de passe divulgués) : en choisir un autre, par exemple une phrase de plusieurs mots.';
  const local = email.trim().toLowerCase().split('@')[0] ?? '';
  if (local.length >= 4 && password.toLowerCase().includes(local)) return 'Le mot de passe ne doit pas contenir l’adresse électronique.';
  return null;
}
