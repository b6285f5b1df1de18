import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { INBOUND_FILE_MAX_BYTES, readInboundNachaFile, type ReadInboundResult } from "~/domain/nacha/reader";
import { RETURN_REASONS, writeReturnFile, type ReturnItem } from "~/domain/nacha/return-file";
import {
  buildInboundFile,
  lineOf,
  OUR_ROUTING,
  replaceField,
  RETURN_FILE_HEADER,
  type BuildBatch,
} from "./nacha-inbound-builder";
import { readNachaFile } from "./nacha-reader";

/**
 * The inbound NACHA parser (app/domain/nacha/reader.ts): golden inbound files read field by
 * field (tests/fixtures/nacha/inbound-*.ach, regenerate with UPDATE_GOLDEN=1 and read the diff),
 * and every rule that refuses a whole file, each answered with its line and rule. Files are
 * built by nacha-inbound-builder.ts, which shares no code with the app. The return file writer
 * is read back by the independent reader (nacha-reader.ts).
 */
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "nacha");
const EXPECT = { routing_number: OUR_ROUTING };
const bytes = (text: string) => new TextEncoder().encode(text);
const read = (text: string) => readInboundNachaFile(bytes(text), EXPECT);

const PAYROLL: BuildBatch = {
  company_name: "Acme Payroll",
  company_id: "1987654321",
  description: "PAYROLL",
  odfi: "09100001",
  service_class: "220",
  entries: [
    { code: "22", account_number: "4000000001", amount_cents: 250_000, name: "Jordan Morgan", id: "EMP001" },
    {
      code: "32",
      account_number: "4000000002",
      amount_cents: 12_345,
      name: "Ana O'Neil",
      id: "EMP002",
      info: "NOVEMBER PAY",
    },
  ],
};

const GOLDEN: Record<string, BuildBatch[]> = {
  "inbound-payroll.ach": [PAYROLL],
  "inbound-mixed.ach": [
    PAYROLL,
    {
      company_name: "City Power",
      company_id: "9555444333",
      sec: "CCD",
      description: "UTILITY",
      odfi: "02600959",
      service_class: "225",
      entries: [
        { code: "27", account_number: "4000000001", amount_cents: 8_842, name: "Jordan Morgan", id: "INV-77" },
        { code: "37", account_number: "4000000003", amount_cents: 100, name: "Lee Park" },
      ],
    },
    {
      company_name: "Gym Co",
      odfi: "12100024",
      entries: [
        { code: "23", account_number: "4000000004", amount_cents: 0, name: "Sam Lee" },
        { code: "28", account_number: "4000000004", amount_cents: 0, name: "Sam Lee" },
      ],
    },
  ],
  "inbound-returns.ach": [
    {
      company_name: "Harborview CU",
      company_id: "501234566",
      description: "TRANSFER",
      odfi: "02100002",
      service_class: "200",
      entries: [
        {
          code: "21",
          routing: OUR_ROUTING,
          account_number: "123456789",
          amount_cents: 10_000,
          name: "Lee Park",
          return_of: { reason: "R03", original_trace: "501234560000001" },
        },
        {
          code: "21",
          routing: OUR_ROUTING,
          account_number: "98765",
          amount_cents: 1,
          name: "Cafe Co",
          return_of: { reason: "R02", original_trace: "501234560000002" },
        },
      ],
    },
  ],
};

function expectRefused(result: ReadInboundResult, line: number, rule: RegExp) {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect({ line: result.line, rule: result.rule }).toEqual({ line, rule: expect.stringMatching(rule) });
  expect(result.message).toBe(line > 0 ? `line ${line}: ${result.rule}` : result.rule);
}

