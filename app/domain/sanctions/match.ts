import { jaroWinkler } from "@skyra/jaro-winkler";
import type { BirthDate, SanctionsEntry } from "./entries";
import { nameTokens, skeleton } from "./normalize";

/**
 * The sanctions matcher (docs/product.md#sanctions-screening, decision 0014). Names are
 * normalized (./normalize.ts), split into tokens, and compared token by token with Jaro–Winkler
 * (the `@skyra/jaro-winkler` package), tuned as moov-io/watchman tunes it, in our own code:
 *
 * - a token pair whose first letters differ scores 10 % less, and one whose lengths differ by more
 *   than a tenth loses up to 30 % (short tokens agreeing by chance are the commonest false hit);
 * - tokens are paired best first, each used once, in any order ("Ayman al-Zawahiri" and
 *   "ZAWAHIRI, Ayman" pair fully); the pairs are weighted by their length;
 * - tokens of the listed name left unpaired lower the score in proportion to their letters: its
 *   first or last token (given and family name, in natural order) by 0.4, a middle one (a
 *   patronymic, a second given name) by 0.1. Watchman's flat 0.15 let "Luis Moreno" hit
 *   "GONZALEZ MORENO, Jose Luis"; a flat 0.25 missed "Dmitry Petrovskiy" for "PETROVSKY, Dmitri
 *   Sergeyevich". Tokens of the name screened left unpaired cost 0.05 (a middle name the list
 *   does not have), or 0.4 when the listed name is one word (one shared word is chance);
 * - the names are also compared joined without spaces ("Abdul Rahman" against "ABDULRAHMAN"),
 *   and the better of the two scores kept.
 *
 * A name scoring MATCH_THRESHOLD or more against a primary name or a strong alias is a possible
 * match. Weak aliases (OFAC: broad or general names, FAQ 122) are screened too, but a hit on one
 * counts only when a date of birth or a country corroborates it. A date of birth stated on both
 * sides and different lowers the score (×0.85: an exact name with another date of birth is no match); one that agrees, or a country that agrees, raises
 * it a little (+0.02 each, at most 1).
 */
export const MATCH_THRESHOLD = 0.9;

const DIFFERENT_FIRST_LETTER = 0.9;
const LENGTH_CUTOFF = 0.9;
const LENGTH_PENALTY = 0.3;
const UNPAIRED_LISTED_EDGE = 0.4;
const UNPAIRED_LISTED_MIDDLE = 0.1;
const UNPAIRED_SCREENED = 0.05;
const DOB_MISMATCH = 0.85;
const CORROBORATION = 0.02;

/** Jaro–Winkler of two tokens with the first-letter and length penalties. */
export function tokenSimilarity(
  a: string,
  b: string,
  a_chars?: readonly string[],
  b_chars?: readonly string[],
): number {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  // The library splits a string into characters on every call; the prepared names pass them split once.
  let score = jaroWinkler(a_chars ?? [...a], b_chars ?? [...b]);
  if (a[0] !== b[0]) score *= DIFFERENT_FIRST_LETTER;
  const ratio = Math.min(a.length, b.length) / Math.max(a.length, b.length);
  if (ratio < LENGTH_CUTOFF) score *= 1 - (LENGTH_CUTOFF - ratio) * LENGTH_PENALTY;
  return score;
}

