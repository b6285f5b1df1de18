import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ListFormatError,
  listFileKind,
  parseBirthDate,
  parsePrograms,
  parseRemarks,
  readOfacCsv,
} from "~/domain/sanctions/ofac-csv";
import { ofacCountryCode } from "~/domain/sanctions/countries";
import { birthDateText } from "~/domain/sanctions/entries";

const fixture = (name: string) => ({
  name,
  text: readFileSync(new URL(`../../fixtures/sanctions/${name}`, import.meta.url), "latin1"),
});

describe("OFAC's delimited list files", () => {
  it("names each published file's list and part, whatever the case or folder", () => {
    expect(listFileKind("/tmp/x/SDN.CSV")).toEqual({ source: "sdn", part: "primary" });
    expect(listFileKind("alt.csv")).toEqual({ source: "sdn", part: "alt" });
    expect(listFileKind("C:\\lists\\ADD.CSV")).toEqual({ source: "sdn", part: "add" });
    expect(listFileKind("sdn_comments.csv")).toEqual({ source: "sdn", part: "comments" });
    expect(listFileKind("CONS_PRIM.CSV")).toEqual({ source: "consolidated", part: "primary" });
    expect(listFileKind("CONS_ALT.CSV")).toEqual({ source: "consolidated", part: "alt" });
    expect(listFileKind("CONS_ADD.CSV")).toEqual({ source: "consolidated", part: "add" });
    expect(listFileKind("sdn.xml")).toBeNull();
    expect(listFileKind("members.csv")).toBeNull();
  });

  it("reads the SDN list with its aliases, addresses and extended remarks, joined by entry number", () => {
    const entries = readOfacCsv({
      source: "sdn",
      primary: fixture("SDN.CSV"),
      alt: fixture("ALT.CSV"),
      add: fixture("ADD.CSV"),
      comments: fixture("SDN_COMMENTS.CSV"),
    });
    expect(entries).toHaveLength(10);
    const rashidi = entries.find((e) => e.uid === "10001")!;
    expect(rashidi).toMatchObject({
      source: "sdn",
      name: "AL-RASHIDI, Khalid Abdullah",
      type: "individual",
      programs: ["SDGT"],
      countries: ["YE"],
    });
    expect(rashidi.aliases).toEqual([
      { name: "AL-RASHIDY, Khaled", type: "aka", weak: false },
      { name: "RASHIDI, Khalid", type: "aka", weak: false },
      { name: "ABU HAMZA", type: "aka", weak: true },
    ]);
    expect(rashidi.birth_dates.map(birthDateText)).toEqual(["14 Feb 1968", "1969"]);
    const karimi = entries.find((e) => e.uid === "10003")!;
    expect(karimi.type).toBe("entity");
    expect(karimi.programs).toEqual(["IRAN", "SDGT"]);
    expect(karimi.countries).toEqual(["IR", "AE"]);
    expect(karimi.aliases.map((a) => [a.name, a.type, a.weak])).toEqual([
      ["KARIMI TRADING CO.", "aka", false],
      ["SEPID KARIMI TRADING", "fka", false],
      ["KTC", "aka", true],
    ]);
    expect(entries.find((e) => e.uid === "10004")).toMatchObject({ type: "vessel", name: "OCEAN STAR" });
    expect(entries.find((e) => e.uid === "10010")).toMatchObject({ type: "aircraft" });
    // The weak alias in SDN_COMMENTS.CSV joins the entry's remarks.
    const petrovsky = entries.find((e) => e.uid === "10002")!;
    expect(petrovsky.aliases.filter((a) => a.weak).map((a) => a.name)).toEqual(["DIMA"]);
    expect(petrovsky.remarks).toContain("Secondary Sanctions");
    // An address country OFAC leaves undetermined gives no code; no remarks are null.
    const abuSayyaf = entries.find((e) => e.uid === "10009")!;
    expect(abuSayyaf.countries).toEqual([]);
    expect(abuSayyaf.remarks).toBeNull();
    expect(entries.find((e) => e.uid === "10007")!.birth_dates.map(birthDateText)).toEqual(["circa 1962"]);
  });

  it("reads the consolidated non-SDN list in the same layout", () => {
    const entries = readOfacCsv({
      source: "consolidated",
      primary: fixture("CONS_PRIM.CSV"),
      alt: fixture("CONS_ALT.CSV"),
      add: fixture("CONS_ADD.CSV"),
    });
    expect(entries.map((e) => [e.uid, e.source, e.programs])).toEqual([
      ["20001", "consolidated", ["UKRAINE-EO13662", "RUSSIA-EO14024"]],
      ["20002", "consolidated", ["FSE-SY"]],
    ]);
    expect(entries[0]!.aliases).toEqual([{ name: "SEVERNYE MORYA FINANS", type: "aka", weak: false }]);
    expect(entries[1]!.countries).toEqual(["TR", "SY"]);
  });

  it("refuses a file that is not in OFAC's layout, naming it", () => {
    expect(() => readOfacCsv({ source: "sdn", primary: { name: "SDN.CSV", text: "name,amount\nAda,12\n" } })).toThrow(
      ListFormatError,
    );
    expect(() => readOfacCsv({ source: "sdn", primary: { name: "SDN.CSV", text: '1,"A","-0- "\r\n' } })).toThrow(
      /SDN.CSV: record 1 has 3 columns/,
    );
    expect(() =>
      readOfacCsv({
        source: "sdn",
        primary: fixture("SDN.CSV"),
        alt: { name: "ALT.CSV", text: '99999,1,"aka","NOBODY","-0- "\r\n' },
      }),
    ).toThrow(/ALT.CSV: entry number 99999 is not in SDN.CSV/);
    const twice = fixture("SDN.CSV").text.replaceAll("\u001a", "") + fixture("SDN.CSV").text;
    expect(() => readOfacCsv({ source: "sdn", primary: { name: "SDN.CSV", text: twice } })).toThrow(/listed twice/);
  });
});

