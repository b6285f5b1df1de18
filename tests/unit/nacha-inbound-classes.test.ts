import { describe, expect, it } from "vitest";
import { parseCorrectedData } from "~/domain/nacha/change";
import { writeReturnFile, type ReturnItem } from "~/domain/nacha/return-file";
import { buildInboundFile, lineOf, replaceField, RETURN_FILE_HEADER, type BuildBatch } from "./nacha-inbound-builder";
import { readNachaFile } from "./nacha-reader";
import { accepted, expectRefused, read } from "./nacha-inbound-reading";

/**
 * The entry classes a Federal Reserve file holds besides PPD and CCD (app/domain/nacha/reader.ts,
 * docs/product.md#ach-in): WEB, TEL, the converted checks ARC, BOC, POP, RCK, CTX with its many
 * addenda, and notifications of change (COR, addenda 98); each class's own NACHA rules refuse the
 * file with the line; IAT is read in its own layout (nacha-iat.test.ts). Files are built by nacha-inbound-builder.ts, which
 * shares no code with the app.
 */

const WEB: BuildBatch = {
  company_name: "Streamly",
  sec: "WEB",
  description: "ONLINE PMT",
  service_class: "225",
  entries: [
    {
      code: "27",
      account_number: "4000000001",
      amount_cents: 1_599,
      name: "Jordan Morgan",
      id: "SUB-88",
      discretionary: "R",
      info: "MONTHLY PLAN",
    },
  ],
};
const TEL: BuildBatch = {
  company_name: "Gas Co",
  sec: "TEL",
  description: "PHONE PMT",
  service_class: "225",
  entries: [{ code: "27", account_number: "4000000001", amount_cents: 7_000, discretionary: "S" }],
};
const ARC: BuildBatch = {
  company_name: "City Water",
  sec: "ARC",
  description: "WATER BILL",
  service_class: "225",
  entries: [{ code: "27", account_number: "4000000001", amount_cents: 4_210, id: "1042" }],
};
const BOC: BuildBatch = {
  company_name: "Hardware Mart",
  sec: "BOC",
  description: "CHECK PMT",
  service_class: "225",
  entries: [{ code: "37", account_number: "4000000002", amount_cents: 2_000, id: "7" }],
};
// POP: check serial 40-48, terminal city 49-52, state 53-54.
const POP: BuildBatch = {
  company_name: "Corner Grocer",
  sec: "POP",
  description: "PURCHASE",
  service_class: "225",
  entries: [{ code: "27", account_number: "4000000001", amount_cents: 3_333, id: "555      PORTME" }],
};
const RCK: BuildBatch = {
  company_name: "Collect Inc",
  sec: "RCK",
  description: "REDEPCHECK",
  service_class: "225",
  entries: [{ code: "27", account_number: "4000000001", amount_cents: 12_500, id: "3021" }],
};
const CTX: BuildBatch = {
  company_name: "Big Buyer",
  sec: "CTX",
  description: "INVOICES",
  service_class: "220",
  entries: [
    {
      code: "22",
      account_number: "4000000003",
      amount_cents: 990_000,
      name: "Lee Park Studio",
      id: "VENDOR-12",
      info: "ISA*00*",
      more_info: ["GS*RA*", "ST*820*0001~"],
    },
  ],
};
const COR: BuildBatch = {
  company_name: "Harborview CU",
  company_id: "1501234566",
  sec: "COR",
  description: "TRANSFER",
  odfi: "02100002",
  service_class: "220",
  entries: [
    {
      code: "21",
      account_number: "123456789",
      amount_cents: 0,
      name: "Lee Park",
      change_of: { code: "C01", original_trace: "501234560000004", corrected: "987654321" },
    },
  ],
};

