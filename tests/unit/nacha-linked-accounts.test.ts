import { describe, expect, it } from "vitest";
import { writeNachaFile, type NachaCredit, type NachaFileInput } from "~/domain/nacha";
import { MICRO_ENTRY_DESCRIPTION } from "~/domain/linked-accounts";
import { readNachaFile } from "./nacha-reader";

/**
 * The entries of linked accounts (docs/product.md#linked-accounts) in an outgoing NACHA file: two
 * micro-deposit credits with the debit taking them back (one mixed batch, ACCTVERIFY), and WEB
 * debits pulling money in, beside the usual PPD credits; each file read by the independent reader.
 */
const BASE: Omit<NachaFileInput, "credits"> = {
  origin: { routing_number: "501234566", name: "Harborview Community Credit Union" },
  destination: { routing_number: "011000015", name: "Federal Reserve Bank" },
  company: { name: "Harborview CU", identification: "1990000001", entry_description: "TRANSFER" },
  created: { date: "2026-11-24", time: "10:30" },
  file_id_modifier: "A",
};
const CHASE = "021000021";
const WELLS = "121000248";

function entry(over: Partial<NachaCredit> & Pick<NachaCredit, "trace_sequence">): NachaCredit {
  return {
    effective_date: "2026-11-25",
    routing_number: CHASE,
    account_number: "123456789",
    account_type: "checking",
    amount_cents: 100_00,
    individual_id: `MU${String(over.trace_sequence).padStart(8, "0")}`,
    individual_name: "Jordan Morgan",
    ...over,
  };
}

const micro = (trace: number, amount_cents: number, debit = false, account_type: "checking" | "savings" = "savings") =>
  entry({
    trace_sequence: trace,
    amount_cents,
    debit,
    account_type,
    routing_number: WELLS,
    sec_code: "WEB",
    entry_description: MICRO_ENTRY_DESCRIPTION,
  });

describe("NACHA writer: linked accounts", () => {
  const file = writeNachaFile({
    ...BASE,
    credits: [
      entry({ trace_sequence: 1, amount_cents: 250_00 }),
      micro(2, 12),
      micro(3, 34),
      micro(4, 46, true),
      entry({ trace_sequence: 5, amount_cents: 75_00, debit: true, sec_code: "WEB", payment_information: "Pull" }),
      entry({ trace_sequence: 6, amount_cents: 20_00, debit: true, sec_code: "WEB", account_type: "savings" }),
    ],
  });
  const read = readNachaFile(file.text);

  it("passes the independent reader, each kind in its own batch", () => {
    expect(read.batches.map((b) => [b.service_class_code, b.sec_code, b.entry_description])).toEqual([
      ["220", "PPD", "TRANSFER"],
      ["200", "WEB", "ACCTVERIFY"],
      ["225", "WEB", "TRANSFER"],
    ]);
  });

  it("writes the micro-deposits as credits and their sum back as one debit", () => {
    const batch = read.batches[1]!;
    expect(batch.entries.map((e) => [e.transaction_code, e.amount_cents])).toEqual([
      ["32", 12],
      ["32", 34],
      ["37", 46],
    ]);
    expect(batch.control.credit_cents).toBe(46);
    expect(batch.control.debit_cents).toBe(46);
  });

  it("marks WEB entries as single payments and totals the debits in the file control", () => {
    const pulls = read.batches[2]!;
    expect(pulls.entries.map((e) => [e.transaction_code, e.discretionary_data])).toEqual([
      ["27", "S "],
      ["37", "S "],
    ]);
    expect(read.control.debit_cents).toBe(46 + 95_00);
    expect(read.control.credit_cents).toBe(250_00 + 46);
    expect(file.debit_total_cents).toBe(read.control.debit_cents);
    expect(file.credit_total_cents).toBe(read.control.credit_cents);
    expect(read.batches[0]!.entries[0]!.discretionary_data).toBe("  ");
  });
});
