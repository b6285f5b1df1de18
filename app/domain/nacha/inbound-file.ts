import type { IatBatch, IatDetails } from "./iat";

/**
 * What an inbound NACHA file reads as (reader.ts reads it): the file, its batches and entries, and
 * the transaction codes and entry classes the credit union receives, with the rules of each.
 */

/** Largest inbound file: 100,000 entries each with an addenda record is about 19 MB. */
export const INBOUND_FILE_MAX_BYTES = 20 * 1024 * 1024;

export type InboundEntryKind = "credit" | "debit" | "prenote" | "return" | "noc";

/** Transaction code to what it asks and of which account type. */
export const INBOUND_TRANSACTION_CODES: Record<string, { kind: InboundEntryKind; account: "checking" | "savings" }> = {
  "22": { kind: "credit", account: "checking" },
  "32": { kind: "credit", account: "savings" },
  "27": { kind: "debit", account: "checking" },
  "37": { kind: "debit", account: "savings" },
  "23": { kind: "prenote", account: "checking" },
  "28": { kind: "prenote", account: "checking" },
  "33": { kind: "prenote", account: "savings" },
  "38": { kind: "prenote", account: "savings" },
  "21": { kind: "return", account: "checking" },
  "26": { kind: "return", account: "checking" },
  "31": { kind: "return", account: "savings" },
  "36": { kind: "return", account: "savings" },
};

export interface EntryClass {
  /** Most addenda 05 an entry may carry. */
  addenda_max: number;
  /** Only debits with money (27, 37): the converted checks. */
  debits_only?: boolean;
  /** Largest amount one entry may carry. */
  amount_max_cents?: number;
  /** Where the check serial number is: columns 40-54 (ARC, BOC, RCK) or 40-48 (POP). */
  check_serial?: "40-54" | "40-48";
  /** The company entry description NACHA fixes for the class. */
  description?: string;
}

/**
 * The entry classes posted, with NACHA's rules for each. The layout of every one is the PPD
 * entry's, except CTX (columns 55-58 hold the entry's addenda count, 59-74 the receiving company)
 * and POP (columns 40-54 hold the check serial number, the terminal's city and state). TEL
 * carries credits only in a batch described REVERSAL (read below).
 */
export const ENTRY_CLASSES: Record<string, EntryClass> = {
  PPD: { addenda_max: 1 },
  CCD: { addenda_max: 1 },
  CTX: { addenda_max: 9_999 },
  WEB: { addenda_max: 1 },
  TEL: { addenda_max: 0 },
  ARC: { addenda_max: 0, debits_only: true, amount_max_cents: 2_500_000, check_serial: "40-54" },
  BOC: { addenda_max: 0, debits_only: true, amount_max_cents: 2_500_000, check_serial: "40-54" },
  POP: { addenda_max: 0, debits_only: true, amount_max_cents: 2_500_000, check_serial: "40-48" },
  RCK: {
    addenda_max: 0,
    debits_only: true,
    amount_max_cents: 250_000,
    check_serial: "40-54",
    description: "REDEPCHECK",
  },
  // International: seven mandatory addenda, up to two 17 and five 18 (./iat.ts).
  IAT: { addenda_max: 14 },
};
/** Every class the reader accepts: the posted ones and COR (notifications of change). */
export const ACCEPTED_SEC_CODES: readonly string[] = [...Object.keys(ENTRY_CLASSES), "COR"];
/** Classes a file may hold that the credit union cannot process, named in the refusal. */
export const UNSUPPORTED_CLASSES: Record<string, string> = {};
export const SERVICE_CLASSES = { "200": "mixed", "220": "credits", "225": "debits" } as const;

export interface InboundReturnInfo {
  /** R01, R02, ... */
  reason_code: string;
  /** The trace number of the credit union's entry being returned. */
  original_trace_number: string;
  original_rdfi: string;
  information: string;
}

export interface InboundEntry {
  /** 1-based line of the entry record in the file. */
  line: number;
  transaction_code: string;
  kind: InboundEntryKind;
  account_type: "checking" | "savings";
  /** Nine digits: the receiving DFI's eight and the check digit. */
  routing_number: string;
  account_number: string;
  amount_cents: number;
  individual_id: string;
  individual_name: string;
  trace_number: string;
  /** Addenda 05's text, when there is one. */
  payment_information: string | null;
  /** Addenda 99 of a return. */
  return_info: InboundReturnInfo | null;
  /** Addenda 98 of a notification of change (COR batch). */
  change: InboundChange | null;
  /** ARC, BOC, POP, RCK: the number of the check the entry was converted from. */
  check_serial_number: string | null;
  /** WEB and TEL: R recurring, S single, ST standing authorization (columns 77-78, as sent). */
  payment_type_code: string | null;
  /** An IAT entry: its batch header's exchange fields and its addenda 10 to 18. */
  iat: IatDetails | null;
}

export interface InboundChange {
  /** C01 to C09, C13, C14. */
  change_code: string;
  /** The trace number of the credit union's entry the change is about. */
  original_trace_number: string;
  original_rdfi: string;
  /** As the receiving bank wrote it (columns 36-64), trailing spaces trimmed. */
  corrected_data: string;
}

export interface InboundBatch {
  line: number;
  batch_number: number;
  service_class_code: string;
  company_name: string;
  company_discretionary_data: string;
  company_id: string;
  sec_code: string;
  entry_description: string;
  /** YYYY-MM-DD. */
  effective_date: string;
  /** The originating bank's eight routing digits. */
  odfi: string;
  entries: InboundEntry[];
  /** An IAT batch: what its header says of the exchange. */
  iat: IatBatch | null;
}

export interface InboundFile {
  immediate_destination: string;
  immediate_origin: string;
  origin_name: string;
  /** YYYY-MM-DD and HH:MM. */
  created_date: string;
  created_time: string;
  file_id_modifier: string;
  batches: InboundBatch[];
  entry_count: number;
  addenda_count: number;
  credit_total_cents: number;
  debit_total_cents: number;
}

export type ReadInboundResult =
  { ok: true; file: InboundFile } | { ok: false; line: number; rule: string; message: string };
