import { describe, expect, it } from "vitest";
import { iatAddressParts, iatScreenedParties } from "~/domain/nacha/iat";
import { writeReturnFile } from "~/domain/nacha/return-file";
import {
  buildInboundFile,
  lineOf,
  OUR_ROUTING,
  replaceField,
  RETURN_FILE_HEADER,
  type BuildBatch,
} from "./nacha-inbound-builder";
import { readNachaFile } from "./nacha-reader";
import { accepted, expectRefused, read } from "./nacha-inbound-reading";

/**
 * International ACH transactions (IAT, app/domain/nacha/iat.ts, docs/product.md#iat-entries):
 * the batch header's exchange fields, the entry's own columns and its seven mandatory addenda (10
 * to 16) with every party, read from files written column by column from the Nacha layout by
 * nacha-inbound-builder.ts (which shares no code with the app). A file breaking an IAT rule is
 * refused with its line.
 */

const IAT: BuildBatch = {
  company_name: "",
  company_id: "GB12345678",
  sec: "IAT",
  description: "REMITTANCE",
  odfi: "02100002",
  service_class: "220",
  entries: [
    {
      code: "22",
      account_number: "1234567890",
      amount_cents: 125_000,
      name: "Jordan Morgan",
      id: "MEMBER 42",
      iat: {
        originator_name: "Hartley Trading Ltd",
        originator_street: "12 King Street",
        originator_city: "London",
        originator_country: "GB",
        originator_postal: "EC2V 7HH",
        odfi_name: "Barclays Bank PLC",
        odfi_bic: "BARCGB22",
        odfi_country: "GB",
        foreign_amount: 98_765,
        remittance: ["INVOICE 2026-114", "THANK YOU"],
        correspondents: [{ name: "Citibank NA", bic: "CITIUS33", country: "US" }],
      },
    },
  ],
};

describe("IAT entries: the layout read", () => {
  it("reads the batch header, the entry and its addenda 10 to 18", () => {
    const file = accepted(buildInboundFile([IAT]));
    const batch = file.batches[0]!;
    expect(batch.sec_code).toBe("IAT");
    expect(batch.company_id).toBe("GB12345678");
    expect(batch.entry_description).toBe("REMITTANCE");
    expect(batch.iat).toEqual({
      foreign_exchange_indicator: "FV",
      foreign_exchange_reference_indicator: "3",
      foreign_exchange_reference: "",
      iso_destination_country: "US",
      iso_originating_currency: "GBP",
      iso_destination_currency: "USD",
    });
    const entry = batch.entries[0]!;
    expect(entry).toMatchObject({
      kind: "credit",
      account_number: "1234567890",
      amount_cents: 125_000,
      individual_name: "JORDAN MORGAN",
      individual_id: "MEMBER 42",
      payment_information: "INVOICE 2026-114 THANK YOU",
    });
    expect(entry.iat).toMatchObject({
      transaction_type: "REM",
      foreign_payment_amount: "000000000000098765",
      originator: {
        name: "HARTLEY TRADING LTD",
        street: "12 KING STREET",
        city: "LONDON",
        country: "GB",
        postal_code: "EC2V 7HH",
      },
      receiver: {
        name: "JORDAN MORGAN",
        identification: "MEMBER 42",
        street: "400 HARBOR WAY",
        city: "PORTLAND, ME",
        country: "US",
        postal_code: "04101",
      },
      odfi: { name: "BARCLAYS BANK PLC", qualifier: "02", identification: "BARCGB22", country: "GB" },
      rdfi: { name: "HARBORVIEW COMMUNITY CU", qualifier: "01", identification: OUR_ROUTING, country: "US" },
      correspondents: [{ name: "CITIBANK NA", qualifier: "02", identification: "CITIUS33", country: "US" }],
      remittance: ["INVOICE 2026-114", "THANK YOU"],
    });
    expect(entry.iat!.addenda_records).toHaveLength(10);
    expect(entry.iat!.addenda_records.map((r) => r.slice(1, 3))).toEqual([
      "10",
      "11",
      "12",
      "13",
      "14",
      "15",
      "16",
      "17",
      "17",
      "18",
    ]);
    expect(file.addenda_count).toBe(10);
    expect(file.credit_total_cents).toBe(125_000);
  });

  it("names every party for the screening", () => {
    const entry = accepted(buildInboundFile([IAT])).batches[0]!.entries[0]!;
    expect(iatScreenedParties(entry.iat!)).toEqual([
      { role: "Originator", name: "HARTLEY TRADING LTD", country: "GB" },
      { role: "Receiver", name: "JORDAN MORGAN", country: "US" },
      { role: "Originating bank", name: "BARCLAYS BANK PLC", country: "GB" },
      { role: "Receiving bank", name: "HARBORVIEW COMMUNITY CU", country: "US" },
      { role: "Correspondent bank", name: "CITIBANK NA", country: "US" },
    ]);
  });

  it("reads an IAT batch beside a PPD batch, and debits", () => {
    const file = accepted(
      buildInboundFile([
        { company_name: "Acme", entries: [{ code: "22", account_number: "55", amount_cents: 100 }] },
        {
          ...IAT,
          service_class: "200",
          entries: [{ code: "27", account_number: "77", amount_cents: 900, iat: { originator_name: "Maple Hydro" } }],
        },
      ]),
    );
    expect(file.batches.map((b) => b.sec_code)).toEqual(["PPD", "IAT"]);
    expect(file.batches[1]!.entries[0]!).toMatchObject({ kind: "debit", amount_cents: 900 });
    expect(file.batches[0]!.entries[0]!.iat).toBeNull();
  });

  it("splits the address fields at their asterisk and backslash", () => {
    expect(iatAddressParts("LONDON*\\")).toEqual(["LONDON", ""]);
    expect(iatAddressParts("GB*SW1A 1AA\\   ")).toEqual(["GB", "SW1A 1AA"]);
    expect(iatAddressParts("TORONTO*ON\\")).toEqual(["TORONTO", "ON"]);
    expect(iatAddressParts("PARIS")).toEqual(["PARIS", ""]);
  });
});

