import { isValidRoutingNumber, routingCheckDigit } from "~/domain/routing-number";
import {
  BATCH_CONTROL,
  BATCH_HEADER,
  ENTRY_DETAIL,
  NachaFieldError,
  RECORD_LENGTH,
  formatRecord,
  isCreditCode,
  yymmdd,
  type FieldLayout,
} from "./records";
import { closeFile, entryHash, fileHeaderRecord } from "./writer";
import { IAT_BATCH_HEADER, IAT_ENTRY_DETAIL, type IatDetails } from "./iat";

/**
 * The return file (pure): entries the credit union received but could not post, sent back to
 * the ACH operator. Each return is the original entry with its transaction code lowered by one
 * (22 to 21, 27 to 26, 32 to 31, 37 to 36), addressed to the bank that sent it (the original
 * trace number's first eight digits), with a trace number of our own and an addenda type 99
 * carrying the reason (R01, R02, ...) and the original trace number. One batch per original
 * batch (same company, entry class and description); the credit union is the batch's ODFI.
 *
 * An IAT entry goes back in the IAT layout (Nacha Appendix Three, IAT return entries): an IAT
 * batch header with the original's exchange fields, countries and currencies; the IAT entry
 * detail; the original's seven mandatory addenda 10 to 16 as received (their entry sequence
 * number now the return's); then the IAT return addenda 99, which carries the original forward
 * entry's amount in columns 36-45. The optional addenda 17 and 18 are not carried back.
 */

/** Record type 7, addenda type 99 (return). */
export const RETURN_ADDENDA = [
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "99" },
  { name: "return_reason_code", start: 4, length: 3, kind: "AN" },
  { name: "original_entry_trace_number", start: 7, length: 15, kind: "N" },
  { name: "date_of_death", start: 22, length: 6, kind: "AN" },
  { name: "original_receiving_dfi_identification", start: 28, length: 8, kind: "N" },
  { name: "addenda_information", start: 36, length: 44, kind: "AN" },
  { name: "trace_number", start: 80, length: 15, kind: "N" },
] as const satisfies readonly FieldLayout[];

/** Record type 7, addenda type 99 of an IAT return: 22-27 reserved, 36-45 the original forward entry's amount. */
export const IAT_RETURN_ADDENDA = [
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "99" },
  { name: "return_reason_code", start: 4, length: 3, kind: "AN" },
  { name: "original_entry_trace_number", start: 7, length: 15, kind: "N" },
  { name: "reserved", start: 22, length: 6, kind: "B" },
  { name: "original_receiving_dfi_identification", start: 28, length: 8, kind: "N" },
  { name: "original_forward_entry_payment_amount", start: 36, length: 10, kind: "N" },
  { name: "addenda_information", start: 46, length: 34, kind: "AN" },
  { name: "trace_number", start: 80, length: 15, kind: "N" },
] as const satisfies readonly FieldLayout[];

// The same self-check `records.ts` runs on its layouts: contiguous columns, 94 in all.
for (const layout of [RETURN_ADDENDA, IAT_RETURN_ADDENDA]) {
  let column = 1;
  for (const field of layout) {
    if (field.start !== column)
      throw new Error(`NACHA layout: ${field.name} starts at ${field.start}, expected ${column}`);
    column += field.length;
  }
  if (column !== RECORD_LENGTH + 1) throw new Error("NACHA return addenda layout is not 94 columns");
}

/** Why the credit union returns an entry, by R-code (the words staff and members read). */
export const RETURN_REASONS: Record<string, string> = {
  R01: "Insufficient funds",
  R02: "Account closed",
  R03: "No account or unable to locate account",
  R04: "Invalid account number",
  R05: "Unauthorized debit to a consumer account",
  R06: "Returned at the originating bank's request",
  R07: "Authorization revoked by the customer",
  R08: "Payment stopped",
  R09: "Uncollected funds",
  R10: "Customer advises not authorized",
  R11: "Customer advises entry not in accordance with the authorization",
  R14: "Account holder deceased",
  R15: "Beneficiary or account holder deceased",
  R16: "Account frozen",
  R17: "File record edit criteria",
  R20: "Non-transaction account",
  R23: "Credit entry refused by the receiver",
  R24: "Duplicate entry",
  R29: "Corporate customer advises not authorized",
};

