import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse } from "csv-parse/sync";
import { BulkScreener, tokenSimilarityBound } from "~/domain/sanctions/bulk-screen";
import {
  prepareEntry,
  screenParty,
  screeningIndex,
  tokenSimilarity,
  type ScreenedParty,
} from "~/domain/sanctions/match";
import { readOfacCsv } from "~/domain/sanctions/ofac-csv";

/**
 * The re-screen's fast path (app/domain/sanctions/bulk-screen.ts) must answer exactly what the
 * one-at-a-time matcher answers: a member it skipped wrongly would be a listed person missed.
 */
const bench = (name: string) => ({
  name,
  text: readFileSync(new URL(`../../../bench/sanctions/${name}`, import.meta.url), "latin1"),
});
const index = screeningIndex(
  readOfacCsv({ source: "sdn", primary: bench("SDN.CSV"), alt: bench("ALT.CSV"), add: bench("ADD.CSV") }).map(
    prepareEntry,
  ),
);
const labelled = parse(readFileSync(new URL("../../../bench/sanctions/labelled.csv", import.meta.url), "utf8"), {
  columns: true,
}) as { name: string; birth_date: string; country: string }[];

const same = (party: ScreenedParty, screener: BulkScreener) => {
  const answer = (list: ReturnType<typeof screenParty>) =>
    list.map((m) => ({ uid: m.entry.uid, score: m.score, matched: m.matched_name, kind: m.name_kind }));
  expect(answer(screener.screen(party)), party.name).toEqual(answer(screenParty(party, index)));
};

describe("the bulk screener", () => {
  it("answers as screenParty on every labelled name (true hits, near misses, common names)", () => {
    const screener = new BulkScreener(index);
    for (const row of labelled)
      same({ name: row.name, birth_date: row.birth_date || null, country: row.country || null }, screener);
  });

  it("answers as screenParty on names made of listed tokens, misspelt, reordered and joined", () => {
    const tokens = [...new Set(index.entries.flatMap((e) => e.names.flatMap((n) => n.name.split(/[\s,]+/))))].filter(
      (t) => t.length > 1,
    );
    const typo = fc
      .tuple(fc.constantFrom(...tokens), fc.nat(), fc.constantFrom("", "a", "e", "y", "h"))
      .map(([t, at, letter]) => {
        const i = at % (t.length + 1);
        return t.slice(0, i) + letter + t.slice(i + (letter ? 0 : 1));
      });
    const screener = new BulkScreener(index);
    fc.assert(
      fc.property(
        fc.array(typo, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.constantFrom(null, "1968-02-14", "1975-08-21"),
        fc.constantFrom(null, "US", "YE", "MX", "RU"),
        (words, join, birth_date, country) => {
          const name = join && words.length > 1 ? words[0]! + words.slice(1).join(" ") : words.join(" ");
          same({ name, birth_date, country }, screener);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("its bound is never under the real token similarity", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,12}$/), fc.stringMatching(/^[a-z]{1,12}$/), (a, b) => {
        expect(tokenSimilarityBound(a, b)).toBeGreaterThanOrEqual(tokenSimilarity(a, b) - 1e-12);
      }),
      { numRuns: 2000 },
    );
    expect(tokenSimilarityBound("smith", "mohammed")).toBeLessThan(0.86);
  });
});