describe("the remarks of an entry", () => {
  it("gives weak aliases, dates of birth, nationality and citizenship", () => {
    const facts = parseRemarks(
      "DOB 30 Jul 1957; alt. DOB 1958; POB Jeddah, Saudi Arabia; citizen Saudi Arabia; alt. citizen Afghanistan; a.k.a. 'ABU ABDALLAH'; a.k.a. 'THE SHAYKH'.",
    );
    expect(facts.weak_aliases).toEqual(["ABU ABDALLAH", "THE SHAYKH"]);
    expect(facts.birth_dates.map(birthDateText)).toEqual(["30 Jul 1957", "1958"]);
    expect(facts.countries).toEqual(["SA", "AF"]);
    expect(parseRemarks(null)).toEqual({ weak_aliases: [], birth_dates: [], countries: [] });
  });

  it("reads every way OFAC states a date of birth", () => {
    expect(parseBirthDate("12 Mar 1971")).toEqual({
      from_year: 1971,
      to_year: 1971,
      month: 3,
      day: 12,
      approximate: false,
    });
    expect(parseBirthDate("Mar 1971")).toMatchObject({ month: 3, day: null });
    expect(parseBirthDate("1960 to 1962")).toMatchObject({ from_year: 1960, to_year: 1962 });
    expect(parseBirthDate("circa 1965")).toMatchObject({ from_year: 1964, to_year: 1966, approximate: true });
    expect(parseBirthDate("sometime")).toBeNull();
    expect(parseBirthDate("40 Mar 1971")).toBeNull();
  });

  it("splits bracketed programs and maps OFAC's country names to ISO codes", () => {
    expect(parsePrograms("SDGT] [IRGC] [IFSR")).toEqual(["SDGT", "IRGC", "IFSR"]);
    expect(parsePrograms(null)).toEqual([]);
    expect(ofacCountryCode("Iran")).toBe("IR");
    expect(ofacCountryCode("Korea, North")).toBe("KP");
    expect(ofacCountryCode("Burma")).toBe("MM");
    expect(ofacCountryCode("Germany")).toBe("DE");
    expect(ofacCountryCode("undetermined")).toBeNull();
  });
});