describe("golden inbound files", () => {
  for (const [name, batches] of Object.entries(GOLDEN)) {
    it(`${name} is the file the builder writes and the independent reader accepts`, () => {
      const text = buildInboundFile(batches);
      const file = path.join(FIXTURES, name);
      if (process.env.UPDATE_GOLDEN === "1") fs.writeFileSync(file, text);
      expect(text).toBe(fs.readFileSync(file, "utf8"));
      const independent = readNachaFile(text, { inbound: true });
      expect(independent.batches.length).toBe(batches.length);
    });
  }

  it("reads the payroll file field by field", () => {
    const result = readInboundNachaFile(fs.readFileSync(path.join(FIXTURES, "inbound-payroll.ach")), EXPECT);
    if (!result.ok) throw new Error(result.message);
    const f = result.file;
    expect({
      destination: f.immediate_destination,
      origin: f.immediate_origin,
      created: f.created_date,
      time: f.created_time,
      modifier: f.file_id_modifier,
      origin_name: f.origin_name,
    }).toEqual({
      destination: "501234566",
      origin: "011000015",
      created: "2026-11-24",
      time: "09:00",
      modifier: "A",
      origin_name: "FEDERAL RESERVE BANK",
    });
    expect({
      entries: f.entry_count,
      addenda: f.addenda_count,
      credits: f.credit_total_cents,
      debits: f.debit_total_cents,
    }).toEqual({ entries: 2, addenda: 1, credits: 262_345, debits: 0 });
    const [batch] = f.batches;
    expect({ ...batch, entries: undefined }).toEqual({
      line: 2,
      batch_number: 1,
      service_class_code: "220",
      company_name: "ACME PAYROLL",
      company_discretionary_data: "",
      company_id: "1987654321",
      sec_code: "PPD",
      entry_description: "PAYROLL",
      effective_date: "2026-11-25",
      odfi: "09100001",
      entries: undefined,
      iat: null,
    });
    expect(batch!.entries).toEqual([
      {
        line: 3,
        transaction_code: "22",
        kind: "credit",
        account_type: "checking",
        routing_number: "501234566",
        account_number: "4000000001",
        amount_cents: 250_000,
        individual_id: "EMP001",
        individual_name: "JORDAN MORGAN",
        trace_number: "091000010000001",
        payment_information: null,
        return_info: null,
        change: null,
        check_serial_number: null,
        payment_type_code: null,
        iat: null,
      },
      {
        line: 4,
        transaction_code: "32",
        kind: "credit",
        account_type: "savings",
        routing_number: "501234566",
        account_number: "4000000002",
        amount_cents: 12_345,
        individual_id: "EMP002",
        individual_name: "ANA O'NEIL",
        trace_number: "091000010000002",
        payment_information: "NOVEMBER PAY",
        return_info: null,
        change: null,
        check_serial_number: null,
        payment_type_code: null,
        iat: null,
      },
    ]);
  });

  it("reads debits, prenotes and a CCD batch; totals by code family", () => {
    const result = readInboundNachaFile(fs.readFileSync(path.join(FIXTURES, "inbound-mixed.ach")), EXPECT);
    if (!result.ok) throw new Error(result.message);
    expect(
      result.file.batches.map((b) => [
        b.sec_code,
        b.company_name,
        b.entries.map((e) => `${e.kind}:${e.account_type}:${e.amount_cents}`),
      ]),
    ).toEqual([
      ["PPD", "ACME PAYROLL", ["credit:checking:250000", "credit:savings:12345"]],
      ["CCD", "CITY POWER", ["debit:checking:8842", "debit:savings:100"]],
      ["PPD", "GYM CO", ["prenote:checking:0", "prenote:checking:0"]],
    ]);
    expect({ credits: result.file.credit_total_cents, debits: result.file.debit_total_cents }).toEqual({
      credits: 262_345,
      debits: 8_942,
    });
  });

  it("reads returns of the credit union's own entries with their addenda 99", () => {
    const result = readInboundNachaFile(fs.readFileSync(path.join(FIXTURES, "inbound-returns.ach")), EXPECT);
    if (!result.ok) throw new Error(result.message);
    expect(result.file.batches[0]!.entries.map((e) => [e.kind, e.amount_cents, e.return_info])).toEqual([
      [
        "return",
        10_000,
        { reason_code: "R03", original_trace_number: "501234560000001", original_rdfi: "02100002", information: "" },
      ],
      [
        "return",
        1,
        { reason_code: "R02", original_trace_number: "501234560000002", original_rdfi: "02100002", information: "" },
      ],
    ]);
  });

  it("reads CRLF line ends and an unbroken run of records alike", () => {
    const text = buildInboundFile([PAYROLL]);
    const plain = read(text);
    expect(read(text.replaceAll("\n", "\r\n"))).toEqual(plain);
    expect(read(text.replaceAll("\n", ""))).toEqual(plain);
  });
});

