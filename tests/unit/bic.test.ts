import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { BIC_MESSAGE, isValidBic, normalizeBic } from "~/domain/bic";
import { COUNTRIES, findCountry, searchCountries } from "~/domain/countries";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");
const ALPHANUMERIC = [..."0123456789", ...LETTERS];

describe("BIC", () => {
  it("has the documented message", () => {
    expect(BIC_MESSAGE).toBe("Invalid SWIFT/BIC code");
  });
  it("accepts real 8- and 11-character codes, in any case and spacing", () => {
    for (const bic of [
      "DEUTDEFF",
      "DEUTDEFF500",
      "NWBKGB2L",
      "CHASUS33",
      "BOFAUS3N",
      "DEUTDEFFXXX",
      "deutdeff",
      " NWBK GB 2L ",
      "RBKOXKPR",
    ]) {
      expect(isValidBic(bic), bic).toBe(true);
    }
  });
  it("normalizes to upper case without spaces", () => {
    expect(normalizeBic(" deut de ff 500\n")).toBe("DEUTDEFF500");
  });
  it("refuses wrong lengths, digits in the bank or country code, unknown countries and punctuation", () => {
    for (const bic of [
      "",
      "DEUTDEF",
      "DEUTDEFF5",
      "DEUTDEFF50",
      "DEUTDEFF5000",
      "1EUTDEFF",
      "DEU1DEFF",
      "DEUT1EFF",
      "DEUTD1FF",
      "DEUTZZFF",
      "DEUTUKFF",
      "DEUT-DEFF",
      "DEUTDEF_",
      "DÉUTDEFF",
    ]) {
      expect(isValidBic(bic), bic).toBe(false);
    }
  });
  it("accepts any well-formed code with a real country, and refuses the same code with a country that does not exist", () => {
    const real = new Set(COUNTRIES.map((country) => country.code));
    const fakeCountries = LETTERS.flatMap((a) => LETTERS.map((b) => a + b)).filter((code) => !real.has(code));
    const chars = (alphabet: string[], count: number) =>
      fc.array(fc.constantFrom(...alphabet), { minLength: count, maxLength: count }).map((a) => a.join(""));
    fc.assert(
      fc.property(
        chars(LETTERS, 4),
        fc.constantFrom(...real),
        fc.constantFrom(...fakeCountries),
        chars(ALPHANUMERIC, 2),
        fc.option(chars(ALPHANUMERIC, 3), { nil: "" }),
        (bank, country, fake, location, branch) => {
          expect(isValidBic(bank + country + location + branch)).toBe(true);
          expect(isValidBic(bank + fake + location + branch)).toBe(false);
        },
      ),
    );
  });
});

describe("countries", () => {
  it("lists every ISO 3166-1 alpha-2 code once, plus Kosovo (XK) for SWIFT", () => {
    const codes = COUNTRIES.map((country) => country.code);
    expect(codes).toHaveLength(250);
    expect(new Set(codes).size).toBe(250);
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
    for (const retired of ["AN", "CS", "YU", "UK", "EU", "ZZ"]) expect(findCountry(retired), retired).toBeUndefined();
  });
  it("finds a country by code in any case", () => {
    expect(findCountry("de")?.name).toBe("Germany");
    expect(findCountry(" US ")?.name).toBe("United States of America");
    expect(findCountry("CI")?.name).toBe("Côte d'Ivoire");
    expect(findCountry("")).toBeUndefined();
  });
  it("searches name, alias and code, ignoring case and accents, best match first", () => {
    expect(searchCountries("us")[0]?.code).toBe("US");
    expect(searchCountries("GER")[0]?.code).toBe("DE");
    expect(searchCountries("ger").map((country) => country.code)).toEqual(
      expect.arrayContaining(["DE", "NE", "NG", "DZ"]),
    );
    expect(searchCountries("cote").map((country) => country.code)).toEqual(["CI"]);
    expect(searchCountries("aland")[0]?.code).toBe("AX");
    expect(
      searchCountries("korea")
        .map((country) => country.code)
        .sort(),
    ).toEqual(["KP", "KR"]);
    expect(searchCountries("south korea")[0]?.code).toBe("KR");
    expect(searchCountries("uk")[0]?.code).toBe("GB");
    expect(searchCountries("vietnam")[0]?.code).toBe("VN");
    expect(searchCountries("zzzz")).toEqual([]);
    expect(searchCountries("")).toHaveLength(COUNTRIES.length);
    expect(searchCountries("a", 5)).toHaveLength(5);
  });
});
