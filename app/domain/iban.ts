/**
 * IBANs (ISO 13616), for international wires (docs/product.md#international). The member may paste
 * an IBAN with spaces or in lower case; we keep the electronic form (no spaces, upper case) and
 * show it in groups of four.
 *
 * Validation has three layers, each catching what the others cannot:
 * 1. the country must be in the SWIFT IBAN registry, with its fixed length;
 * 2. the BBAN (the part after the check digits) must match the registry's structure for that
 *    country: where the registry fixes a position as a digit or a letter, a typo that swaps
 *    kinds is refused even in the rare case the checksum would let it through;
 * 3. the mod-97 checksum: catches every single changed character of the same kind (digit for
 *    digit, letter for letter), because the change shifts the number by d·10^k with 0 < |d| < 97
 *    and 97 is prime to 10. Only a letter/digit swap inside a free alphanumeric ("c") field can
 *    escape it (about 1 in 97): no ISO 13616 check can do better.
 */

/**
 * SWIFT IBAN registry (release 103): IBAN length and BBAN structure per country. Structure
 * notation as in the registry: "8!n" = exactly 8 digits, "4!a" = 4 upper-case letters, "12!c" =
 * 12 letters or digits. Territories that use another country's prefix (Åland uses FI, Jersey GB,
 * French overseas departments FR, ...) are not listed: their IBANs start with that prefix.
 */
export const IBAN_REGISTRY: Readonly<Record<string, { readonly length: number; readonly bban: string }>> = {
  AD: { length: 24, bban: "4!n4!n12!c" },
  AE: { length: 23, bban: "3!n16!n" },
  AL: { length: 28, bban: "8!n16!c" },
  AT: { length: 20, bban: "5!n11!n" },
  AZ: { length: 28, bban: "4!a20!c" },
  BA: { length: 20, bban: "3!n3!n8!n2!n" },
  BE: { length: 16, bban: "3!n7!n2!n" },
  BG: { length: 22, bban: "4!a4!n2!n8!c" },
  BH: { length: 22, bban: "4!a14!c" },
  BI: { length: 27, bban: "5!n5!n11!n2!n" },
  // Release 103 made Brazil's bank code (the ISPB, derived from the CNPJ) alphanumeric.
  BR: { length: 29, bban: "8!c5!n10!n1!a1!c" },
  BY: { length: 28, bban: "4!c4!n16!c" },
  CH: { length: 21, bban: "5!n12!c" },
  CR: { length: 22, bban: "4!n14!n" },
  CY: { length: 28, bban: "3!n5!n16!c" },
  CZ: { length: 24, bban: "4!n6!n10!n" },
  DE: { length: 22, bban: "8!n10!n" },
  DJ: { length: 27, bban: "5!n5!n11!n2!n" },
  DK: { length: 18, bban: "4!n9!n1!n" },
  DO: { length: 28, bban: "4!c20!n" },
  EE: { length: 20, bban: "2!n14!n" },
  EG: { length: 29, bban: "4!n4!n17!n" },
  ES: { length: 24, bban: "4!n4!n1!n1!n10!n" },
  FI: { length: 18, bban: "3!n11!n" },
  FK: { length: 18, bban: "2!a12!n" },
  FO: { length: 18, bban: "4!n9!n1!n" },
  FR: { length: 27, bban: "5!n5!n11!c2!n" },
  GB: { length: 22, bban: "4!a6!n8!n" },
  GE: { length: 22, bban: "2!a16!n" },
  GI: { length: 23, bban: "4!a15!c" },
  GL: { length: 18, bban: "4!n9!n1!n" },
  GR: { length: 27, bban: "3!n4!n16!c" },
  GT: { length: 28, bban: "4!c20!c" },
  HN: { length: 28, bban: "4!a20!n" },
  HR: { length: 21, bban: "7!n10!n" },
  HU: { length: 28, bban: "3!n4!n1!n15!n1!n" },
  IE: { length: 22, bban: "4!a6!n8!n" },
  IL: { length: 23, bban: "3!n3!n13!n" },
  IQ: { length: 23, bban: "4!a3!n12!n" },
  IS: { length: 26, bban: "4!n2!n6!n10!n" },
  IT: { length: 27, bban: "1!a5!n5!n12!c" },
  JO: { length: 30, bban: "4!a4!n18!c" },
  KW: { length: 30, bban: "4!a22!c" },
  KZ: { length: 20, bban: "3!n13!c" },
  LB: { length: 28, bban: "4!n20!c" },
  LC: { length: 32, bban: "4!a24!c" },
  LI: { length: 21, bban: "5!n12!c" },
  LT: { length: 20, bban: "5!n11!n" },
  LU: { length: 20, bban: "3!n13!c" },
  LV: { length: 21, bban: "4!a13!c" },
  LY: { length: 25, bban: "3!n3!n15!n" },
  MC: { length: 27, bban: "5!n5!n11!c2!n" },
  MD: { length: 24, bban: "2!c18!c" },
  ME: { length: 22, bban: "3!n13!n2!n" },
  MK: { length: 19, bban: "3!n10!c2!n" },
  MN: { length: 20, bban: "4!n12!n" },
  MR: { length: 27, bban: "5!n5!n11!n2!n" },
  MT: { length: 31, bban: "4!a5!n18!c" },
  MU: { length: 30, bban: "4!a2!n2!n12!n3!n3!a" },
  NI: { length: 28, bban: "4!a20!n" },
  NL: { length: 18, bban: "4!a10!n" },
  NO: { length: 15, bban: "4!n6!n1!n" },
  OM: { length: 23, bban: "3!n16!c" },
  PK: { length: 24, bban: "4!a16!c" },
  PL: { length: 28, bban: "8!n16!n" },
  PS: { length: 29, bban: "4!a21!c" },
  PT: { length: 25, bban: "4!n4!n11!n2!n" },
  QA: { length: 29, bban: "4!a21!c" },
  RO: { length: 24, bban: "4!a16!c" },
  RS: { length: 22, bban: "3!n13!n2!n" },
  RU: { length: 33, bban: "9!n5!n15!c" },
  SA: { length: 24, bban: "2!n18!c" },
  SC: { length: 31, bban: "4!a2!n2!n16!n3!a" },
  SD: { length: 18, bban: "2!n12!n" },
  SE: { length: 24, bban: "3!n16!n1!n" },
  SI: { length: 19, bban: "5!n8!n2!n" },
  SK: { length: 24, bban: "4!n6!n10!n" },
  SM: { length: 27, bban: "1!a5!n5!n12!c" },
  SO: { length: 23, bban: "4!n3!n12!n" },
  ST: { length: 25, bban: "4!n4!n11!n2!n" },
  SV: { length: 28, bban: "4!a20!n" },
  TL: { length: 23, bban: "3!n14!n2!n" },
  TN: { length: 24, bban: "2!n3!n13!n2!n" },
  TR: { length: 26, bban: "5!n1!n16!c" },
  UA: { length: 29, bban: "6!n19!c" },
  VA: { length: 22, bban: "3!n15!n" },
  VG: { length: 24, bban: "4!a16!n" },
  XK: { length: 20, bban: "4!n10!n2!n" },
  YE: { length: 30, bban: "4!a4!n18!c" },
};