describe("the entry classes of a Federal Reserve file", () => {
  it("reads one file holding WEB, TEL, ARC, BOC, POP, RCK, CTX and COR batches, each entry as its class lays it out", () => {
    const file = accepted(buildInboundFile([WEB, TEL, ARC, BOC, POP, RCK, CTX, COR]));
    expect(file.batches.map((b) => b.sec_code)).toEqual(["WEB", "TEL", "ARC", "BOC", "POP", "RCK", "CTX", "COR"]);
    const entries = file.batches.map((b) => b.entries[0]!);
    expect(entries.map((e) => [e.kind, e.amount_cents, e.check_serial_number, e.payment_type_code])).toEqual([
      ["debit", 1_599, null, "R"],
      ["debit", 7_000, null, "S"],
      ["debit", 4_210, "1042", null],
      ["debit", 2_000, "7", null],
      ["debit", 3_333, "555", null],
      ["debit", 12_500, "3021", null],
      ["credit", 990_000, null, null],
      ["noc", 0, null, null],
    ]);
    expect(entries[0]!.payment_information).toBe("MONTHLY PLAN");
    // CTX: the receiving company from columns 59-74, every addenda's text in order.
    expect([entries[6]!.individual_name, entries[6]!.individual_id, entries[6]!.payment_information]).toEqual([
      "LEE PARK STUDIO",
      "VENDOR-12",
      "ISA*00* GS*RA* ST*820*0001~",
    ]);
    expect(entries[7]!.change).toEqual({
      change_code: "C01",
      original_trace_number: "501234560000004",
      original_rdfi: "50123456",
      corrected_data: "987654321",
    });
    expect({
      entries: file.entry_count,
      addenda: file.addenda_count,
      debits: file.debit_total_cents,
      credits: file.credit_total_cents,
    }).toEqual({
      entries: 8,
      addenda: 5,
      debits: 1_599 + 7_000 + 4_210 + 2_000 + 3_333 + 12_500,
      credits: 990_000,
    });
    // The builder's file is one the independent reader accepts too (counts, hashes, blocks).
    expect(readNachaFile(buildInboundFile([WEB, ARC, CTX]), { inbound: true }).batches).toHaveLength(3);
  });

  it("a TEL batch described REVERSAL may hold credits; a WEB batch holds credits and debits", () => {
    expect(
      accepted(
        buildInboundFile([
          {
            ...TEL,
            description: "REVERSAL",
            service_class: "200",
            entries: [{ code: "22", account_number: "4000000001", amount_cents: 7_000 }],
          },
        ]),
      ).credit_total_cents,
    ).toBe(7_000);
    expect(
      accepted(
        buildInboundFile([
          {
            ...WEB,
            service_class: "200",
            entries: [{ code: "22", account_number: "4000000001", amount_cents: 2_500, discretionary: "S" }],
          },
        ]),
      ).credit_total_cents,
    ).toBe(2_500);
  });
});

