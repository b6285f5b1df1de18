import { isValidRoutingNumber } from "~/domain/routing-number";
import { RECORD_LENGTH, type FieldLayout } from "./records";

/**
 * Notifications of change (NOC, pure): an entry the credit union sent posted at the receiving
 * bank, but some of its data was wrong; the bank sends a zero-amount entry in a COR batch with an
 * addenda type 98 saying what to change (the change code) and the corrected data, which must be
 * used from the next entry on (docs/product.md#ach-in).
 */

/** Record type 7, addenda type 98 (notification of change). */
export const CHANGE_ADDENDA = [
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "98" },
  { name: "change_code", start: 4, length: 3, kind: "AN" },
  { name: "original_entry_trace_number", start: 7, length: 15, kind: "N" },
  { name: "reserved", start: 22, length: 6, kind: "AN" },
  { name: "original_receiving_dfi_identification", start: 28, length: 8, kind: "N" },
  { name: "corrected_data", start: 36, length: 29, kind: "AN" },
  { name: "reserved_2", start: 65, length: 15, kind: "AN" },
  { name: "trace_number", start: 80, length: 15, kind: "N" },
] as const satisfies readonly FieldLayout[];

// The same self-check `records.ts` runs on its layouts: contiguous columns, 94 in all.
{
  let column = 1;
  for (const field of CHANGE_ADDENDA) {
    if (field.start !== column)
      throw new Error(`NACHA layout: ${field.name} starts at ${field.start}, expected ${column}`);
    column += field.length;
  }
  if (column !== RECORD_LENGTH + 1) throw new Error("NACHA change addenda layout is not 94 columns");
}

/** What each change code says is wrong, in the words staff read. */
export const CHANGE_CODES: Record<string, string> = {
  C01: "Incorrect account number",
  C02: "Incorrect routing number",
  C03: "Incorrect routing number and account number",
  C04: "Incorrect name",
  C05: "Incorrect account type (checking or savings)",
  C06: "Incorrect account number and account type",
  C07: "Incorrect routing number, account number and account type",
  C08: "Incorrect receiving bank (international)",
  C09: "Incorrect individual identification number",
  C13: "Addenda format error",
  C14: "Incorrect entry class for an international payment",
};

export function changeReason(code: string): string {
  return CHANGE_CODES[code] ?? `Change requested (${code})`;
}

export interface CorrectedData {
  routing_number?: string;
  account_number?: string;
  /** From a corrected transaction code: 2x checking, 3x savings. */
  account_type?: "checking" | "savings";
  name?: string;
  individual_id?: string;
}

export type ParsedCorrection = { ok: true; corrected: CorrectedData } | { ok: false; message: string };

function accountType(transaction_code: string): "checking" | "savings" | undefined {
  return /^2\d$/.test(transaction_code) ? "checking" : /^3\d$/.test(transaction_code) ? "savings" : undefined;
}

/**
 * The corrected data by its change code, at the columns NACHA fixes for each (1-based within
 * the 29-character field): C01 account 1-17; C02 routing 1-9; C03 routing 1-9, account 13-29;
 * C04 name 1-22; C05 transaction code 1-2; C06 account 1-17, transaction code 21-22; C07 routing
 * 1-9, account 10-26, transaction code 27-28; C09 identification 1-22. A routing number must pass
 * the ABA checksum; nothing is guessed from data that does not fit.
 */
export function parseCorrectedData(change_code: string, corrected_data: string): ParsedCorrection {
  const data = corrected_data.padEnd(29, " ");
  const at = (from: number, to: number) => data.slice(from - 1, to).trim();
  const out: CorrectedData = {};
  const routing = (value: string) => {
    if (!/^\d{9}$/.test(value) || !isValidRoutingNumber(value))
      return `the corrected routing number ${JSON.stringify(value)} is not a routing number`;
    out.routing_number = value;
    return null;
  };
  const account = (value: string) => {
    if (value === "") return "the corrected account number is blank";
    out.account_number = value;
    return null;
  };
  const type = (value: string) => {
    const t = accountType(value);
    if (!t) return `the corrected transaction code ${JSON.stringify(value)} is not a checking or savings one`;
    out.account_type = t;
    return null;
  };
  let error: string | null = null;
  switch (change_code) {
    case "C01":
      error = account(at(1, 17));
      break;
    case "C02":
      error = routing(at(1, 9));
      break;
    case "C03":
      error = routing(at(1, 9)) ?? account(at(13, 29));
      break;
    case "C04":
      out.name = at(1, 22);
      if (out.name === "") error = "the corrected name is blank";
      break;
    case "C05":
      error = type(at(1, 2));
      break;
    case "C06":
      error = account(at(1, 17)) ?? type(at(21, 22));
      break;
    case "C07":
      error = routing(at(1, 9)) ?? account(at(10, 26)) ?? type(at(27, 28));
      break;
    case "C09":
      out.individual_id = at(1, 22);
      if (out.individual_id === "") error = "the corrected identification number is blank";
      break;
    default:
      return { ok: false, message: `change code ${change_code} carries no correction to a payment's destination` };
  }
  return error ? { ok: false, message: error } : { ok: true, corrected: out };
}