export function returnReason(code: string): string {
  return RETURN_REASONS[code] ?? `Returned by the other bank (${code})`;
}

/** The return's transaction code for an original one: 22 -> 21, 27 -> 26, 32 -> 31, 37 -> 36. */
export function returnTransactionCode(original: string): string {
  if (!["22", "27", "32", "37"].includes(original))
    throw new NachaFieldError(`transaction code ${original} cannot be returned`);
  return String(Number(original) - 1);
}

/**
 * The columns whose layout the entry class changes, as the return must carry them: POP's check
 * serial number, terminal city and state (columns 40-54) exactly as received (text rules would
 * close up their spaces), and CTX's addenda count (columns 55-58: the return has one, its addenda
 * 99) before the receiving company (59-74).
 */
function classColumns(sec_code: string, original: ReturnItem["original"], record: string): string {
  if (sec_code === "POP")
    return `${record.slice(0, 39)}${original.individual_id.slice(0, 15).padEnd(15, " ")}${record.slice(54)}`;
  if (sec_code === "CTX")
    return `${record.slice(0, 54)}0001${original.individual_name.slice(0, 16).padEnd(16, " ")}  ${record.slice(76)}`;
  return record;
}

export interface ReturnItem {
  reason_code: string;
  original: {
    company_name: string;
    company_discretionary_data: string;
    company_id: string;
    sec_code: string;
    entry_description: string;
    transaction_code: string;
    account_number: string;
    amount_cents: number;
    individual_id: string;
    individual_name: string;
    trace_number: string;
    /** An IAT entry: what its batch header and addenda said (its return is written in the IAT layout). */
    iat?: IatDetails | null;
  };
  /** 1 to 9,999,999, unique in the file: the last seven digits of the return's trace number. */
  trace_sequence: number;
  information?: string;
}

export interface ReturnFileInput {
  /** The credit union. */
  origin: { routing_number: string; name: string };
  /** The ACH operator the inbound file came from. */
  destination: { routing_number: string; name: string };
  created: { date: string; time: string };
  file_id_modifier: string;
  /** YYYY-MM-DD of every return batch. */
  effective_date: string;
  returns: readonly ReturnItem[];
}

export interface ReturnFile {
  text: string;
  entry_count: number;
  batch_count: number;
  credit_total_cents: number;
  debit_total_cents: number;
  /** Each item's trace number, in input order. */
  trace_numbers: string[];
}

export function writeReturnFile(input: ReturnFileInput): ReturnFile {
  checkReturnFileInput(input);
  const odfi = input.origin.routing_number.slice(0, 8);
  const records: string[] = [fileHeaderRecord({ ...input, reference_code: "RETURNS" })];
  const trace_numbers: string[] = new Array(input.returns.length);
  const file = { entry_count: 0, record_count: 0, credit_total_cents: 0, debit_total_cents: 0, rdfis: [] as string[] };
  let batch_number = 0;
  for (const group of originalBatches(input.returns)) {
    batch_number++;
    const batch = returnBatch(group, { odfi, batch_number, effective_date: input.effective_date });
    records.push(...batch.records);
    for (const { index, trace_number } of batch.traces) trace_numbers[index] = trace_number;
    file.entry_count += group.length;
    file.record_count += batch.entry_addenda_count;
    file.credit_total_cents += batch.credits;
    file.debit_total_cents += batch.debits;
    file.rdfis.push(...batch.rdfis);
  }
  const { entry_count, credit_total_cents, debit_total_cents } = file;
  const { text } = closeFile(records, {
    batch_count: batch_number,
    entry_addenda_count: file.record_count,
    entry_hash: entryHash(file.rdfis),
    debit_total_cents,
    credit_total_cents,
  });
  return { text, entry_count, batch_count: batch_number, credit_total_cents, debit_total_cents, trace_numbers };
}