describe("IAT entries: the rules, each refusing the file with its line", () => {
  it("a missing mandatory addenda", () => {
    const text = buildInboundFile([
      { ...IAT, entries: [{ ...IAT.entries[0]!, iat: { originator_name: "Hartley", only_addenda: 5 } }] },
    ]);
    expectRefused(
      read(text),
      lineOf(text, "6"),
      /^an IAT entry carries the seven addenda 10 to 16; this one has only up to 14$/,
    );
  });

  it("addenda out of order", () => {
    const text = buildInboundFile([IAT]);
    const line = lineOf(text, "712");
    expectRefused(read(replaceField(text, line, 2, 3, "13")), line, /^an IAT entry's addenda 12 is missing/);
  });

  it("a count of addenda that is not the entry's", () => {
    const text = buildInboundFile([IAT]);
    const line = lineOf(text, "6");
    expectRefused(
      read(replaceField(text, line, 13, 16, "0007")),
      line,
      /^number of addenda records \(columns 13-16\) is 7, the entry has 10$/,
    );
  });

  it("an addenda of another entry", () => {
    const text = buildInboundFile([IAT]);
    const line = lineOf(text, "714");
    expectRefused(read(replaceField(text, line, 88, 94, "0000099")), line, /^entry detail sequence number 0000099/);
  });

  it("a blank originator", () => {
    const text = buildInboundFile([IAT]);
    const line = lineOf(text, "711");
    expectRefused(read(replaceField(text, line, 4, 38, " ".repeat(35))), line, /^the originator's name/);
  });

  it("a foreign exchange indicator, country or currency not received here", () => {
    const fx = buildInboundFile([{ ...IAT, iat_header: { fx: "XX" } }]);
    expectRefused(read(fx), 2, /^foreign exchange indicator \(columns 21-22\) must be FV, VF or FF/);
    const country = buildInboundFile([{ ...IAT, iat_header: { destination_country: "CA" } }]);
    expectRefused(read(country), 2, /^ISO destination country code \(columns 39-40\) is "CA"/);
    const currency = buildInboundFile([{ ...IAT, iat_header: { destination_currency: "CAD" } }]);
    expectRefused(read(currency), 2, /^ISO destination currency code \(columns 67-69\) is "CAD"/);
  });

  it("an IAT return (the credit union sends no IAT)", () => {
    const text = buildInboundFile([{ ...IAT, entries: [{ ...IAT.entries[0]!, code: "21" }] }]);
    expectRefused(
      read(text),
      lineOf(text, "6"),
      /the credit union sends no IAT entries, so it receives no IAT returns$/,
    );
  });

  it("a third addenda 17", () => {
    const text = buildInboundFile([
      { ...IAT, entries: [{ ...IAT.entries[0]!, iat: { originator_name: "H", remittance: ["A", "B", "C"] } }] },
    ]);
    expectRefused(read(text), lineOf(text, "717") + 2, /^an IAT entry has at most 2 addenda 17$/);
  });
});

describe("IAT returns: written in the IAT layout", () => {
  it("the independent reader reads the builder's IAT file as the app does", () => {
    const read = readNachaFile(buildInboundFile([IAT]), { inbound: true });
    expect(read.batches[0]!.iat).toMatchObject({ foreign_exchange_indicator: "FV", destination_country: "US" });
    expect(read.batches[0]!.entries[0]!).toMatchObject({ account_number: "1234567890", amount_cents: 125_000 });
    expect(read.batches[0]!.entries[0]!.addenda.map((a) => a.type)).toEqual([
      "10",
      "11",
      "12",
      "13",
      "14",
      "15",
      "16",
      "17",
      "17",
      "18",
    ]);
  });

  it("a returned IAT credit goes back with its batch header's exchange fields, its seven addenda and the IAT addenda 99", () => {
    const file = accepted(buildInboundFile([IAT]));
    const batch = file.batches[0]!;
    const entry = batch.entries[0]!;
    const written = writeReturnFile({
      ...RETURN_FILE_HEADER,
      returns: [
        {
          reason_code: "R03",
          trace_sequence: 42,
          original: {
            company_name: entry.iat!.originator.name,
            company_discretionary_data: "",
            company_id: batch.company_id,
            sec_code: "IAT",
            entry_description: batch.entry_description,
            transaction_code: entry.transaction_code,
            account_number: entry.account_number,
            amount_cents: entry.amount_cents,
            individual_id: entry.individual_id,
            individual_name: entry.individual_name,
            trace_number: entry.trace_number,
            iat: entry.iat,
          },
        },
      ],
    });
    const read = readNachaFile(written.text, { returns: true });
    const [returned] = read.batches;
    expect(returned!.sec_code).toBe("IAT");
    expect(returned!.company_id).toBe("GB12345678");
    expect(returned!.iat).toEqual({
      foreign_exchange_indicator: "FV",
      foreign_exchange_reference_indicator: "3",
      foreign_exchange_reference: "",
      destination_country: "US",
      originating_currency: "GBP",
      destination_currency: "USD",
    });
    const back = returned!.entries[0]!;
    expect(back).toMatchObject({
      transaction_code: "21",
      rdfi: "02100002",
      account_number: "1234567890",
      amount_cents: 125_000,
      trace_number: `${OUR_ROUTING.slice(0, 8)}0000042`,
      iat_addenda_count: 8,
    });
    expect(back.addenda.map((a) => a.type)).toEqual(["10", "11", "12", "13", "14", "15", "16", "99"]);
    // The parties as received, now under the return's entry sequence number.
    expect(back.addenda[1]!.text).toMatch(/^HARTLEY TRADING LTD\s+12 KING STREET$/);
    expect(back.addenda.slice(0, 7).every((a) => a.entry_sequence === "0000042")).toBe(true);
    expect(back.addenda[7]!.text).toMatch(
      new RegExp(`^R03${entry.trace_number} {6}${OUR_ROUTING.slice(0, 8)}0000125000`),
    );
    expect(read.control.entry_addenda_count).toBe(9);
  });
});
