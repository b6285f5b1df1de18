import { isValidRoutingNumber } from "~/domain/routing-number";
import {
  ADDENDA,
  BATCH_CONTROL,
  BATCH_HEADER,
  BLOCKING_FACTOR,
  ENTRY_DETAIL,
  FILE_CONTROL,
  FILE_HEADER,
  NachaFieldError,
  PADDING_RECORD,
  formatRecord,
  nachaText,
  yymmdd,
} from "./records";

/**
 * Writes an outgoing NACHA file (pure): a file header, one batch per effective date, entry class
 * and entry description (PPD credits by default; WEB debits pulled from a member's linked account
 * and the ACCTVERIFY micro-entries that verify it, docs/product.md#linked-accounts), its service
 * class 220 (credits only), 225 (debits only) or 200 (both), the institution as ODFI, entries with trace numbers (the
 * ODFI's first eight routing digits and a seven-digit sequence, ascending in each batch), an
 * optional addenda 05 per entry, batch and file controls with the entry hash and totals, and
 * records of nines to a multiple of ten. Bad input throws `NachaFieldError` before any text is
 * made: a file a bank would refuse is never written.
 */

export const TRANSACTION_CODES = {
  checking_credit: 22,
  savings_credit: 32,
  checking_debit: 27,
  savings_debit: 37,
} as const;
const SERVICE_CLASS_MIXED = 200;
const SERVICE_CLASS_CREDITS_ONLY = 220;
const SERVICE_CLASS_DEBITS_ONLY = 225;
/** WEB entries carry a payment type code in the discretionary data: S, a single entry. */
const WEB_PAYMENT_TYPE_SINGLE = "S";
const ADDENDA_TYPE_PAYMENT_INFORMATION = 5;
const AMOUNT_CENTS_MAX = 9_999_999_999; // ten digits
const TRACE_SEQUENCE_MAX = 9_999_999; // seven digits
const FILE_ID_MODIFIERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

export interface NachaCredit {
  /** YYYY-MM-DD: the day the receiver's bank posts it; entries are batched by it. */
  effective_date: string;
  /** The receiver's bank (RDFI), nine digits with the ABA check digit. */
  routing_number: string;
  /** The receiver's account at that bank, at most 17 characters. */
  account_number: string;
  account_type: "checking" | "savings";
  amount_cents: number;
  /** Our reference for the payment (up to 15 characters), e.g. the member's reference number. */
  individual_id: string;
  /** The receiver's name (22 characters are kept). */
  individual_name: string;
  /** 1 to 9,999,999, unique in the file: the last seven digits of the trace number. */
  trace_sequence: number;
  /** Free text for the receiver (addenda 05, 80 characters kept); none when empty. */
  payment_information?: string;
  /** A debit (27 or 37) takes the amount from the receiver's account; a credit (the default) pays it in. */
  debit?: boolean;
  /** PPD (the default) or WEB: an entry the receiver authorized online (Nacha's WEB rules). */
  sec_code?: "PPD" | "WEB";
  /** The batch header's description when it is not the file's (ACCTVERIFY for micro-entries). */
  entry_description?: string;
}

/** Any entry of an outgoing file: most are credits, hence the name. */
export type NachaEntry = NachaCredit;

export interface NachaFileInput {
  /** The institution sending the file (the ODFI). */
  origin: { routing_number: string; name: string };
  /** Where the file goes (the ACH operator or correspondent). */
  destination: { routing_number: string; name: string };
  /** The originator named in each batch header. */
  company: { name: string; identification: string; entry_description: string };
  /** When the file is made, in the institution's time zone. */
  created: { date: string; time: string };
  /** A to Z, then 0 to 9: the file's number among those made that day. */
  file_id_modifier: string;
  reference_code?: string;
  credits: readonly NachaCredit[];
}

export interface NachaEntryWritten extends NachaCredit {
  trace_number: string;
  batch_number: number;
}

export interface NachaBatchWritten {
  batch_number: number;
  effective_date: string;
  sec_code: "PPD" | "WEB";
  entries: NachaEntryWritten[];
  /** The batch control's entry hash (ten digits). */
  entry_hash: string;
  credit_total_cents: number;
  debit_total_cents: number;
}