/** Best pairs of tokens, each used once, weighted by length, with the unpaired-token penalties. */
export function bestPairsScore(
  screened: readonly string[],
  listed: readonly string[],
  screened_chars?: readonly (readonly string[])[],
  listed_chars?: readonly (readonly string[])[],
): number {
  if (screened.length === 0 || listed.length === 0) return 0;
  const pairs: { i: number; j: number; score: number }[] = [];
  for (let i = 0; i < screened.length; i++)
    for (let j = 0; j < listed.length; j++)
      pairs.push({ i, j, score: tokenSimilarity(screened[i]!, listed[j]!, screened_chars?.[i], listed_chars?.[j]) });
  pairs.sort((x, y) => y.score - x.score);
  const used_i = new Set<number>();
  const used_j = new Set<number>();
  let weighted = 0;
  let weights = 0;
  for (const pair of pairs) {
    if (used_i.has(pair.i) || used_j.has(pair.j)) continue;
    used_i.add(pair.i);
    used_j.add(pair.j);
    const weight = screened[pair.i]!.length + listed[pair.j]!.length;
    weighted += pair.score * weight;
    weights += weight;
    if (used_i.size === screened.length || used_j.size === listed.length) break;
  }
  let score = weighted / weights;
  const length = (tokens: readonly string[], used: Set<number>) =>
    tokens.reduce((sum, t, index) => sum + (used.has(index) ? 0 : t.length), 0);
  const total = (tokens: readonly string[]) => tokens.reduce((sum, t) => sum + t.length, 0);
  // A listed name's first or last token left unpaired (its given name or family name) costs
  // more than a middle one (a patronymic, a second given name the screened name leaves out).
  const unpaired_listed = listed.reduce(
    (sum, t, index) =>
      used_j.has(index)
        ? sum
        : sum + t.length * (index === 0 || index === listed.length - 1 ? UNPAIRED_LISTED_EDGE : UNPAIRED_LISTED_MIDDLE),
    0,
  );
  score *= 1 - unpaired_listed / total(listed);
  // A listed name of one word (an entity's short name, a vessel; a listed person always has two)
  // met by one word of a longer name is a coincidence of one word: "MASO CO" is not "Mason
  // Willis". The screened name's other words then cost as a listed edge token does.
  const unpaired_screened_cost = listed.length === 1 ? UNPAIRED_LISTED_EDGE : UNPAIRED_SCREENED;
  score *= 1 - unpaired_screened_cost * (length(screened, used_i) / total(screened));
  return score;
}

/** A name ready to compare: its tokens' skeletons, split into characters, and its letters joined. */
export interface PreparedName {
  tokens: string[];
  chars: string[][];
  joined: string;
  joined_chars: string[];
  /**
   * The screened name's tokens again with two neighbours joined, once for each pair ("Wang
   * Jian Guo" → "wangjian guo", "wang jianguo"): a name split differently from the list's.
   */
  merged: { tokens: string[]; chars: string[][] }[];
}

export function prepareName(name: string): PreparedName {
  const tokens = nameTokens(name).map(skeleton);
  const joined = tokens.join("");
  const merged: PreparedName["merged"] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    const variant = [...tokens.slice(0, i), tokens[i]! + tokens[i + 1]!, ...tokens.slice(i + 2)];
    merged.push({ tokens: variant, chars: variant.map((t) => [...t]) });
  }
  return { tokens, chars: tokens.map((t) => [...t]), joined, joined_chars: [...joined], merged };
}

/** How alike two names are, 0 to 1. */
export function nameSimilarity(screened: PreparedName, listed: PreparedName): number {
  if (screened.tokens.length === 0 || listed.tokens.length === 0) return 0;
  let best = bestPairsScore(screened.tokens, listed.tokens, screened.chars, listed.chars);
  if (best === 1) return 1;
  // Joining neighbours only helps a screened name with more tokens than the listed one.
  if (screened.tokens.length > listed.tokens.length)
    for (const variant of screened.merged)
      best = Math.max(best, bestPairsScore(variant.tokens, listed.tokens, variant.chars, listed.chars));
  // Joined, only when the spacing differs: a name of one token each way is the pair score already.
  if (screened.tokens.length === 1 && listed.tokens.length === 1) return best;
  return Math.max(best, tokenSimilarity(screened.joined, listed.joined, screened.joined_chars, listed.joined_chars));
}

export interface PreparedEntry {
  entry: SanctionsEntry;
  names: { name: string; kind: "primary" | "alias" | "weak_alias"; prepared: PreparedName }[];
  /** The first letter of every token of every name: a name sharing none is not compared. */
  initials: Set<string>;
}

export function prepareEntry(entry: SanctionsEntry): PreparedEntry {
  const names: PreparedEntry["names"] = [
    { name: entry.name, kind: "primary", prepared: prepareName(entry.name) },
    ...entry.aliases.map((alias) => ({
      name: alias.name,
      kind: alias.weak ? ("weak_alias" as const) : ("alias" as const),
      prepared: prepareName(alias.name),
    })),
  ];
  const initials = new Set<string>();
  for (const n of names) for (const t of n.prepared.tokens) initials.add(t[0]!);
  return { entry, names, initials };
}

