import {
  MATCH_THRESHOLD,
  compareWithEntry,
  prepareName,
  type PossibleMatch,
  type PreparedEntry,
  type ScreenedParty,
  type ScreeningIndex,
} from "./match";

/**
 * Screening many parties against one list (the re-screen of every member when a new list version
 * is loaded, docs/product.md#sanctions-screening). It answers exactly what `screenParty` answers
 * for each party, about ten times faster, by skipping the names that cannot reach the threshold:
 *
 * - a name's score is at most its best token pair's (the pairs are averaged, and the unpaired
 *   penalties only lower it), or its joined form's; with both corroborations (+0.02 each) a name
 *   under `threshold − 0.04` cannot be a possible match;
 * - so a listed name is compared only when one of its tokens, or its joined form, may come that
 *   near a token of the party (or two of its neighbours joined, or its joined form). "May come
 *   near" is a cheap upper bound of `tokenSimilarity` from the letters the two share (Jaro can
 *   match no more characters than that), the common prefix and the length penalty;
 * - which listed tokens a party's token may come near is kept for the whole run: members share
 *   given and family names, so most tokens are looked up once.
 *
 * tests/unit/sanctions/bulk-screen.test.ts checks it against `screenParty` name by name.
 */
const CORROBORATION_ROOM = 0.04;
const JOINED_KEPT = 50_000;
const DIFFERENT_FIRST_LETTER = 0.9;
const LENGTH_CUTOFF = 0.9;
const LENGTH_PENALTY = 0.3;

/** Jaro–Winkler's prefix as `@skyra/jaro-winkler` counts it (4 equal leading characters count 5). */
function prefixLength(a: string, b: string): number {
  for (let p = 0; p < 4; p++) if (a[p] !== b[p]) return p;
  return 5;
}

const counts = new Int32Array(128);

/**
 * An upper bound of `tokenSimilarity(a, b)`: Jaro's matches are at most the letters the two share
 * (as a multiset), its transposition term at most 1; the Winkler prefix and both penalties as the
 * real function applies them. The scan below computes the same bound from letter counts kept
 * once (`boundFromShared`); this two-string form is what the unit test holds against the metric.
 */
export function tokenSimilarityBound(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const short = Math.min(a.length, b.length);
  const ratio = short / Math.max(a.length, b.length);
  let shared = 0;
  let ascii = true;
  for (let i = 0; i < a.length; i++) if (a.charCodeAt(i) >= 128) ascii = false;
  for (let i = 0; i < b.length; i++) if (b.charCodeAt(i) >= 128) ascii = false;
  if (ascii) {
    for (let i = 0; i < a.length; i++) counts[a.charCodeAt(i)]!++;
    for (let i = 0; i < b.length; i++) {
      const c = b.charCodeAt(i);
      if (counts[c]! > 0) {
        counts[c]!--;
        shared++;
      }
    }
    for (let i = 0; i < a.length; i++) counts[a.charCodeAt(i)] = 0;
  } else shared = short;
  const lengthFactor = ratio < LENGTH_CUTOFF ? 1 - (LENGTH_CUTOFF - ratio) * LENGTH_PENALTY : 1;
  return boundFromShared(shared, a.length, b.length, a[0] === b[0] ? prefixLength(a, b) : 0, lengthFactor);
}

/** The bound itself, from the letters shared, the lengths, the Winkler prefix (0: another first letter). */
function boundFromShared(shared: number, a: number, b: number, prefix: number, lengthFactor: number): number {
  if (shared === 0) return 0;
  const jaro = (shared / a + shared / b + 1) / 3;
  const score = prefix === 0 ? jaro * DIFFERENT_FIRST_LETTER : jaro + prefix * 0.1 * (1 - jaro);
  return score * lengthFactor;
}

/** A letter's slot in a letter count: a–z, then 0–9; -1 for anything else (no counting then). */
const LETTERS = 36;
function slot(code: number): number {
  if (code >= 97 && code <= 122) return code - 97;
  if (code >= 48 && code <= 57) return code - 48 + 26;
  return -1;
}

/**
 * The upper bound from lengths alone: every letter of the shorter shared; with the same first
 * letter the longest prefix, else no prefix and the first-letter penalty.
 */
