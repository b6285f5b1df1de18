import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  NachaFieldError,
  entryHash,
  fileIdModifier,
  nachaCreditProblem,
  nachaLostCharacters,
  nachaText,
  writeNachaFile,
  type NachaCredit,
  type NachaFileInput,
} from "~/domain/nacha";
import { readNachaFile } from "./nacha-reader";

/**
 * The NACHA writer against golden files (tests/fixtures/nacha/, regenerate with
 * UPDATE_GOLDEN=1 after a deliberate change, and read the diff) and an independent reader
 * (nacha-reader.ts) that shares no code with it.
 */
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "nacha");

const BASE: Omit<NachaFileInput, "credits"> = {
  origin: { routing_number: "501234566", name: "Harborview Community Credit Union" },
  destination: { routing_number: "011000015", name: "Federal Reserve Bank" },
  company: { name: "Harborview CU", identification: "1990000001", entry_description: "TRANSFER" },
  created: { date: "2026-11-24", time: "10:30" },
  file_id_modifier: "A",
};

// Real routing numbers with valid check digits (well-known large banks).
const CHASE = "021000021";
const WELLS = "121000248";
const BOFA = "026009593";

function credit(over: Partial<NachaCredit> & Pick<NachaCredit, "trace_sequence">): NachaCredit {
  return {
    effective_date: "2026-11-25",
    routing_number: CHASE,
    account_number: "123456789",
    account_type: "checking",
    amount_cents: 12_345,
    individual_id: `MU${String(over.trace_sequence).padStart(8, "0")}`,
    individual_name: "Jordan Morgan",
    ...over,
  };
}

const CASES: Record<string, NachaFileInput> = {
  "one-credit": { ...BASE, credits: [credit({ trace_sequence: 1 })] },
  "many-batches": {
    ...BASE,
    file_id_modifier: "B",
    credits: [
      credit({
        trace_sequence: 7,
        effective_date: "2026-11-27",
        routing_number: WELLS,
        amount_cents: 1,
        individual_name: "Zoë O'Brien & Sons",
        payment_information: "Rent <December> — thank you",
      }),
      credit({
        trace_sequence: 3,
        effective_date: "2026-11-25",
        routing_number: BOFA,
        amount_cents: 9_999_999_999,
        account_type: "savings",
        account_number: "98765432101234567",
      }),
      credit({
        trace_sequence: 5,
        effective_date: "2026-11-25",
        amount_cents: 50_00,
        individual_name: "A very long receiver name that does not fit",
      }),
      credit({
        trace_sequence: 4,
        effective_date: "2026-11-26",
        routing_number: WELLS,
        amount_cents: 77_77,
        payment_information: "Invoice 42",
      }),
    ],
  },
  // 1 + 1 + 6 + 1 + 1 = exactly ten records: no padding.
  "full-block": {
    ...BASE,
    credits: [1, 2, 3, 4, 5, 6].map((n) => credit({ trace_sequence: n, amount_cents: n * 100 })),
  },
  // Eleven records: nine records of nines fill the second block.
  padding: { ...BASE, credits: [1, 2, 3, 4, 5, 6, 7].map((n) => credit({ trace_sequence: n, amount_cents: n * 100 })) },
};

describe("NACHA writer: golden files", () => {
  for (const [name, input] of Object.entries(CASES)) {
    it(`${name}.ach is written byte for byte`, () => {
      const file = writeNachaFile(input);
      const golden = path.join(FIXTURES, `${name}.ach`);
      if (process.env.UPDATE_GOLDEN === "1") fs.writeFileSync(golden, file.text);
      expect(file.text).toBe(fs.readFileSync(golden, "utf8"));
    });
  }

  it("the padding file has two blocks, the full one exactly one with no padding", () => {
    const full = readNachaFile(fs.readFileSync(path.join(FIXTURES, "full-block.ach"), "utf8"));
    expect(full.line_count).toBe(10);
    expect(full.record_count).toBe(10);
    expect(full.control.block_count).toBe(1);
    const padded = readNachaFile(fs.readFileSync(path.join(FIXTURES, "padding.ach"), "utf8"));
    expect(padded.record_count).toBe(11);
    expect(padded.line_count).toBe(20);
    expect(padded.control.block_count).toBe(2);
  });
});