describe("each class's own rules refuse the file, naming the line", () => {
  it("a converted check (ARC, BOC, POP, RCK) is a debit: a credit, a prenote or a credits-only batch is refused", () => {
    expectRefused(
      read(
        buildInboundFile([
          { ...ARC, service_class: "200", entries: [{ code: "22", account_number: "1", amount_cents: 5, id: "1" }] },
        ]),
      ),
      3,
      /^transaction code 22 is not a debit: ARC entries \(converted checks\) are debits of 27 or 37$/,
    );
    expectRefused(
      read(buildInboundFile([{ ...POP, entries: [{ code: "28", account_number: "1", amount_cents: 0, id: "1" }] }])),
      3,
      /^transaction code 28 is not a debit: POP entries/,
    );
    expectRefused(
      read(buildInboundFile([{ ...BOC, service_class: "220" }])),
      2,
      /^BOC batches hold debits \(converted checks\): service class 220 \(credits only\) is not allowed$/,
    );
  });

  it("a TEL credit outside a REVERSAL batch", () => {
    expectRefused(
      read(
        buildInboundFile([
          { ...TEL, service_class: "200", entries: [{ code: "32", account_number: "1", amount_cents: 5 }] },
        ]),
      ),
      3,
      /^transaction code 32 is a credit: a TEL batch holds debits, credits only when its description is REVERSAL$/,
    );
  });

  it("a converted check without its check serial number, or over its class's amount", () => {
    expectRefused(
      read(buildInboundFile([{ ...ARC, entries: [{ code: "27", account_number: "1", amount_cents: 5, id: "" }] }])),
      3,
      /^the check serial number \(columns 40-54\) is blank: ARC entries name the check they were converted from$/,
    );
    expectRefused(
      read(
        buildInboundFile([
          { ...POP, entries: [{ code: "27", account_number: "1", amount_cents: 5, id: "         PORTME" }] },
        ]),
      ),
      3,
      /^the check serial number \(columns 40-48\) is blank/,
    );
    expectRefused(
      read(
        buildInboundFile([{ ...RCK, entries: [{ code: "27", account_number: "1", amount_cents: 250_001, id: "9" }] }]),
      ),
      3,
      /^RCK entries are at most 250000 cents, not 250001$/,
    );
    expectRefused(
      read(
        buildInboundFile([
          { ...BOC, entries: [{ code: "27", account_number: "1", amount_cents: 2_500_001, id: "9" }] },
        ]),
      ),
      3,
      /^BOC entries are at most 2500000 cents, not 2500001$/,
    );
    expect(
      accepted(
        buildInboundFile([
          { ...BOC, entries: [{ code: "27", account_number: "1", amount_cents: 2_500_000, id: "9" }] },
        ]),
      ).debit_total_cents,
    ).toBe(2_500_000);
  });

  it("an RCK batch not described REDEPCHECK", () => {
    expectRefused(
      read(buildInboundFile([{ ...RCK, description: "CHECK" }])),
      2,
      /^RCK batches are described REDEPCHECK, not "CHECK"$/,
    );
  });

  it("addenda counts per class: TEL and converted checks none, WEB one, CTX as many as columns 55-58 say", () => {
    expectRefused(
      read(
        buildInboundFile([{ ...TEL, entries: [{ code: "27", account_number: "1", amount_cents: 5, info: "NOTE" }] }]),
      ),
      3,
      /^TEL entries have no addenda record, not 1$/,
    );
    expectRefused(
      read(
        buildInboundFile([
          { ...ARC, entries: [{ code: "27", account_number: "1", amount_cents: 5, id: "1", info: "NOTE" }] },
        ]),
      ),
      3,
      /^ARC entries have no addenda record, not 1$/,
    );
    expectRefused(
      read(
        buildInboundFile([
          { ...WEB, entries: [{ code: "27", account_number: "1", amount_cents: 5, info: "A", more_info: ["B"] }] },
        ]),
      ),
      3,
      /^WEB entries have at most 1 addenda record, not 2$/,
    );
    expectRefused(
      read(buildInboundFile([{ ...CTX, entries: [{ ...CTX.entries[0]!, ctx_addenda_count: "0002" }] }])),
      3,
      /^number of addenda records \(columns 55-58\) is 2, the entry has 3$/,
    );
    expectRefused(
      read(buildInboundFile([{ ...CTX, entries: [{ ...CTX.entries[0]!, ctx_addenda_count: "00A3" }] }])),
      3,
      /^number of addenda records \(columns 55-58\) must be digits/,
    );
    // The addenda sequence numbers of a CTX entry count up from 1.
    const text = buildInboundFile([CTX]);
    expectRefused(read(replaceField(text, 6, 84, 87, "0002")), 6, /^addenda sequence number 2 is not 3$/);
  });

  it("a notification of change: only in a COR batch, zero amount, exactly one addenda 98 with a known change code", () => {
    const text = buildInboundFile([COR]);
    expect(accepted(text).batches[0]!.entries[0]!.kind).toBe("noc");
    expectRefused(
      read(buildInboundFile([{ ...COR, entries: [{ ...COR.entries[0]!, amount_cents: 100 }] }])),
      3,
      /^a notification of change has a zero amount, not 100 cents$/,
    );
    expectRefused(
      read(buildInboundFile([{ ...COR, entries: [{ code: "22", account_number: "1", amount_cents: 0 }] }])),
      3,
      /^transaction code 22 is not a notification of change: a COR batch holds 21, 26, 31 or 36 only$/,
    );
    expectRefused(
      read(buildInboundFile([{ ...COR, entries: [{ code: "21", account_number: "1", amount_cents: 0 }] }])),
      3,
      /^a notification of change \(transaction code 21\) needs an addenda type 98$/,
    );
    expectRefused(read(replaceField(text, 4, 4, 6, "C99")), 4, /^change code "C99" is not one of C01, C02/);
    expectRefused(
      read(replaceField(text, 4, 80, 94, "021000020000009")),
      4,
      /^the change addenda's trace number 021000020000009 is not its entry's 021000020000001$/,
    );
    // An addenda 98 after a PPD entry.
    const ppd = buildInboundFile([
      { ...COR, sec: "PPD", entries: [{ code: "22", account_number: "1", amount_cents: 5, info: "X" }] },
    ]);
    expectRefused(
      read(replaceField(ppd, 4, 2, 3, "98")),
      4,
      /^a notification of change addenda \(type 98\) belongs in a COR batch$/,
    );
  });

  it("a class no one sends here is refused by name", () => {
    const text = buildInboundFile([WEB, { ...WEB, sec: "XCK" }]);
    expectRefused(read(text), lineOf(text, "5", 2), /^standard entry class "XCK" is not supported: PPD, CCD/);
  });
});