export interface ScreenedParty {
  name: string;
  /** YYYY-MM-DD when known (applicants). */
  birth_date?: string | null;
  /** ISO alpha-2 code when known (a wire's country, an applicant's address). */
  country?: string | null;
}

export type Agreement = "match" | "mismatch" | "unknown";

export interface PossibleMatch {
  entry: SanctionsEntry;
  matched_name: string;
  name_kind: "primary" | "alias" | "weak_alias";
  /** The name similarity alone. */
  name_score: number;
  /** With the date of birth and country taken into account: what the threshold is applied to. */
  score: number;
  birth_date: Agreement;
  country: Agreement;
}

function birthDateAgrees(birth_date: string, dates: readonly BirthDate[]): boolean {
  const [y, m, d] = birth_date.split("-").map(Number) as [number, number, number];
  return dates.some(
    (date) =>
      y >= date.from_year &&
      y <= date.to_year &&
      (date.month === null || date.month === m) &&
      (date.day === null || date.day === d),
  );
}

/** How one party compares with one entry: its best name, or null when no name comes near. */
export function compareWithEntry(
  party: { prepared: PreparedName; birth_date?: string | null; country?: string | null },
  candidate: PreparedEntry,
): PossibleMatch | null {
  const { entry } = candidate;
  const birth_date: Agreement =
    !party.birth_date || entry.birth_dates.length === 0
      ? "unknown"
      : birthDateAgrees(party.birth_date, entry.birth_dates)
        ? "match"
        : "mismatch";
  const country: Agreement =
    !party.country || entry.countries.length === 0
      ? "unknown"
      : entry.countries.includes(party.country.toUpperCase())
        ? "match"
        : "mismatch";
  const corroborated = birth_date === "match" || country === "match";
  let best: PossibleMatch | null = null;
  for (const name of candidate.names) {
    if (name.kind === "weak_alias" && !corroborated) continue;
    const name_score = nameSimilarity(party.prepared, name.prepared);
    if (best && name_score <= best.name_score) continue;
    let score = name_score;
    if (birth_date === "mismatch") score *= DOB_MISMATCH;
    if (birth_date === "match") score += CORROBORATION;
    if (country === "match") score += CORROBORATION;
    best = {
      entry,
      matched_name: name.name,
      name_kind: name.kind,
      name_score,
      score: Math.min(1, score),
      birth_date,
      country,
    };
  }
  return best;
}

/** A list ready to screen against: its prepared entries and, for each first letter, the entries with a token starting with it. */
export interface ScreeningIndex {
  entries: readonly PreparedEntry[];
  by_initial: Map<string, number[]>;
}

export function screeningIndex(entries: readonly PreparedEntry[]): ScreeningIndex {
  const by_initial = new Map<string, number[]>();
  entries.forEach((entry, index) => {
    for (const letter of entry.initials) {
      const list = by_initial.get(letter);
      if (list) list.push(index);
      else by_initial.set(letter, [index]);
    }
  });
  return { entries, by_initial };
}

/**
 * Every entry the party possibly matches (score at or above the threshold), best first. An entry
 * none of whose tokens starts with a letter of the party's tokens is skipped without scoring.
 */
export function screenParty(
  party: ScreenedParty,
  list: ScreeningIndex | readonly PreparedEntry[],
  threshold = MATCH_THRESHOLD,
): PossibleMatch[] {
  const index = "by_initial" in list ? list : screeningIndex(list);
  const prepared = prepareName(party.name);
  if (prepared.tokens.length === 0) return [];
  const candidates = new Set<number>();
  for (const token of prepared.tokens) for (const i of index.by_initial.get(token[0]!) ?? []) candidates.add(i);
  const found: PossibleMatch[] = [];
  for (const i of candidates) {
    const result = compareWithEntry(
      { prepared, birth_date: party.birth_date, country: party.country },
      index.entries[i]!,
    );
    if (result && result.score >= threshold) found.push(result);
  }
  return found.sort((a, b) => b.score - a.score || a.entry.uid.localeCompare(b.entry.uid));
}
