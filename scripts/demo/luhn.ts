// Luhn keys of SIREN (9 digits) and SIRET (14 digits) numbers.

/** True when the digit string passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The digit to append to `body` so that the whole passes the Luhn check. */
export function luhnKey(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    // Once the key is appended, the body's last digit sits at an odd position from the right.
    let d = body.charCodeAt(body.length - 1 - i) - 48;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** A SIREN from its 8-digit body. */
export function sirenFromBody(body8: string): string {
  if (!/^\d{8}$/.test(body8)) throw new RangeError(`SIREN body must be 8 digits: ${body8}`);
  return body8 + luhnKey(body8);
}

/** The NIC of establishment number `seq` (1–9999): 4 digits and the key that makes the SIRET valid. */
export function nicFor(siren: string, seq: number): string {
  const seq4 = String(seq).padStart(4, '0');
  return seq4 + luhnKey(siren + seq4);
}

const SIREN_RANGE = 70_000_000;
const SIREN_STEP = 7_368_787; // odd, not a multiple of 5 or 7: coprime with the range, so a bijection

/** Distinct SIREN for each company index (< 70 million), spread over 30000000x–99999999x. */
export function sirenForIndex(index: number, offset: number): string {
  const body = 30_000_000 + ((index * SIREN_STEP + offset) % SIREN_RANGE);
  return sirenFromBody(String(body));
}