describe("notifications of change: the corrected data by change code", () => {
  it("reads each code's columns", () => {
    expect(parseCorrectedData("C01", "12345678901")).toEqual({
      ok: true,
      corrected: { account_number: "12345678901" },
    });
    expect(parseCorrectedData("C02", "011000015")).toEqual({ ok: true, corrected: { routing_number: "011000015" } });
    expect(parseCorrectedData("C03", "011000015   55501")).toEqual({
      ok: true,
      corrected: { routing_number: "011000015", account_number: "55501" },
    });
    expect(parseCorrectedData("C05", "32")).toEqual({ ok: true, corrected: { account_type: "savings" } });
    expect(parseCorrectedData("C06", `${"777".padEnd(20)}32`)).toEqual({
      ok: true,
      corrected: { account_number: "777", account_type: "savings" },
    });
    expect(parseCorrectedData("C07", "011000015888              22")).toEqual({
      ok: true,
      corrected: { routing_number: "011000015", account_number: "888", account_type: "checking" },
    });
  });

  it("refuses data that does not fit, and codes that correct no destination", () => {
    expect(parseCorrectedData("C02", "011000016")).toEqual({
      ok: false,
      message: 'the corrected routing number "011000016" is not a routing number',
    });
    expect(parseCorrectedData("C01", "")).toEqual({ ok: false, message: "the corrected account number is blank" });
    expect(parseCorrectedData("C13", "anything").ok).toBe(false);
  });
});

describe("returns of the new classes", () => {
  const original = (sec_code: string, individual_id: string, individual_name: string): ReturnItem["original"] => ({
    company_name: "CORNER GROCER",
    company_discretionary_data: "",
    company_id: "1234567890",
    sec_code,
    entry_description: "PURCHASE",
    transaction_code: "27",
    account_number: "4000000009",
    amount_cents: 3_333,
    individual_id,
    individual_name,
    trace_number: "091000010000007",
  });

  it("keep POP's columns 40-54 as received and give a CTX return the addenda count 0001", () => {
    const file = writeReturnFile({
      ...RETURN_FILE_HEADER,
      returns: [
        { reason_code: "R01", original: original("POP", "555      PORTME", "JORDAN MORGAN"), trace_sequence: 1 },
        {
          reason_code: "R03",
          original: {
            ...original("CTX", "VENDOR-12", "LEE PARK STUDIO"),
            company_name: "BIG BUYER",
            transaction_code: "22",
          },
          trace_sequence: 2,
        },
      ],
    });
    const lines = file.text.split("\n");
    const pop = lines[2]!;
    expect(pop.slice(39, 54)).toBe("555      PORTME");
    expect(pop.slice(54, 76)).toBe("JORDAN MORGAN".padEnd(22));
    const ctx = lines[lineOf(file.text, "6", 5) - 1]!;
    expect(ctx.slice(54, 58)).toBe("0001");
    expect(ctx.slice(58, 74)).toBe("LEE PARK STUDIO ");
    expect(readNachaFile(file.text, { returns: true }).batches.map((b) => b.sec_code)).toEqual(["POP", "CTX"]);
  });
});