export interface NachaFile {
  text: string;
  batches: NachaBatchWritten[];
  entry_count: number;
  addenda_count: number;
  credit_total_cents: number;
  debit_total_cents: number;
  entry_hash: string;
  /** Records before padding. */
  record_count: number;
  block_count: number;
}

/** The rightmost ten digits of the sum of the 8-digit receiving DFI ids. */
export function entryHash(routing_numbers: Iterable<string>): string {
  let sum = 0n;
  for (const routing of routing_numbers) sum += BigInt(routing.slice(0, 8));
  return String(sum % 10_000_000_000n).padStart(10, "0");
}

/** The file id modifier of the n-th file (0-based) made on one day: A to Z, then 0 to 9. */
export function fileIdModifier(index: number): string {
  const modifier = FILE_ID_MODIFIERS[index];
  if (modifier === undefined) throw new NachaFieldError(`at most ${FILE_ID_MODIFIERS.length} files a day`);
  return modifier;
}

/** The file header (record type 1), the same for the payment file and the return file. */
export function fileHeaderRecord(input: {
  origin: { routing_number: string; name: string };
  destination: { routing_number: string; name: string };
  created: { date: string; time: string };
  file_id_modifier: string;
  reference_code?: string;
}): string {
  return formatRecord(FILE_HEADER, {
    immediate_destination: input.destination.routing_number,
    immediate_origin: input.origin.routing_number,
    file_creation_date: yymmdd(input.created.date),
    file_creation_time: input.created.time.replace(":", ""),
    file_id_modifier: input.file_id_modifier,
    immediate_destination_name: input.destination.name,
    immediate_origin_name: input.origin.name,
    reference_code: input.reference_code ?? "",
  });
}

/**
 * Ends a file: appends the file control (its block count includes the control itself) and records
 * of nines to a multiple of ten, and returns the text with the counts before padding.
 */
export function closeFile(
  records: string[],
  control: {
    batch_count: number;
    entry_addenda_count: number;
    entry_hash: string;
    debit_total_cents: number;
    credit_total_cents: number;
  },
): { text: string; record_count: number; block_count: number } {
  const record_count = records.length + 1;
  const block_count = Math.ceil(record_count / BLOCKING_FACTOR);
  records.push(
    formatRecord(FILE_CONTROL, {
      batch_count: control.batch_count,
      block_count,
      entry_addenda_count: control.entry_addenda_count,
      entry_hash: control.entry_hash,
      total_debit_entry_dollar_amount: control.debit_total_cents,
      total_credit_entry_dollar_amount: control.credit_total_cents,
    }),
  );
  while (records.length % BLOCKING_FACTOR !== 0) records.push(PADDING_RECORD);
  return { text: `${records.join("\n")}\n`, record_count, block_count };
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new NachaFieldError(message);
}

/**
 * Why one credit cannot be written into a file (a wrong routing or account number, an amount out
 * of range, a name with no letter or digit left once written as NACHA text), or null when it can.
 * The export leaves such a payment out for staff and writes the rest (docs/product.md#payment-queues).
 */
export function nachaCreditProblem(credit: NachaCredit): string | null {
  if (!isValidRoutingNumber(credit.routing_number))
    return `routing number ${JSON.stringify(credit.routing_number)} fails the ABA checksum`;
  if (!/^[A-Za-z0-9-]{1,17}$/.test(credit.account_number))
    return "account number must be 1 to 17 letters, digits or dashes";
  if (!(
    Number.isSafeInteger(credit.amount_cents) &&
    credit.amount_cents > 0 &&
    credit.amount_cents <= AMOUNT_CENTS_MAX
  ))
    return `amount must be 1 to ${AMOUNT_CENTS_MAX} cents`;
  if (!(
    Number.isSafeInteger(credit.trace_sequence) &&
    credit.trace_sequence >= 1 &&
    credit.trace_sequence <= TRACE_SEQUENCE_MAX
  ))
    return `trace sequence must be 1 to ${TRACE_SEQUENCE_MAX}`;
  if (!/[A-Z0-9]/.test(nachaText(credit.individual_name)))
    return "the receiver's name has no letter or digit a NACHA file can carry";
  if (!/^\d{4}-\d{2}-\d{2}$/.test(credit.effective_date))
    return `date ${JSON.stringify(credit.effective_date)} is not YYYY-MM-DD`;
  if (credit.entry_description !== undefined && nachaText(credit.entry_description) === "")
    return "the entry description is empty";
  return null;
}