/** Refuses the whole file before a record is written: an operator rejects a file with one bad field. */
function checkReturnFileInput(input: ReturnFileInput): void {
  if (!isValidRoutingNumber(input.origin.routing_number))
    throw new NachaFieldError("the origin routing number fails the ABA checksum");
  if (!isValidRoutingNumber(input.destination.routing_number))
    throw new NachaFieldError("the destination routing number fails the ABA checksum");
  if (input.returns.length === 0) throw new NachaFieldError("a return file needs at least one return");
  input.returns.forEach((item, index) => {
    if (!/^R\d{2}$/.test(item.reason_code))
      throw new NachaFieldError(
        `return ${index + 1}: reason code ${JSON.stringify(item.reason_code)} is not R and two digits`,
      );
    if (!/^\d{15}$/.test(item.original.trace_number))
      throw new NachaFieldError(`return ${index + 1}: original trace number must be 15 digits`);
    if (!Number.isSafeInteger(item.trace_sequence) || item.trace_sequence < 1 || item.trace_sequence > 9_999_999)
      throw new NachaFieldError(`return ${index + 1}: trace sequence must be 1 to 9999999`);
  });
}

type IndexedReturn = { item: ReturnItem; index: number };

/**
 * The returns grouped as their original batches were (same company, entry class, description and
 * sending bank), in order of first appearance, each group by trace sequence: one return batch each.
 */
function originalBatches(returns: readonly ReturnItem[]): IndexedReturn[][] {
  const groups = new Map<string, IndexedReturn[]>();
  returns.forEach((item, index) => {
    const o = item.original;
    const key = JSON.stringify([
      o.company_id,
      o.company_name,
      o.company_discretionary_data,
      o.sec_code,
      o.entry_description,
      o.trace_number.slice(0, 8),
      // An IAT batch header carries the exchange fields: entries differing there go in batches of their own.
      o.iat
        ? [
            o.iat.foreign_exchange_indicator,
            o.iat.foreign_exchange_reference_indicator,
            o.iat.foreign_exchange_reference,
            o.iat.iso_destination_country,
            o.iat.iso_originating_currency,
            o.iat.iso_destination_currency,
          ]
        : null,
    ]);
    const group = groups.get(key);
    if (group) group.push({ item, index });
    else groups.set(key, [{ item, index }]);
  });
  return [...groups.values()].map((group) => [...group].sort((a, b) => a.item.trace_sequence - b.item.trace_sequence));
}

/** One return batch: its header, each return's entry and addenda, its control record, and its totals. */
function returnBatch(items: IndexedReturn[], batch: { odfi: string; batch_number: number; effective_date: string }) {
  const { odfi, batch_number } = batch;
  const o = items[0]!.item.original;
  const codes = items.map((x) => returnTransactionCode(x.item.original.transaction_code));
  const service_class = codes.every(isCreditCode) ? 220 : codes.some(isCreditCode) ? 200 : 225;
  const iat = o.sec_code === "IAT" ? o.iat : null;
  if (o.sec_code === "IAT" && !iat)
    throw new NachaFieldError(`return ${items[0]!.index + 1}: an IAT entry's return needs its addenda`);
  const records = [returnBatchHeader(o, iat ?? null, { ...batch, service_class })];
  let credits = 0;
  let debits = 0;
  let entry_addenda_count = 0;
  const rdfis: string[] = [];
  const traces: { index: number; trace_number: string }[] = [];
  for (const { item, index } of items) {
    const original = item.original;
    const code = returnTransactionCode(original.transaction_code);
    const rdfi = original.trace_number.slice(0, 8);
    const trace_number = `${odfi}${String(item.trace_sequence).padStart(7, "0")}`;
    const returned = iat
      ? iatReturnRecords(item, code, rdfi, odfi, trace_number)
      : returnRecords(item, o.sec_code, code, rdfi, odfi, trace_number);
    records.push(...returned);
    entry_addenda_count += returned.length;
    if (isCreditCode(code)) credits += original.amount_cents;
    else debits += original.amount_cents;
    rdfis.push(rdfi);
    traces.push({ index, trace_number });
  }
  records.push(
    formatRecord(BATCH_CONTROL, {
      service_class_code: service_class,
      entry_addenda_count,
      entry_hash: entryHash(rdfis),
      total_debit_entry_dollar_amount: debits,
      total_credit_entry_dollar_amount: credits,
      company_identification: o.company_id,
      originating_dfi_identification: odfi,
      batch_number,
    }),
  );
  return { records, entry_addenda_count, credits, debits, rdfis, traces };
}