describe("a file is refused whole, with the line and the rule", () => {
  const good = () =>
    buildInboundFile([
      PAYROLL,
      {
        company_name: "Second Co",
        odfi: "02600959",
        entries: [{ code: "22", account_number: "4000000009", amount_cents: 500 }],
      },
    ]);

  it("accepts the untouched file", () => {
    expect(read(good()).ok).toBe(true);
  });

  it("a wrong batch entry hash", () => {
    const text = good();
    const line = lineOf(text, "8");
    expectRefused(
      read(replaceField(text, line, 11, 20, "0000000001")),
      line,
      /^entry hash is 0000000001, the entries' receiving DFIs sum to 0100246912$/,
    );
  });

  it("a wrong file entry hash", () => {
    const text = good();
    const line = lineOf(text, "9");
    expectRefused(
      read(replaceField(text, line, 22, 31, "0000000001")),
      line,
      /^entry hash is 0000000001, the entries' receiving DFIs sum to \d{10}$/,
    );
  });

  it("a wrong batch credit total", () => {
    const text = good();
    const line = lineOf(text, "8");
    expectRefused(
      read(replaceField(text, line, 33, 44, "000000262346")),
      line,
      /^total credit is 262346 cents, the entries' credits sum to 262345$/,
    );
  });

  it("a wrong batch debit total", () => {
    const text = good();
    const line = lineOf(text, "8");
    expectRefused(
      read(replaceField(text, line, 21, 32, "000000000001")),
      line,
      /^total debit is 1 cents, the entries' debits sum to 0$/,
    );
  });

  it("a wrong file credit total and debit total", () => {
    const text = good();
    const line = lineOf(text, "9");
    expectRefused(
      read(replaceField(text, line, 44, 55, "000000000001")),
      line,
      /^total credit is 1 cents, the batches' credits sum to 262845$/,
    );
    expectRefused(read(replaceField(text, line, 32, 43, "000000000007")), line, /^total debit is 7 cents/);
  });

  it("a wrong entry/addenda count in a batch and in the file", () => {
    const text = good();
    const batch = lineOf(text, "8");
    expectRefused(
      read(replaceField(text, batch, 5, 10, "000002")),
      batch,
      /^entry\/addenda count is 2, the batch holds 3$/,
    );
    const file = lineOf(text, "9");
    expectRefused(
      read(replaceField(text, file, 14, 21, "00000003")),
      file,
      /^entry\/addenda count is 3, the file holds 4$/,
    );
  });

  it("a wrong batch count and block count", () => {
    const text = good();
    const line = lineOf(text, "9");
    expectRefused(read(replaceField(text, line, 2, 7, "000003")), line, /^batch count is 3, the file holds 2$/);
    expectRefused(
      read(replaceField(text, line, 8, 13, "000002")),
      line,
      /^block count is 2, the file holds 1 blocks of 10 records$/,
    );
  });

  it("a record of the wrong length", () => {
    const text = good();
    const lines = text.split("\n");
    lines[2] = `${lines[2]} `;
    expectRefused(read(lines.join("\n")), 3, /^record length is 95, not 94$/);
  });

  it("records that are not a multiple of ten (blocking)", () => {
    const text = good();
    const lines = text.slice(0, -1).split("\n");
    lines.pop();
    expectRefused(
      read(`${lines.join("\n")}\n`),
      9,
      /^the file has 9 records, not a multiple of the blocking factor 10$/,
    );
  });

  it("a wrong check digit", () => {
    const text = good();
    const line = lineOf(text, "6");
    expectRefused(
      read(replaceField(text, line, 12, 12, "7")),
      line,
      /^check digit 7 \(column 12\) is wrong for receiving DFI 50123456: the ABA checksum fails$/,
    );
  });

  it("unsorted trace numbers", () => {
    const text = good();
    const second = lineOf(text, "6", lineOf(text, "6"));
    expectRefused(
      read(replaceField(text, second, 80, 94, "091000010000000")),
      second,
      /^trace number 091000010000000 is not after 091000010000001: trace numbers ascend within a batch$/,
    );
  });

  it("an empty file, and one of blank lines", () => {
    expectRefused(read(""), 0, /^the file is empty$/);
    expectRefused(read("\n \r\n"), 0, /^the file is empty$/);
  });

  it("a binary file (a PNG renamed .ach)", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const result = readInboundNachaFile(png, EXPECT);
    expectRefused(result, 1, /^byte 1 is not printable text \(0x89\): a NACHA file holds only ASCII records$/);
  });

  it("a file for another routing number", () => {
    const text = buildInboundFile([PAYROLL], { destination: "021000021" });
    expectRefused(
      read(text),
      1,
      /^immediate destination 021000021 is not this credit union's routing number 501234566: the file is for another bank$/,
    );
  });

  it("a file from an origin that is not a routing number (its returns could not be sent back)", () => {
    const text = buildInboundFile([PAYROLL], { origin: "123456789" });
    expectRefused(
      read(text),
      1,
      /^immediate origin 123456789 is not a routing number \(the ABA checksum fails\): returns could not be sent back to it$/,
    );
  });

  it("an entry for another bank in our file", () => {
    const text = buildInboundFile([
      { ...PAYROLL, entries: [{ code: "22", account_number: "1", amount_cents: 1, routing: "021000021" }] },
    ]);
    expectRefused(read(text), 3, /^receiving DFI 021000021 is not this credit union's routing number 501234566$/);
  });

  it("a file over the size limit", () => {
    const result = readInboundNachaFile(new Uint8Array(INBOUND_FILE_MAX_BYTES + 1).fill(0x39), EXPECT);
    expectRefused(result, 0, /^the file is 20,971,521 bytes; the largest accepted is 20,971,520$/);
  });

  it("an entry class, transaction code or addenda type it does not handle", () => {
    expectRefused(
      read(buildInboundFile([{ ...PAYROLL, sec: "XCK" }])),
      2,
      /^standard entry class "XCK" is not supported: PPD, CCD, CTX, WEB, TEL, ARC, BOC, POP, RCK, IAT, COR only$/,
    );
    expectRefused(
      read(
        buildInboundFile([
          { ...PAYROLL, service_class: "200", entries: [{ code: "42", account_number: "1", amount_cents: 1 }] },
        ]),
      ),
      3,
      /^transaction code 42 is not accepted/,
    );
    const text = buildInboundFile([PAYROLL]);
    expectRefused(
      read(replaceField(text, 5, 2, 3, "02")),
      5,
      /^addenda type "02" is not accepted \(05 payment information, 98 notification of change, 99 return\)$/,
    );
  });

  it("a debit in a credits-only batch; a prenote with money; a return without its addenda 99", () => {
    expectRefused(
      read(buildInboundFile([{ ...PAYROLL, entries: [{ code: "27", account_number: "1", amount_cents: 5 }] }])),
      3,
      /^transaction code 27 is a debit in a credits-only batch/,
    );
    expectRefused(
      read(
        buildInboundFile([
          { ...PAYROLL, service_class: "200", entries: [{ code: "23", account_number: "1", amount_cents: 5 }] },
        ]),
      ),
      3,
      /^a prenote \(transaction code 23\) has a zero amount/,
    );
    expectRefused(
      read(
        buildInboundFile([
          { ...PAYROLL, service_class: "200", entries: [{ code: "21", account_number: "1", amount_cents: 5 }] },
        ]),
      ),
      3,
      /^transaction code 21 is a return and needs an addenda type 99$/,
    );
  });

  it("addenda that do not match their entry", () => {
    const text = buildInboundFile([PAYROLL]);
    expectRefused(
      read(replaceField(text, 5, 88, 94, "0000009")),
      5,
      /^entry detail sequence number 0000009 is not the last seven digits/,
    );
    expectRefused(
      read(replaceField(text, 4, 79, 79, "0")),
      5,
      /^an addenda record follows an entry whose addenda record indicator is 0$/,
    );
  });

  it("letters in a numeric field; records in the wrong order; junk after the file control", () => {
    const text = good();
    expectRefused(read(replaceField(text, 3, 30, 39, "00000ABCDE")), 3, /^amount \(columns 30-39\) must be digits/);
    const lines = text.slice(0, -1).split("\n");
    expectRefused(
      read(`${[lines[1], lines[0], ...lines.slice(2)].join("\n")}\n`),
      1,
      /^the first record must be a file header \(type 1\), not type 5$/,
    );
    const padded = buildInboundFile([PAYROLL]).slice(0, -1).split("\n");
    const padding = padded.findIndex((l) => l === "9".repeat(94));
    padded[padding] = `1${"0".repeat(93)}`;
    expectRefused(
      read(`${padded.join("\n")}\n`),
      padding + 1,
      /^after the file control only padding records of nines may follow$/,
    );
  });

  it("a trace number used twice in one file", () => {
    const text = good();
    const batch2_entry = lineOf(text, "6", lineOf(text, "5", 2));
    const fixed = replaceField(
      replaceField(text, batch2_entry, 80, 94, "091000010000001"),
      batch2_entry - 1,
      80,
      87,
      "09100001",
    );
    const control = lineOf(fixed, "8", batch2_entry);
    expectRefused(
      read(replaceField(fixed, control, 80, 87, "09100001")),
      batch2_entry,
      /^trace number 091000010000001 appears twice in the file$/,
    );
  });
});