describe("NACHA writer: read back by the independent reader, field by field", () => {
  for (const [name, input] of Object.entries(CASES)) {
    it(name, () => {
      const written = writeNachaFile(input);
      const read = readNachaFile(written.text);
      expect(read.header).toEqual({
        priority_code: "01",
        immediate_destination: input.destination.routing_number,
        immediate_origin: input.origin.routing_number,
        creation_date: "261124",
        creation_time: "1030",
        file_id_modifier: input.file_id_modifier,
        destination_name: "FEDERAL RESERVE BANK",
        origin_name: "HARBORVIEW COMMUNITY CR",
        reference_code: "",
      });
      const dates = [...new Set(input.credits.map((c) => c.effective_date))].sort();
      expect(read.batches.map((b) => b.effective_date)).toEqual(dates.map((d) => d.slice(2).replaceAll("-", "")));
      for (const [index, batch] of read.batches.entries()) {
        expect(batch).toMatchObject({
          service_class_code: "220",
          company_name: "HARBORVIEW CU",
          company_id: "1990000001",
          sec_code: "PPD",
          entry_description: "TRANSFER",
          odfi: "50123456",
          batch_number: index + 1,
        });
        const expected = input.credits
          .filter((c) => c.effective_date === dates[index])
          .sort((a, b) => a.trace_sequence - b.trace_sequence);
        expect(batch.entries).toHaveLength(expected.length);
        for (const [k, entry] of batch.entries.entries()) {
          const c = expected[k]!;
          expect(entry.transaction_code).toBe(c.account_type === "savings" ? "32" : "22");
          expect(entry.rdfi + entry.check_digit).toBe(c.routing_number);
          expect(entry.account_number).toBe(c.account_number);
          expect(entry.amount_cents).toBe(c.amount_cents);
          expect(entry.individual_id).toBe(c.individual_id);
          expect(entry.individual_name).toBe(nachaText(c.individual_name).slice(0, 22).trimEnd());
          expect(entry.trace_number).toBe(`50123456${String(c.trace_sequence).padStart(7, "0")}`);
          expect(entry.addenda.map((a) => a.text)).toEqual(
            c.payment_information ? [nachaText(c.payment_information)] : [],
          );
        }
        expect(batch.control.credit_cents).toBe(expected.reduce((s, c) => s + c.amount_cents, 0));
        expect(batch.control.debit_cents).toBe(0);
      }
      expect(read.control.credit_cents).toBe(input.credits.reduce((s, c) => s + c.amount_cents, 0));
      expect(read.control.credit_cents).toBe(written.credit_total_cents);
      expect(read.control.entry_hash).toBe(written.entry_hash);
      expect(read.control.block_count).toBe(written.block_count);
    });
  }

  it("non-ASCII and markup become plain upper-case ASCII", () => {
    const read = readNachaFile(writeNachaFile(CASES["many-batches"]!).text);
    const zoe = read.batches[2]!.entries[0]!;
    expect(zoe.individual_name).toBe("ZOE O'BRIEN & SONS");
    expect(zoe.addenda[0]!.text).toBe("RENT <DECEMBER> - THANK YOU"); // the dash transliterated, not blanked
  });

  // Letters with no accent to strip were written as blanks ("S REN UKASZ WEI - BEL"): they are
  // transliterated now (docs/product.md#to-us-bank). Each name, as the receiving bank reads it.
  const NAMES: [language: string, name: string, in_file: string][] = [
    ["Danish", "Søren Ødegård", "SOREN ODEGARD"],
    ["Polish", "Łukasz Żółć", "LUKASZ ZOLC"],
    ["German", "Weiß-Æbelø Müller", "WEISS-AEBELO MULLER"],
    ["Icelandic", "Þór Sigurðsson", "THOR SIGURDSSON"],
    ["Serbian (Latin)", "Đorđe Đoković", "DORDE DOKOVIC"],
    ["Serbian (Cyrillic)", "Ђорђе Петровић", "DJORDJE PETROVIC"],
    ["Russian", "Юлия Щербакова", "YULIYA SCHERBAKOVA"],
    ["Greek", "Ελένη Παπαδοπούλου", "ELENI PAPADOPOYLOY"],
    ["Turkish", "Işıl Çağlar", "ISIL CAGLAR"],
    ["Vietnamese", "Nguyễn Thị Ánh", "NGUYEN THI ANH"],
    ["French", "Œdipe Lefèvre", "OEDIPE LEFEVRE"],
    ["Spanish", "Begoña Ibáñez", "BEGONA IBANEZ"],
    ["Czech", "Dvořák Čapek", "DVORAK CAPEK"],
    ["Romanian", "Ștefan Țepeș", "STEFAN TEPES"],
    ["Arabic", "محمد", "MHMD"],
  ];

  it("names from fifteen languages: the name field as the independent reader reads it", () => {
    const written = writeNachaFile({
      ...BASE,
      credits: NAMES.map(([, name], i) => credit({ trace_sequence: i + 1, individual_name: name })),
    });
    const names = readNachaFile(written.text).batches.flatMap((b) => b.entries.map((e) => e.individual_name));
    expect(names).toEqual(NAMES.map(([, , in_file]) => in_file));
    expect(
      readNachaFile(
        writeNachaFile({
          ...BASE,
          credits: [credit({ trace_sequence: 1, individual_name: "Søren Łukasz Weiß-Æbelø" })],
        }).text,
      ).batches[0]!.entries[0]!.individual_name,
    ).toBe("SOREN LUKASZ WEISS-AEB"); // 22 characters kept
    for (const [, name] of NAMES) expect(nachaLostCharacters(name)).toEqual([]);
  });

  it("a script with no romanization is found before writing: nothing of it would be left", () => {
    expect(nachaLostCharacters("山田太郎")).toEqual(["山", "田", "太", "郎"]);
    expect(nachaLostCharacters("Taro 山田")).toEqual(["山", "田"]);
    expect(nachaLostCharacters("김민준")).toHaveLength(3);
    expect(nachaLostCharacters("Rent — 🏠 #4")).toEqual([]); // punctuation and symbols are not letters
    expect(nachaCreditProblem(credit({ trace_sequence: 1, individual_name: "山田太郎" }))).toBe(
      "the receiver's name has no letter or digit a NACHA file can carry",
    );
    expect(nachaCreditProblem(credit({ trace_sequence: 1, individual_name: "Søren" }))).toBeNull();
  });

  it("the reader is not a rubber stamp: a changed amount, hash, length or padding is refused with the line", () => {
    const text = writeNachaFile(CASES["one-credit"]!).text;
    const lines = text.split("\n");
    const amount = [...lines];
    amount[2] = `${amount[2]!.slice(0, 29)}0000012346${amount[2]!.slice(39)}`;
    expect(() => readNachaFile(amount.join("\n"))).toThrow(/line 4: total credit is wrong/);
    const hash = [...lines];
    hash[3] = `${hash[3]!.slice(0, 10)}0000000001${hash[3]!.slice(20)}`;
    expect(() => readNachaFile(hash.join("\n"))).toThrow(/line 4: entry hash is wrong/);
    const short = [...lines];
    short[1] = short[1]!.slice(0, 93);
    expect(() => readNachaFile(short.join("\n"))).toThrow(/line 2: record length is 93/);
    expect(() => readNachaFile(lines.slice(0, 9).join("\n") + "\n")).toThrow(/multiple of the blocking factor/);
  });
});