function lengthBound(a: number, b: number, sameFirst: boolean): number {
  const short = Math.min(a, b);
  const ratio = short / Math.max(a, b);
  const jaro = (short / a + short / b + 1) / 3;
  let score = sameFirst ? jaro + 0.5 * (1 - jaro) : jaro * DIFFERENT_FIRST_LETTER;
  if (ratio < LENGTH_CUTOFF) score *= 1 - (LENGTH_CUTOFF - ratio) * LENGTH_PENALTY;
  return score;
}

/**
 * Distinct strings of the list (tokens, or joined names) with what the bound needs kept once:
 * their letter counts, grouped by length so that lengths too far apart are skipped whole.
 */
class StringSet {
  readonly strings: string[] = [];
  readonly refs: number[][] = [];
  private readonly ids = new Map<string, number>();
  private counts = new Uint8Array(0);
  private countable: boolean[] = [];
  /** The ids by length, then by first letter's slot (36 for any other first character). */
  private byLength: number[][][] = [];

  add(text: string, ref: number): void {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.strings.push(text) - 1;
      this.ids.set(text, id);
      this.refs.push([]);
    }
    this.refs[id]!.push(ref);
  }

  /** Counts the letters once all strings are in. */
  seal(): void {
    this.counts = new Uint8Array(this.strings.length * LETTERS);
    this.countable = this.strings.map((text, id) => {
      for (let i = 0; i < text.length; i++) {
        const k = slot(text.charCodeAt(i));
        if (k < 0) return false;
        const at = id * LETTERS + k;
        if (this.counts[at]! < 255) this.counts[at]!++;
      }
      return true;
    });
    this.strings.forEach((text, id) => {
      const buckets = (this.byLength[text.length] ??= []);
      const first = slot(text.charCodeAt(0));
      (buckets[first < 0 ? LETTERS : first] ??= []).push(id);
    });
  }

  /** Every string whose similarity with `text` may reach `floor`: `visit` gets its refs. */
  near(text: string, floor: number, visit: (refs: readonly number[]) => void): void {
    if (text.length === 0) return;
    const letters: number[] = [];
    const amounts: number[] = [];
    let countable = true;
    const own = new Uint8Array(LETTERS);
    for (let i = 0; i < text.length; i++) {
      const k = slot(text.charCodeAt(i));
      if (k < 0) countable = false;
      else own[k]!++;
    }
    for (let k = 0; k < LETTERS; k++)
      if (own[k]) {
        letters.push(k);
        amounts.push(own[k]!);
      }
    const first = text.charCodeAt(0);
    const firstSlot = slot(first) < 0 ? LETTERS : slot(first);
    for (let length = 1; length < this.byLength.length; length++) {
      const buckets = this.byLength[length];
      if (!buckets || lengthBound(text.length, length, true) < floor) continue;
      // Another first letter costs the prefix and 10 %: only near-equal lengths can still come near.
      const others = lengthBound(text.length, length, false) >= floor;
      const ratio = Math.min(text.length, length) / Math.max(text.length, length);
      const lengthFactor = ratio < LENGTH_CUTOFF ? 1 - (LENGTH_CUTOFF - ratio) * LENGTH_PENALTY : 1;
      for (let b = 0; b <= LETTERS; b++) {
        const ids = buckets[b];
        if (!ids || (b !== firstSlot && !others)) continue;
        this.scan(ids, text, first, letters, amounts, countable, length, lengthFactor, floor, visit);
      }
    }
  }

  private scan(
    ids: readonly number[],
    text: string,
    first: number,
    letters: readonly number[],
    amounts: readonly number[],
    countable: boolean,
    length: number,
    lengthFactor: number,
    floor: number,
    visit: (refs: readonly number[]) => void,
  ): void {
    {
      for (const id of ids) {
        const other = this.strings[id]!;
        if (other === text) {
          visit(this.refs[id]!);
          continue;
        }
        let shared: number;
        if (countable && this.countable[id]) {
          shared = 0;
          const base = id * LETTERS;
          for (let j = 0; j < letters.length; j++) {
            const theirs = this.counts[base + letters[j]!]!;
            shared += theirs < amounts[j]! ? theirs : amounts[j]!;
          }
        } else shared = Math.min(text.length, length);
        const sameFirst = other.charCodeAt(0) === first;
        // The largest prefix first (cheap); the real prefix only when that could reach the floor.
        if (boundFromShared(shared, text.length, length, sameFirst ? 5 : 0, lengthFactor) < floor) continue;
        if (
          !sameFirst ||
          boundFromShared(shared, text.length, length, prefixLength(text, other), lengthFactor) >= floor
        )
          visit(this.refs[id]!);
      }
    }
  }
}