describe("the return file", () => {
  const original = (code: string, trace: string, amount_cents: number): ReturnItem["original"] => ({
    company_name: "ACME PAYROLL",
    company_discretionary_data: "",
    company_id: "1987654321",
    sec_code: "PPD",
    entry_description: "PAYROLL",
    transaction_code: code,
    account_number: "4000000009",
    amount_cents,
    individual_id: "EMP009",
    individual_name: "NO SUCH PERSON",
    trace_number: trace,
  });

  it("is read back by the independent reader: codes lowered by one, addenda 99 with reason and original trace, controls right", () => {
    const file = writeReturnFile({
      ...RETURN_FILE_HEADER,
      returns: [
        { reason_code: "R03", original: original("22", "091000010000007", 250_000), trace_sequence: 2 },
        {
          reason_code: "R01",
          original: {
            ...original("27", "026009590000003", 8_842),
            company_name: "CITY POWER",
            company_id: "9555444333",
            sec_code: "CCD",
          },
          trace_sequence: 3,
        },
        { reason_code: "R16", original: original("32", "091000010000008", 100), trace_sequence: 1 },
      ],
    });
    const read = readNachaFile(file.text, { returns: true });
    expect(read.header.immediate_destination).toBe("011000015");
    expect(read.header.immediate_origin).toBe(OUR_ROUTING);
    expect(
      read.batches.map((b) => [
        b.company_name,
        b.sec_code,
        b.service_class_code,
        b.odfi,
        b.entries.map((e) => [
          e.transaction_code,
          e.rdfi + e.check_digit,
          e.account_number,
          e.amount_cents,
          e.trace_number,
          e.addenda[0]!.type,
          e.addenda[0]!.text,
        ]),
      ]),
    ).toEqual([
      [
        "ACME PAYROLL",
        "PPD",
        "220",
        "50123456",
        [
          [
            "31",
            "091000019",
            "4000000009",
            100,
            "501234560000001",
            "99",
            `R16091000010000008      50123456${" ".repeat(44)}`.trimEnd(),
          ],
          ["21", "091000019", "4000000009", 250_000, "501234560000002", "99", `R03091000010000007      50123456`],
        ],
      ],
      [
        "CITY POWER",
        "CCD",
        "225",
        "50123456",
        [["26", "026009593", "4000000009", 8_842, "501234560000003", "99", "R01026009590000003      50123456"]],
      ],
    ]);
    expect({ credit: read.control.credit_cents, debit: read.control.debit_cents }).toEqual({
      credit: 250_100,
      debit: 8_842,
    });
    expect({ credit: file.credit_total_cents, debit: file.debit_total_cents, entries: file.entry_count }).toEqual({
      credit: 250_100,
      debit: 8_842,
      entries: 3,
    });
    expect(file.trace_numbers).toEqual(["501234560000002", "501234560000003", "501234560000001"]);
  });

  it("names the four reasons the credit union returns for", () => {
    expect([RETURN_REASONS.R01, RETURN_REASONS.R02, RETURN_REASONS.R03, RETURN_REASONS.R16]).toEqual([
      "Insufficient funds",
      "Account closed",
      "No account or unable to locate account",
      "Account frozen",
    ]);
  });
});