export type IbanCheck =
  { valid: true; iban: string } | { valid: false; reason: "format" | "country" | "length" | "structure" | "checksum" };

/** Electronic form: every kind of white space removed (including no-break spaces from PDFs), upper case. */
export function normalizeIban(text: string): string {
  return text.replace(/\s+/g, "").toUpperCase();
}

/** Print form: the electronic form in groups of four ("GB82 WEST 1234 5698 7654 32"). */
export function formatIban(text: string): string {
  return normalizeIban(text).replace(/(.{4})(?!$)/g, "$1 ");
}

export function isValidIban(text: string): boolean {
  return checkIban(text).valid;
}

/** Says why an IBAN is refused, so tests (and support) can tell a typo from an unknown country. */
export function checkIban(text: string): IbanCheck {
  const iban = normalizeIban(text);
  // Country letters, then check digits: ISO 13616 allows only 02..98 (00, 01 and 99 alias 97, 98 and 02).
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban) || /^..(00|01|99)/.test(iban)) return { valid: false, reason: "format" };
  const entry = IBAN_REGISTRY[iban.slice(0, 2)];
  if (!entry) return { valid: false, reason: "country" };
  if (iban.length !== entry.length) return { valid: false, reason: "length" };
  if (!bbanPattern(entry.bban).test(iban.slice(4))) return { valid: false, reason: "structure" };
  if (mod97(iban.slice(4) + iban.slice(0, 4)) !== 1) return { valid: false, reason: "checksum" };
  return { valid: true, iban };
}

/** A complete IBAN for a country and BBAN: computes the two check digits (ISO 13616-1, 7.2). */
export function ibanWithCheckDigits(country_code: string, bban: string): string {
  if (!/^[A-Z]{2}$/.test(country_code) || !/^[A-Z0-9]+$/.test(bban)) {
    throw new Error("ibanWithCheckDigits needs an upper-case country code and BBAN");
  }
  const check = 98 - mod97(bban + country_code + "00");
  return `${country_code}${String(check).padStart(2, "0")}${bban}`;
}

/** The registry's structure ("4!a6!n8!n") as an anchored regular expression. */
function bbanPattern(structure: string): RegExp {
  const cached = patternCache.get(structure);
  if (cached) return cached;
  const classes = { n: "[0-9]", a: "[A-Z]", c: "[A-Z0-9]" } as const;
  const source = structure.replace(
    /(\d+)!([nac])/g,
    (_, count: string, kind: "n" | "a" | "c") => `${classes[kind]}{${count}}`,
  );
  const pattern = new RegExp(`^${source}$`);
  patternCache.set(structure, pattern);
  return pattern;
}
const patternCache = new Map<string, RegExp>();

/**
 * Remainder modulo 97 of the number formed by replacing each letter with 10..35 (A=10). Done digit
 * by digit so that a 34-character IBAN (up to 68 digits) never needs big-number arithmetic.
 */
function mod97(text: string): number {
  let remainder = 0;
  for (const char of text) {
    const value = parseInt(char, 36);
    remainder = (value < 10 ? remainder * 10 + value : remainder * 100 + value) % 97;
  }
  return remainder;
}