function checkCredit(credit: NachaCredit, index: number): void {
  const problem = nachaCreditProblem(credit);
  check(problem === null, `credit ${index + 1}: ${problem}`);
}

function transactionCode(entry: NachaCredit): number {
  if (entry.account_type === "savings")
    return entry.debit ? TRANSACTION_CODES.savings_debit : TRANSACTION_CODES.savings_credit;
  return entry.debit ? TRANSACTION_CODES.checking_debit : TRANSACTION_CODES.checking_credit;
}

/** 220 credits only, 225 debits only, 200 both (the micro-deposits with the debit taking them back). */
function serviceClass(entries: readonly NachaCredit[]): number {
  const debits = entries.filter((e) => e.debit).length;
  if (debits === 0) return SERVICE_CLASS_CREDITS_ONLY;
  return debits === entries.length ? SERVICE_CLASS_DEBITS_ONLY : SERVICE_CLASS_MIXED;
}

/** Sorts by date first, so a file of plain PPD credits has its batches in date order as before. */
function batchKey(entry: NachaCredit, file_description: string): string {
  return [entry.effective_date, entry.sec_code ?? "PPD", nachaText(entry.entry_description ?? file_description)].join(
    "|",
  );
}

export function writeNachaFile(input: NachaFileInput): NachaFile {
  checkFileInput(input);
  const records: string[] = [fileHeaderRecord(input)];
  const batches: NachaBatchWritten[] = [];
  let addenda_count = 0;
  for (const [index, credits] of batchesOf(input).entries()) {
    const batch = writeBatch(input, credits, index + 1);
    records.push(...batch.records);
    batches.push(batch.written);
    addenda_count += batch.addenda_count;
  }
  const entry_count = batches.reduce((sum, b) => sum + b.entries.length, 0);
  const credit_total_cents = batches.reduce((sum, b) => sum + b.credit_total_cents, 0);
  const debit_total_cents = batches.reduce((sum, b) => sum + b.debit_total_cents, 0);
  const entry_hash = entryHash(batches.flatMap((b) => b.entries.map((e) => e.routing_number)));
  const { text, record_count, block_count } = closeFile(records, {
    batch_count: batches.length,
    entry_addenda_count: entry_count + addenda_count,
    entry_hash,
    debit_total_cents,
    credit_total_cents,
  });
  return {
    text,
    batches,
    entry_count,
    addenda_count,
    credit_total_cents,
    debit_total_cents,
    entry_hash,
    record_count,
    block_count,
  };
}

/** Refuses the whole file before a record is written: the operator would reject it for one bad field. */
function checkFileInput(input: NachaFileInput): void {
  check(isValidRoutingNumber(input.origin.routing_number), "the origin routing number fails the ABA checksum");
  check(
    isValidRoutingNumber(input.destination.routing_number),
    "the destination routing number fails the ABA checksum",
  );
  // The company identification is how the receiving banks and the members' statements name the
  // originator; an empty or shortened one is refused rather than padded into a wrong one.
  check(
    /^[A-Za-z0-9]{10}$/.test(input.company.identification),
    "the company identification must be 10 letters or digits",
  );
  check(nachaText(input.company.name) !== "", "the company name is empty");
  check(nachaText(input.company.entry_description) !== "", "the company entry description is empty");
  check(nachaText(input.destination.name) !== "", "the destination name is empty");
  check(
    FILE_ID_MODIFIERS.includes(input.file_id_modifier) && input.file_id_modifier.length === 1,
    "file id modifier must be one of A-Z or 0-9",
  );
  check(/^\d{2}:\d{2}$/.test(input.created.time), "creation time must be HH:MM");
  check(input.credits.length > 0, "a file needs at least one credit");
  input.credits.forEach(checkCredit);
  const sequences = new Set(input.credits.map((c) => c.trace_sequence));
  check(sequences.size === input.credits.length, "trace sequences must be unique in a file");
}