describe("NACHA writer: rules", () => {
  it("entry hash keeps the rightmost ten digits of the sum", () => {
    expect(entryHash(["021000021", "121000248"])).toBe("0014200026");
    expect(entryHash(Array.from({ length: 200 }, () => "999999990"))).toBe("9999999800"); // 19,999,999,800
  });

  it("file id modifiers run A to Z then 0 to 9, then refuse", () => {
    expect(fileIdModifier(0)).toBe("A");
    expect(fileIdModifier(25)).toBe("Z");
    expect(fileIdModifier(26)).toBe("0");
    expect(() => fileIdModifier(36)).toThrow(NachaFieldError);
  });

  it("refuses what a bank would refuse, before writing anything", () => {
    const one = (over: Partial<NachaCredit>) => () =>
      writeNachaFile({ ...BASE, credits: [credit({ trace_sequence: 1, ...over })] });
    expect(one({ routing_number: "021000022" })).toThrow(/ABA checksum/);
    expect(one({ account_number: "123456789012345678" })).toThrow(/account number/);
    expect(one({ amount_cents: 0 })).toThrow(/amount/);
    expect(one({ amount_cents: 10_000_000_000 })).toThrow(/amount/);
    expect(one({ amount_cents: 1.5 })).toThrow(/amount/);
    expect(one({ trace_sequence: 10_000_000 })).toThrow(/trace sequence/);
    expect(one({ individual_name: "  " })).toThrow(/name/);
    expect(one({ effective_date: "2026-11-32x" })).toThrow(/YYYY-MM-DD/);
    expect(() => writeNachaFile({ ...BASE, credits: [] })).toThrow(/at least one/);
    expect(() =>
      writeNachaFile({ ...BASE, credits: [credit({ trace_sequence: 1 }), credit({ trace_sequence: 1 })] }),
    ).toThrow(/unique/);
    expect(() => writeNachaFile({ ...BASE, file_id_modifier: "a", credits: [credit({ trace_sequence: 1 })] })).toThrow(
      /modifier/,
    );
    const header = (over: Partial<NachaFileInput>) => () =>
      writeNachaFile({ ...BASE, ...over, credits: [credit({ trace_sequence: 1 })] });
    expect(header({ company: { ...BASE.company, identification: "501234566" } })).toThrow(
      /company identification must be 10/,
    );
    expect(header({ company: { ...BASE.company, name: " " } })).toThrow(/company name is empty/);
    expect(header({ destination: { routing_number: "011000015", name: "" } })).toThrow(/destination name is empty/);
    expect(header({ destination: { routing_number: "011000016", name: "Federal Reserve Bank" } })).toThrow(
      /destination routing number/,
    );
  });
});