/** One name of one entry: the entry's index in the list times the most names an entry has, plus the name's index. */
type NameRef = number;

export class BulkScreener {
  private readonly floor: number;
  private readonly tokens = new StringSet();
  private readonly joined = new StringSet();
  private readonly tokenReach = new Map<string, NameRef[]>();
  /** Whole names seen before (two members named alike): kept up to JOINED_KEPT, then begun again. */
  private joinedReach = new Map<string, NameRef[]>();
  private readonly names_per_entry: number;

  constructor(
    private readonly index: ScreeningIndex,
    private readonly threshold = MATCH_THRESHOLD,
  ) {
    this.floor = threshold - CORROBORATION_ROOM;
    this.names_per_entry = Math.max(1, ...index.entries.map((e) => e.names.length));
    index.entries.forEach((entry, e) => {
      entry.names.forEach((name, n) => {
        const ref = e * this.names_per_entry + n;
        for (const token of new Set(name.prepared.tokens)) this.tokens.add(token, ref);
        if (name.prepared.joined) this.joined.add(name.prepared.joined, ref);
      });
    });
    this.tokens.seal();
    this.joined.seal();
  }

  /** The names one of whose tokens may come near `token` (kept for the run). */
  private reach(token: string): NameRef[] {
    const found = this.tokenReach.get(token);
    if (found) return found;
    const list: NameRef[] = [];
    this.tokens.near(token, this.floor, (refs) => {
      for (const ref of refs) list.push(ref);
    });
    this.tokenReach.set(token, list);
    return list;
  }

  /** The same answer as `screenParty(party, index, threshold)`. */
  screen(party: ScreenedParty): PossibleMatch[] {
    const prepared = prepareName(party.name);
    if (prepared.tokens.length === 0) return [];
    const refs = new Set<NameRef>();
    const add = (list: readonly NameRef[]) => {
      for (const ref of list) refs.add(ref);
    };
    for (const token of prepared.tokens) add(this.reach(token));
    // Two neighbours joined ("Abdul Rahman" against "ABDULRAHMAN").
    for (let i = 0; i + 1 < prepared.tokens.length; i++) add(this.reach(prepared.tokens[i]! + prepared.tokens[i + 1]!));
    // The whole name joined.
    let whole = this.joinedReach.get(prepared.joined);
    if (!whole) {
      const list: NameRef[] = [];
      this.joined.near(prepared.joined, this.floor, (found) => {
        for (const ref of found) list.push(ref);
      });
      if (this.joinedReach.size >= JOINED_KEPT) this.joinedReach = new Map();
      this.joinedReach.set(prepared.joined, (whole = list));
    }
    add(whole);
    if (refs.size === 0) return [];
    // Group the names by entry, in the entry's own order.
    const byEntry = new Map<number, number[]>();
    for (const ref of [...refs].sort((a, b) => a - b)) {
      const e = Math.floor(ref / this.names_per_entry);
      const list = byEntry.get(e);
      if (list) list.push(ref % this.names_per_entry);
      else byEntry.set(e, [ref % this.names_per_entry]);
    }
    const initials = new Set(prepared.tokens.map((t) => t[0]!));
    const found: PossibleMatch[] = [];
    for (const [e, names] of byEntry) {
      const entry = this.index.entries[e]!;
      // screenParty compares only entries sharing a first letter with the party's tokens.
      if (![...initials].some((letter) => entry.initials.has(letter))) continue;
      const narrowed: PreparedEntry = { ...entry, names: names.map((n) => entry.names[n]!) };
      const result = compareWithEntry({ prepared, birth_date: party.birth_date, country: party.country }, narrowed);
      if (result && result.score >= this.threshold) found.push(result);
    }
    return found.sort((a, b) => b.score - a.score || a.entry.uid.localeCompare(b.entry.uid));
  }
}