/**
 * The credits in batches, one per effective date, entry class and description (a batch header
 * holds one of each), the batches in key order and each batch by trace sequence.
 */
function batchesOf(input: NachaFileInput): NachaCredit[][] {
  const groups = new Map<string, NachaCredit[]>();
  for (const credit of input.credits) {
    const key = batchKey(credit, input.company.entry_description);
    const batch = groups.get(key);
    if (batch) batch.push(credit);
    else groups.set(key, [credit]);
  }
  return [...groups.keys()]
    .sort()
    .map((key) => [...groups.get(key)!].sort((a, b) => a.trace_sequence - b.trace_sequence));
}

/** One batch: its header, each entry (with its payment information addenda), its control record. */
function writeBatch(
  input: NachaFileInput,
  credits: NachaCredit[],
  batch_number: number,
): { records: string[]; written: NachaBatchWritten; addenda_count: number } {
  const odfi = input.origin.routing_number.slice(0, 8);
  const company_identification = input.company.identification;
  const first = credits[0]!;
  const effective_date = first.effective_date;
  const sec_code = first.sec_code ?? "PPD";
  const service_class_code = serviceClass(credits);
  const records = [
    formatRecord(BATCH_HEADER, {
      service_class_code,
      company_name: input.company.name,
      company_discretionary_data: "",
      company_identification,
      standard_entry_class_code: sec_code,
      company_entry_description: first.entry_description ?? input.company.entry_description,
      company_descriptive_date: "",
      effective_entry_date: yymmdd(effective_date),
      originating_dfi_identification: odfi,
      batch_number,
    }),
  ];
  const entries: NachaEntryWritten[] = [];
  let addenda_count = 0;
  let credit_total_cents = 0;
  let debit_total_cents = 0;
  for (const credit of credits) {
    const trace_number = `${odfi}${String(credit.trace_sequence).padStart(7, "0")}`;
    const written = entryRecords(credit, sec_code, trace_number);
    records.push(...written);
    addenda_count += written.length - 1;
    if (credit.debit) debit_total_cents += credit.amount_cents;
    else credit_total_cents += credit.amount_cents;
    entries.push({ ...credit, trace_number, batch_number });
  }
  const entry_hash = entryHash(entries.map((e) => e.routing_number));
  records.push(
    formatRecord(BATCH_CONTROL, {
      service_class_code,
      entry_addenda_count: entries.length + addenda_count,
      entry_hash,
      total_debit_entry_dollar_amount: debit_total_cents,
      total_credit_entry_dollar_amount: credit_total_cents,
      company_identification,
      originating_dfi_identification: odfi,
      batch_number,
    }),
  );
  const written = {
    batch_number,
    effective_date,
    sec_code,
    entries,
    entry_hash,
    credit_total_cents,
    debit_total_cents,
  };
  return { records, written, addenda_count };
}

/** One entry detail, and its payment information addenda (type 05) when the payment carries any. */
function entryRecords(credit: NachaCredit, sec_code: string, trace_number: string): string[] {
  const info = nachaText(credit.payment_information ?? "");
  const entry = formatRecord(ENTRY_DETAIL, {
    transaction_code: transactionCode(credit),
    receiving_dfi_identification: credit.routing_number.slice(0, 8),
    check_digit: credit.routing_number.slice(8),
    dfi_account_number: credit.account_number,
    amount: credit.amount_cents,
    individual_identification_number: credit.individual_id,
    individual_name: credit.individual_name,
    discretionary_data: sec_code === "WEB" ? WEB_PAYMENT_TYPE_SINGLE : "",
    addenda_record_indicator: info === "" ? 0 : 1,
    trace_number,
  });
  if (info === "") return [entry];
  const addenda = formatRecord(ADDENDA, {
    addenda_type_code: String(ADDENDA_TYPE_PAYMENT_INFORMATION).padStart(2, "0"),
    payment_related_information: info,
    addenda_sequence_number: 1,
    // The entry's sequence number is its trace number's last seven digits.
    entry_detail_sequence_number: trace_number.slice(-7),
  });
  return [entry, addenda];
}
