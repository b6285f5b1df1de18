import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { foldName, nameTokens, naturalOrder, skeleton } from "~/domain/sanctions/normalize";
import {
  MATCH_THRESHOLD,
  bestPairsScore,
  nameSimilarity,
  prepareEntry,
  prepareName,
  screenParty,
  tokenSimilarity,
} from "~/domain/sanctions/match";
import { readOfacCsv } from "~/domain/sanctions/ofac-csv";

const fixture = (name: string) => ({
  name,
  text: readFileSync(new URL(`../../fixtures/sanctions/${name}`, import.meta.url), "latin1"),
});
const entries = readOfacCsv({
  source: "sdn",
  primary: fixture("SDN.CSV"),
  alt: fixture("ALT.CSV"),
  add: fixture("ADD.CSV"),
  comments: fixture("SDN_COMMENTS.CSV"),
}).map(prepareEntry);

describe("name normalization", () => {
  it("folds case, accents and punctuation", () => {
    expect(foldName("  José-Luis  GONZÁLEZ ")).toBe("jose luis gonzalez");
    expect(foldName("O'Brien & Sons, S.A.")).toBe("obrien sons sa");
    expect(foldName("Øster Ålborg")).toBe("oster alborg");
  });

  it("turns OFAC's LAST, First into First LAST", () => {
    expect(naturalOrder("AL-RASHIDI, Khalid Abdullah")).toBe("Khalid Abdullah AL-RASHIDI");
    expect(naturalOrder("BANCO INTERNACIONAL DEL ORINOCO, S.A.")).toBe("S.A. BANCO INTERNACIONAL DEL ORINOCO");
    expect(naturalOrder("No comma")).toBe("No comma");
  });

  it("reduces a token to the skeleton romanizations share", () => {
    expect(skeleton("youssef")).toBe(skeleton("yusef"));
    expect(skeleton("mahmood")).toBe("mahmud");
    expect(skeleton("qasem")).toBe("kasem");
    expect(skeleton("jawad")).toBe(skeleton("javad"));
    expect(skeleton("tahery")).toBe(skeleton("taheri"));
    // A leading Y is a consonant and stays.
    expect(skeleton("yelena")).toBe("yelena");
  });

  it("drops name particles and legal forms unless nothing else is left", () => {
    expect(nameTokens("AL-RASHIDI, Khalid Abdullah")).toEqual(["khalid", "abdullah", "rashidi"]);
    expect(nameTokens("KARIMI TRADING COMPANY LLC")).toEqual(["karimi", "trading"]);
    expect(nameTokens("Usama bin Ladin")).toEqual(["usama", "ladin"]);
    expect(nameTokens("De La")).toEqual(["de", "la"]);
    expect(nameTokens("")).toEqual([]);
  });
});

describe("the matcher", () => {
  it("scores a token pair with Jaro-Winkler and the first-letter and length penalties", () => {
    expect(tokenSimilarity("khalid", "khalid")).toBe(1);
    expect(tokenSimilarity("khalid", "khaled")).toBeGreaterThan(0.85);
    // Different first letters cost a tenth.
    expect(tokenSimilarity("kadhafi", "qadhafi")).toBeLessThan(tokenSimilarity("qadhafy", "qadhafi"));
    // Very different lengths cost more.
    expect(tokenSimilarity("al", "alexander")).toBeLessThan(0.7);
    expect(tokenSimilarity("", "x")).toBe(0);
  });

  it("pairs tokens in any order and penalizes unpaired tokens", () => {
    expect(bestPairsScore(["ayman", "zawahiri"], ["zawahiri", "ayman"])).toBe(1);
    const withMiddle = bestPairsScore(["john", "doe"], ["john", "bartholomew", "doe"]);
    expect(withMiddle).toBeLessThan(0.95);
    expect(bestPairsScore(["john", "bartholomew", "doe"], ["john", "doe"])).toBeGreaterThan(withMiddle);
    expect(bestPairsScore([], ["x"])).toBe(0);
  });

  it("compares names joined when their spacing differs", () => {
    expect(nameSimilarity(prepareName("Abdul Rahman Yasin"), prepareName("ABDULRAHMAN YASIN"))).toBeGreaterThan(0.97);
    // The screened name split where the listed one is not.
    expect(nameSimilarity(prepareName("Wang Jian Guo"), prepareName("WANG, Jianguo"))).toBe(1);
  });

  it("finds a listed person under a misspelling, a transliteration or another word order", () => {
    for (const name of [
      "Khaled Abdalla Al Rashidi",
      "Rashidi Khalid",
      "Dmitry Petrovskiy",
      "Jose Luis Gonzales Moreno",
      "Karimi Trading Co",
      "Banco Internacional del Orinoco",
    ]) {
      const found = screenParty({ name }, entries);
      expect(found.length, name).toBeGreaterThan(0);
      expect(found[0]!.score, name).toBeGreaterThanOrEqual(MATCH_THRESHOLD);
    }
  });

  it("does not hit a common name", () => {
    for (const name of ["John Smith", "Maria Garcia", "Ahmed Hassan", "Luis Moreno", "Ocean Breeze Cafe"])
      expect(screenParty({ name }, entries), name).toEqual([]);
  });

  it("counts a weak alias only when a date of birth or a country corroborates it", () => {
    expect(screenParty({ name: "Abu Hamza" }, entries)).toEqual([]);
    expect(screenParty({ name: "Abu Hamza", country: "US" }, entries)).toEqual([]);
    const corroborated = screenParty({ name: "Abu Hamza", country: "YE" }, entries);
    expect(corroborated[0]).toMatchObject({ name_kind: "weak_alias", matched_name: "ABU HAMZA", country: "match" });
    const byBirth = screenParty({ name: "Abu Hamza", birth_date: "1968-02-14" }, entries);
    expect(byBirth[0]).toMatchObject({ name_kind: "weak_alias", birth_date: "match" });
  });

  it("lowers the score of a different date of birth and raises that of the same one", () => {
    const name = "Weiming Zhang";
    const none = screenParty({ name }, entries)[0]!;
    const same = screenParty({ name, birth_date: "1963-05-01" }, entries)[0]!;
    expect(same.birth_date).toBe("match");
    expect(same.score).toBeGreaterThanOrEqual(none.score);
    expect(screenParty({ name, birth_date: "1990-05-01" }, entries)).toEqual([]);
    const other = screenParty({ name }, entries, 0)[0]!;
    expect(other.birth_date).toBe("unknown");
  });
});
