import transliterate from "@sindresorhus/transliterate";

/**
 * Name normalization for sanctions screening (docs/product.md#sanctions-screening): the same
 * steps for a list entry and for the name screened, so that "AL-ZAWAHIRI, Ayman" on the list and
 * "Ayman al Zawahiri" typed by a member come to the same tokens.
 *
 * 1. Word order: an individual listed "LAST, First Middle" (OFAC's form) becomes "First Middle LAST".
 * 2. Accents and other scripts to Latin letters (transliterate: "Müller" → "muller", "Ø" → "o").
 * 3. Case folded; apostrophes and full stops dropped ("O'Brien" → "obrien", "S.A." → "sa"); every
 *    other punctuation mark a space ("AL-QAIDA" → "al qaida").
 * 4. Particles that transliterations add or drop ("al", "el", "bin", "van", "de"...) and legal
 *    forms ("LLC", "S.A.", "GmbH") removed, unless nothing else would remain.
 * 5. For comparing, each token reduced to a transliteration skeleton (`skeleton`): the spellings
 *    that romanizations of Arabic, Persian and Russian disagree on made one ("Youssef" and
 *    "Yusuf", "Mahmood" and "Mahmud", "Qasem" and "Kasem", "Javad" and "Jawad").
 * Token order is kept (the matcher pairs tokens in any order) and tokens are never stemmed.
 */

/** Particles of personal names, dropped: transliterations disagree on them ("Al Qaida", "Alqaida", "Qaida"). */
const PARTICLES = new Set([
  "al",
  "el",
  "ul",
  "ad",
  "ar",
  "as",
  "ash",
  "at",
  "az",
  "bin",
  "ben",
  "ibn",
  "bint",
  "de",
  "da",
  "das",
  "del",
  "della",
  "der",
  "di",
  "do",
  "dos",
  "du",
  "la",
  "le",
  "van",
  "von",
  "y",
]);

/** Legal forms and joining words of company names: no signal for a match. */
const LEGAL_FORMS = new Set([
  "the",
  "of",
  "and",
  "for",
  "llc",
  "inc",
  "incorporated",
  "ltd",
  "limited",
  "co",
  "corp",
  "corporation",
  "company",
  "plc",
  "sa",
  "sas",
  "sarl",
  "srl",
  "spa",
  "gmbh",
  "ag",
  "bv",
  "nv",
  "jsc",
  "ojsc",
  "cjsc",
  "pjsc",
  "ooo",
  "oao",
  "zao",
  "pao",
  "fze",
  "fzco",
  "fzc",
  "llp",
  "lp",
  "est",
  "establishment",
]);

/** "LAST, First Middle" → "First Middle LAST"; a name with no comma, or more than one, as it is. */
export function naturalOrder(name: string): string {
  const parts = name.split(",");
  if (parts.length !== 2) return name;
  const [last, first] = parts.map((p) => p.trim());
  if (!last || !first) return name.replace(",", " ");
  return `${first} ${last}`;
}

/** Letters and digits only, in lower case ASCII, words separated by one space. */
export function foldName(name: string): string {
  return transliterate(name)
    .toLowerCase()
    .replace(/['’`´.]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

/** The tokens compared by the matcher (see the steps above). */
export function nameTokens(name: string): string[] {
  const words = foldName(naturalOrder(name)).split(" ").filter(Boolean);
  const kept = words.filter((w) => !PARTICLES.has(w) && !LEGAL_FORMS.has(w));
  // A name made only of such words ("DE LA", "AL") keeps them: something must be compared.
  return kept.length > 0 ? kept : words;
}

/** The name in normalized form, for display and for storing beside the entry. */
export function normalizedName(name: string): string {
  return nameTokens(name).join(" ");
}

/** Letter groups romanizations disagree on, replaced in this order. */
const SKELETON_RULES: ReadonlyArray<[RegExp, string]> = [
  [/ph/g, "f"],
  [/ck/g, "k"],
  [/q/g, "k"],
  [/w/g, "v"],
  [/(?<=.)y/g, "i"],
  [/ou|oo/g, "u"],
  [/ee/g, "i"],
  [/([a-z])\1+/g, "$1"],
];

/** A folded token's transliteration skeleton ("youssef" → "yusef", "mahmood" → "mahmud"). */
export function skeleton(token: string): string {
  let result = token;
  for (const [pattern, replacement] of SKELETON_RULES) result = result.replace(pattern, replacement);
  return result;
}