/** The batch header: the original batch's company and description (IAT: its exchange fields), the credit union as ODFI. */
function returnBatchHeader(
  o: ReturnItem["original"],
  iat: IatDetails | null,
  batch: { odfi: string; batch_number: number; effective_date: string; service_class: number },
): string {
  const { odfi, batch_number, service_class } = batch;
  if (iat)
    return formatRecord(IAT_BATCH_HEADER, {
      service_class_code: service_class,
      iat_indicator: "",
      foreign_exchange_indicator: iat.foreign_exchange_indicator,
      foreign_exchange_reference_indicator: iat.foreign_exchange_reference_indicator,
      foreign_exchange_reference: iat.foreign_exchange_reference,
      iso_destination_country_code: iat.iso_destination_country,
      originator_identification: o.company_id,
      company_entry_description: o.entry_description,
      iso_originating_currency_code: iat.iso_originating_currency,
      iso_destination_currency_code: iat.iso_destination_currency,
      effective_entry_date: yymmdd(batch.effective_date),
      originator_status_code: "1",
      originating_dfi_identification: odfi,
      batch_number,
    });
  return formatRecord(BATCH_HEADER, {
    service_class_code: service_class,
    company_name: o.company_name,
    company_discretionary_data: o.company_discretionary_data,
    company_identification: o.company_id,
    standard_entry_class_code: o.sec_code,
    company_entry_description: o.entry_description,
    company_descriptive_date: "",
    effective_entry_date: yymmdd(batch.effective_date),
    originating_dfi_identification: odfi,
    batch_number,
  });
}

/** A domestic entry's return: the entry detail (its class's own columns kept) and the return addenda 99. */
function returnRecords(
  item: ReturnItem,
  sec_code: string,
  code: string,
  rdfi: string,
  odfi: string,
  trace_number: string,
): string[] {
  const original = item.original;
  return [
    classColumns(
      sec_code,
      original,
      formatRecord(ENTRY_DETAIL, {
        transaction_code: code,
        receiving_dfi_identification: rdfi,
        check_digit: routingCheckDigit(rdfi),
        dfi_account_number: original.account_number,
        amount: original.amount_cents,
        individual_identification_number: original.individual_id,
        individual_name: original.individual_name,
        discretionary_data: "",
        addenda_record_indicator: 1,
        trace_number,
      }),
    ),
    formatRecord(RETURN_ADDENDA, {
      return_reason_code: item.reason_code,
      original_entry_trace_number: original.trace_number,
      date_of_death: "",
      original_receiving_dfi_identification: odfi,
      addenda_information: item.information ?? "",
      trace_number,
    }),
  ];
}

/**
 * An IAT entry's return: the IAT entry detail, the original's seven mandatory addenda as received
 * with the return's entry sequence number, and the IAT return addenda 99.
 */
function iatReturnRecords(item: ReturnItem, code: string, rdfi: string, odfi: string, trace_number: string): string[] {
  const original = item.original;
  const mandatory = (original.iat?.addenda_records ?? []).filter((r) => /^7(1[0-6])/.test(r));
  if (mandatory.length !== 7)
    throw new NachaFieldError(`an IAT return carries the original's addenda 10 to 16; ${mandatory.length} were kept`);
  return [
    formatRecord(IAT_ENTRY_DETAIL, {
      transaction_code: code,
      receiving_dfi_identification: rdfi,
      check_digit: routingCheckDigit(rdfi),
      number_of_addenda_records: mandatory.length + 1,
      amount: original.amount_cents,
      dfi_account_number: original.account_number,
      gateway_operator_ofac_screening_indicator: "",
      secondary_ofac_screening_indicator: "",
      trace_number,
    }),
    ...mandatory.map((record) => `${record.slice(0, 87)}${trace_number.slice(-7)}`),
    formatRecord(IAT_RETURN_ADDENDA, {
      return_reason_code: item.reason_code,
      original_entry_trace_number: original.trace_number,
      original_receiving_dfi_identification: odfi,
      original_forward_entry_payment_amount: original.amount_cents,
      addenda_information: item.information ?? "",
      trace_number,
    }),
  ];
}
