import { isValidRoutingNumber } from "~/domain/routing-number";
import {
  ADDENDA,
  BATCH_CONTROL,
  BATCH_HEADER,
  BLOCKING_FACTOR,
  ENTRY_DETAIL,
  FILE_CONTROL,
  FILE_HEADER,
  PADDING_RECORD,
  RECORD_LENGTH,
  isCreditCode,
} from "./records";
import { entryHash } from "./writer";
import { RETURN_ADDENDA } from "./return-file";
import { CHANGE_ADDENDA, CHANGE_CODES } from "./change";
import {
  ACCEPTED_SEC_CODES,
  ENTRY_CLASSES,
  INBOUND_FILE_MAX_BYTES,
  INBOUND_TRANSACTION_CODES,
  SERVICE_CLASSES,
  UNSUPPORTED_CLASSES,
  type EntryClass,
  type InboundBatch,
  type InboundEntry,
  type InboundEntryKind,
  type InboundFile,
  type ReadInboundResult,
} from "./inbound-file";
import { Refusal, date, fields, records, refuse, trim } from "./record-reading";
import { iatBatch, iatBatchFields, iatEntryFields, readIatAddenda } from "./iat-reading";

export {
  ACCEPTED_SEC_CODES,
  ENTRY_CLASSES,
  INBOUND_FILE_MAX_BYTES,
  INBOUND_TRANSACTION_CODES,
  type InboundBatch,
  type InboundChange,
  type InboundEntry,
  type InboundEntryKind,
  type InboundFile,
  type InboundReturnInfo,
  type ReadInboundResult,
} from "./inbound-file";

/**
 * Reads an inbound NACHA file (the ACH file the Federal Reserve sends the credit union), pure.
 * It reads the columns of the shared record layouts (`records.ts`) and checks every control the
 * NACHA rules define. A file that breaks one is refused whole, never posted in part: the answer
 * names the line and the rule ("line 14: entry hash is 0012345678, the entries sum to
 * 0012345679"), so staff can tell the sender what to fix.
 *
 * Accepted (docs/product.md#ach-in): batches (service class 200, 220 or 225) of the entry
 * classes a credit union receives every day (ENTRY_CLASSES: PPD, CCD, CTX, WEB, TEL and the
 * converted checks ARC, BOC, POP, RCK) holding credits (22, 32), debits (27, 37), prenotes (23,
 * 28, 33, 38, zero amount) and returns of the credit union's own entries (21, 26, 31, 36 with an
 * addenda type 99 naming the original trace number), each class with its own NACHA rules; and COR
 * batches of notifications of change about our entries (21, 26, 31, 36, zero amount, one addenda
 * type 98). International entries (IAT) are read in their own layout with their seven mandatory
 * addenda naming every party (./iat.ts), to be screened before they post. Other classes are
 * refused by name. Records are one per line
 * (LF or CRLF) or, as some operators send them, one unbroken run of 94-character records.
 */

export function readInboundNachaFile(bytes: Uint8Array, expect: { routing_number: string }): ReadInboundResult {
  try {
    return { ok: true, file: read(bytes, expect) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, line: error.line, rule: error.rule, message: error.message };
    throw error;
  }
}

function read(bytes: Uint8Array, expect: { routing_number: string }): InboundFile {
  const lines = checkedRecords(bytes);
  const file = readFileHeader(lines[0]!, expect);
  const traces = new Set<string>();
  let i = 1;
  while (lines[i]?.[0] === "5") {
    const read = readBatch(lines, i, file.batches.at(-1), traces, expect);
    file.batches.push(read.batch);
    file.entry_count += read.batch.entries.length;
    file.addenda_count += read.addenda_count;
    file.credit_total_cents += read.credit_cents;
    file.debit_total_cents += read.debit_cents;
    i = read.next;
  }
  checkFileControl(lines, i, file);
  return file;
}

/** The file's records, each of 94 characters, in whole blocks of ten. */
function checkedRecords(bytes: Uint8Array): string[] {
  if (bytes.length === 0 || bytes.every((b) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09))
    refuse(0, "the file is empty");
  if (bytes.length > INBOUND_FILE_MAX_BYTES)
    refuse(
      0,
      `the file is ${bytes.length.toLocaleString("en-US")} bytes; the largest accepted is ${INBOUND_FILE_MAX_BYTES.toLocaleString("en-US")}`,
    );
  const lines = records(bytes);
  lines.forEach((record, i) => {
    if (record.length !== RECORD_LENGTH) refuse(i + 1, `record length is ${record.length}, not ${RECORD_LENGTH}`);
  });
  if (lines.length % BLOCKING_FACTOR !== 0)
    refuse(
      lines.length,
      `the file has ${lines.length} records, not a multiple of the blocking factor ${BLOCKING_FACTOR}`,
    );
  return lines;
}

/** The file header (type 1): for this credit union, from a routing number returns can go back to. */
function readFileHeader(first: string, expect: { routing_number: string }): InboundFile {
  if (first[0] !== "1") refuse(1, `the first record must be a file header (type 1), not type ${first[0]}`);
  const h = fields(FILE_HEADER, first, 1);
  const destination = h.immediate_destination!.trim();
  const origin = h.immediate_origin!.trim();
  if (!/^\d{9}$/.test(destination))
    refuse(
      1,
      `immediate destination (columns 4-13) must be a blank and nine digits, not ${JSON.stringify(h.immediate_destination)}`,
    );
  if (!/^\d{9,10}$/.test(origin))
    refuse(1, `immediate origin (columns 14-23) must be digits, not ${JSON.stringify(h.immediate_origin)}`);
  // Returns go back to the file's origin: one that is not a routing number could never be answered
  // (and its returns would hold up every return file behind them).
  if (!isValidRoutingNumber(origin.slice(-9)))
    refuse(
      1,
      `immediate origin ${origin} is not a routing number (the ABA checksum fails): returns could not be sent back to it`,
    );
  if (destination !== expect.routing_number)
    refuse(
      1,
      `immediate destination ${destination} is not this credit union's routing number ${expect.routing_number}: the file is for another bank`,
    );
  const file: InboundFile = {
    immediate_destination: destination,
    immediate_origin: origin,
    origin_name: trim(h.immediate_origin_name!),
    created_date: date(h.file_creation_date!, 1, "file creation date"),
    created_time: `${h.file_creation_time!.slice(0, 2)}:${h.file_creation_time!.slice(2)}`,
    file_id_modifier: h.file_id_modifier!,
    batches: [],
    entry_count: 0,
    addenda_count: 0,
    credit_total_cents: 0,
    debit_total_cents: 0,
  };
  if (!/^[A-Z0-9]$/.test(file.file_id_modifier))
    refuse(1, `file id modifier (column 34) must be A-Z or 0-9, not ${JSON.stringify(file.file_id_modifier)}`);
  return file;
}

/** What a batch's entries are read against: its header, and what its class allows. */
interface BatchHeader {
  batch: InboundBatch;
  service_class: string;
  sec_code: string;
  entry_class: EntryClass | undefined;
  noc_batch: boolean;
  iat_batch: boolean;
  credits_allowed: boolean;
}

/** One batch from its header (at `start`) to its control: the batch, its figures and the next record. */
function readBatch(
  lines: readonly string[],
  start: number,
  previous_batch: InboundBatch | undefined,
  traces: Set<string>,
  expect: { routing_number: string },
): { batch: InboundBatch; addenda_count: number; credit_cents: number; debit_cents: number; next: number } {
  const header = readBatchHeader(lines[start]!, start + 1, previous_batch);
  const batch = header.batch;
  let i = start + 1;
  let addenda_count = 0;
  let credit_cents = 0;
  let debit_cents = 0;
  while (lines[i]?.[0] === "6") {
    const read = readEntry(lines, i, header, traces, expect);
    addenda_count += read.addenda_count;
    if (read.credit) credit_cents += read.entry.amount_cents;
    else debit_cents += read.entry.amount_cents;
    batch.entries.push(read.entry);
    i = read.next;
  }
  checkBatchControl(lines, i, header, { addenda_count, credit_cents, debit_cents });
  return { batch, addenda_count, credit_cents, debit_cents, next: i + 1 };
}

/** A batch header (type 5): its service class and entry class, each with the rules NACHA gives it. */
function readBatchHeader(record: string, batch_line: number, previous_batch: InboundBatch | undefined): BatchHeader {
  const iat_batch = record.slice(50, 53) === "IAT";
  const b = iat_batch ? iatBatchFields(record, batch_line) : fields(BATCH_HEADER, record, batch_line);
  const service_class = b.service_class_code!;
  if (!(service_class in SERVICE_CLASSES))
    refuse(batch_line, `service class code ${service_class} is not 200 (mixed), 220 (credits) or 225 (debits)`);
  const sec_code = b.standard_entry_class_code!;
  if (UNSUPPORTED_CLASSES[sec_code])
    refuse(
      batch_line,
      `standard entry class ${sec_code} is not supported: ${UNSUPPORTED_CLASSES[sec_code]}, which this credit union does not do; ask the sender to send them apart`,
    );
  if (!ACCEPTED_SEC_CODES.includes(sec_code))
    refuse(
      batch_line,
      `standard entry class ${JSON.stringify(sec_code)} is not supported: ${ACCEPTED_SEC_CODES.join(", ")} only`,
    );
  const entry_class = ENTRY_CLASSES[sec_code];
  const noc_batch = sec_code === "COR";
  const description = trim(b.company_entry_description!);
  if (entry_class?.debits_only && service_class === "220")
    refuse(
      batch_line,
      `${sec_code} batches hold debits (converted checks): service class 220 (credits only) is not allowed`,
    );
  if (entry_class?.description && description !== entry_class.description)
    refuse(
      batch_line,
      `${sec_code} batches are described ${entry_class.description}, not ${JSON.stringify(description)}`,
    );
  // TEL is a debit the member authorized by phone; only its reversal credits.
  const credits_allowed = !entry_class?.debits_only && (sec_code !== "TEL" || description === "REVERSAL");
  const batch: InboundBatch = {
    line: batch_line,
    batch_number: Number(b.batch_number),
    service_class_code: service_class,
    company_name: trim(b.company_name!),
    company_discretionary_data: trim(b.company_discretionary_data!),
    company_id: trim(b.company_identification!),
    sec_code,
    entry_description: description,
    effective_date: date(b.effective_entry_date!, batch_line, "effective entry date"),
    odfi: b.originating_dfi_identification!,
    entries: [],
    iat: iat_batch ? iatBatch(b, batch_line) : null,
  };
  if (previous_batch && batch.batch_number <= previous_batch.batch_number)
    refuse(
      batch_line,
      `batch number ${batch.batch_number} is not after ${previous_batch.batch_number}: batch numbers ascend`,
    );
  return { batch, service_class, sec_code, entry_class, noc_batch, iat_batch, credits_allowed };
}

/** One entry (type 6) at `start` and its addenda: the entry, whether it credits, its addenda count and the next record. */
function readEntry(
  lines: readonly string[],
  start: number,
  header: BatchHeader,
  traces: Set<string>,
  expect: { routing_number: string },
): { entry: InboundEntry; credit: boolean; addenda_count: number; next: number } {
  const entry_line = start + 1;
  const detail = readEntryDetail(lines[start]!, entry_line, header, traces, expect);
  const { entry, credit } = detail;
  if (header.iat_batch) {
    const read = readIatAddenda(lines, start + 1, entry, header.batch.iat!, detail.e, entry_line);
    return { entry, credit, addenda_count: read.count, next: read.next };
  }
  const read = readAddenda(lines, start + 1, entry, detail.indicator);
  checkAddendaCount(entry, header, read.count, detail.indicator, detail.ctx_addenda);
  return { entry, credit, addenda_count: read.count, next: read.next };
}

/** The transaction code: what the entry asks, and whether its batch and class allow it. */
function entryKind(
  code: string,
  entry_line: number,
  { sec_code, service_class, entry_class, noc_batch, iat_batch, credits_allowed }: BatchHeader,
) {
  const meaning = INBOUND_TRANSACTION_CODES[code];
  if (!meaning)
    refuse(
      entry_line,
      `transaction code ${code} is not accepted (credits 22, 32; debits 27, 37; prenotes 23, 28, 33, 38; returns 21, 26, 31, 36)`,
    );
  // In a COR batch the return codes (21, 26, 31, 36) carry a notification of change, no money.
  const kind: InboundEntryKind = noc_batch ? "noc" : meaning.kind;
  if (noc_batch && meaning.kind !== "return")
    refuse(
      entry_line,
      `transaction code ${code} is not a notification of change: a COR batch holds 21, 26, 31 or 36 only`,
    );
  if (iat_batch && (kind === "return" || kind === "noc"))
    refuse(
      entry_line,
      `transaction code ${code} is a return: the credit union sends no IAT entries, so it receives no IAT returns`,
    );
  const credit = isCreditCode(code);
  if (kind !== "return" && kind !== "noc") {
    if (entry_class?.debits_only && kind !== "debit")
      refuse(
        entry_line,
        `transaction code ${code} is not a debit: ${sec_code} entries (converted checks) are debits of 27 or 37`,
      );
    if (credit && !credits_allowed)
      refuse(
        entry_line,
        `transaction code ${code} is a credit: a TEL batch holds debits, credits only when its description is REVERSAL`,
      );
  }
  if (service_class === "220" && !credit)
    refuse(entry_line, `transaction code ${code} is a debit in a credits-only batch (service class 220)`);
  if (service_class === "225" && credit)
    refuse(entry_line, `transaction code ${code} is a credit in a debits-only batch (service class 225)`);
  return { meaning, kind, credit };
}

/** The receiving account (this credit union's, by a routing number with a right check digit) and the amount. */
function entryAccountAndAmount(
  e: Record<string, string>,
  entry_line: number,
  kind: InboundEntryKind,
  { sec_code, entry_class }: BatchHeader,
  expect: { routing_number: string },
) {
  const code = e.transaction_code!;
  const routing_number = `${e.receiving_dfi_identification}${e.check_digit}`;
  if (!isValidRoutingNumber(routing_number))
    refuse(
      entry_line,
      `check digit ${e.check_digit} (column 12) is wrong for receiving DFI ${e.receiving_dfi_identification}: the ABA checksum fails`,
    );
  if (routing_number !== expect.routing_number)
    refuse(
      entry_line,
      `receiving DFI ${routing_number} is not this credit union's routing number ${expect.routing_number}`,
    );
  const account_number = trim(e.dfi_account_number!);
  if (account_number === "") refuse(entry_line, "the DFI account number (columns 13-29) is blank");
  const amount_cents = Number(e.amount);
  if (kind === "prenote" && amount_cents !== 0)
    refuse(entry_line, `a prenote (transaction code ${code}) has a zero amount, not ${amount_cents} cents`);
  if (kind === "noc" && amount_cents !== 0)
    refuse(entry_line, `a notification of change has a zero amount, not ${amount_cents} cents`);
  if (kind !== "prenote" && kind !== "noc" && amount_cents === 0)
    refuse(entry_line, "the amount is zero: only a prenote or a notification of change carries no money");
  if (kind === "debit" && entry_class?.amount_max_cents !== undefined && amount_cents > entry_class.amount_max_cents) {
    refuse(entry_line, `${sec_code} entries are at most ${entry_class.amount_max_cents} cents, not ${amount_cents}`);
  }
  return { routing_number, account_number, amount_cents };
}

/** An entry detail record: its fields checked, as the entry (its addenda not read yet). */
function readEntryDetail(
  record: string,
  entry_line: number,
  header: BatchHeader,
  traces: Set<string>,
  expect: { routing_number: string },
) {
  const { batch, sec_code, entry_class, iat_batch } = header;
  const e = iat_batch ? iatEntryFields(record, entry_line) : fields(ENTRY_DETAIL, record, entry_line);
  const code = e.transaction_code!;
  const { meaning, kind, credit } = entryKind(code, entry_line, header);
  const { routing_number, account_number, amount_cents } = entryAccountAndAmount(e, entry_line, kind, header, expect);
  const trace_number = e.trace_number!;
  const previous = batch.entries.at(-1);
  if (previous && trace_number <= previous.trace_number)
    refuse(
      entry_line,
      `trace number ${trace_number} is not after ${previous.trace_number}: trace numbers ascend within a batch`,
    );
  if (traces.has(trace_number)) refuse(entry_line, `trace number ${trace_number} appears twice in the file`);
  traces.add(trace_number);
  const indicator = e.addenda_record_indicator!;
  if (indicator !== "0" && indicator !== "1")
    refuse(entry_line, `addenda record indicator (column 79) must be 0 or 1, not ${indicator}`);
  const individual_id = trim(e.individual_identification_number!);
  let check_serial_number: string | null = null;
  if (entry_class?.check_serial && kind === "debit") {
    check_serial_number = trim(
      entry_class.check_serial === "40-48"
        ? e.individual_identification_number!.slice(0, 9)
        : e.individual_identification_number!,
    );
    if (check_serial_number === "")
      refuse(
        entry_line,
        `the check serial number (columns ${entry_class.check_serial}) is blank: ${sec_code} entries name the check they were converted from`,
      );
  }
  // CTX: columns 55-58 are the entry's addenda count, 59-74 the receiving company.
  const ctx_addenda = sec_code === "CTX" ? e.individual_name!.slice(0, 4) : null;
  if (ctx_addenda !== null && !/^\d{4}$/.test(ctx_addenda))
    refuse(entry_line, `number of addenda records (columns 55-58) must be digits, not ${JSON.stringify(ctx_addenda)}`);
  const entry: InboundEntry = {
    line: entry_line,
    transaction_code: code,
    kind,
    account_type: meaning.account,
    routing_number,
    account_number,
    amount_cents,
    individual_id,
    individual_name: trim(ctx_addenda !== null ? e.individual_name!.slice(4, 20) : e.individual_name!),
    trace_number,
    payment_information: null,
    return_info: null,
    change: null,
    check_serial_number,
    payment_type_code: sec_code === "WEB" || sec_code === "TEL" ? trim(e.discretionary_data!) || null : null,
    iat: null,
  };
  return { entry, e, credit, indicator, ctx_addenda };
}

/**
 * The addenda (type 7) of an entry of any class but IAT, from `start`: 05 payment information, 98
 * a notification of change, 99 a return. Fills the entry in and returns their count and the next record.
 */
function readAddenda(
  lines: readonly string[],
  start: number,
  entry: InboundEntry,
  indicator: string,
): { count: number; next: number } {
  const { kind, transaction_code: code, trace_number } = entry;
  let i = start;
  let addenda_seen = 0;
  while (lines[i]?.[0] === "7") {
    const addenda_line = i + 1;
    const record = lines[i]!;
    if (indicator !== "1")
      refuse(addenda_line, "an addenda record follows an entry whose addenda record indicator is 0");
    const type = record.slice(1, 3);
    if (type === "99") {
      if (kind !== "return")
        refuse(addenda_line, `a return addenda (type 99) follows transaction code ${code}, which is not a return`);
      const a = fields(RETURN_ADDENDA, record, addenda_line);
      if (a.trace_number !== trace_number)
        refuse(addenda_line, `the return addenda's trace number ${a.trace_number} is not its entry's ${trace_number}`);
      if (!/^R\d{2}$/.test(a.return_reason_code!))
        refuse(addenda_line, `return reason code ${JSON.stringify(a.return_reason_code)} must be R and two digits`);
      entry.return_info = {
        reason_code: a.return_reason_code!,
        original_trace_number: a.original_entry_trace_number!,
        original_rdfi: a.original_receiving_dfi_identification!,
        information: trim(a.addenda_information!),
      };
    } else if (type === "98") {
      if (kind !== "noc") refuse(addenda_line, "a notification of change addenda (type 98) belongs in a COR batch");
      const a = fields(CHANGE_ADDENDA, record, addenda_line);
      if (a.trace_number !== trace_number)
        refuse(addenda_line, `the change addenda's trace number ${a.trace_number} is not its entry's ${trace_number}`);
      if (!CHANGE_CODES[a.change_code!])
        refuse(
          addenda_line,
          `change code ${JSON.stringify(a.change_code)} is not one of ${Object.keys(CHANGE_CODES).join(", ")}`,
        );
      entry.change = {
        change_code: a.change_code!,
        original_trace_number: a.original_entry_trace_number!,
        original_rdfi: a.original_receiving_dfi_identification!,
        corrected_data: a.corrected_data!.trimEnd(),
      };
    } else if (type === "05") {
      if (kind === "return") refuse(addenda_line, "a return entry's addenda must be type 99");
      if (kind === "noc") refuse(addenda_line, "a notification of change's addenda must be type 98");
      const a = fields(ADDENDA, record, addenda_line);
      if (Number(a.addenda_sequence_number) !== addenda_seen + 1)
        refuse(addenda_line, `addenda sequence number ${Number(a.addenda_sequence_number)} is not ${addenda_seen + 1}`);
      if (a.entry_detail_sequence_number !== trace_number.slice(-7))
        refuse(
          addenda_line,
          `entry detail sequence number ${a.entry_detail_sequence_number} is not the last seven digits of its entry's trace number ${trace_number}`,
        );
      entry.payment_information = trim(`${entry.payment_information ?? ""} ${trim(a.payment_related_information!)}`);
    } else {
      refuse(
        addenda_line,
        `addenda type ${JSON.stringify(type)} is not accepted (05 payment information, 98 notification of change, 99 return)`,
      );
    }
    addenda_seen++;
    i++;
  }
  return { count: addenda_seen, next: i };
}

/** An entry has the addenda its kind and class require, as many as it says. */
function checkAddendaCount(
  entry: InboundEntry,
  { sec_code, entry_class }: BatchHeader,
  addenda_seen: number,
  indicator: string,
  ctx_addenda: string | null,
) {
  const { kind, transaction_code: code, line: entry_line } = entry;
  if (addenda_seen > 1 && (kind === "return" || kind === "noc"))
    refuse(
      entry_line,
      `${kind === "return" ? "a return" : "a notification of change"} has one addenda record, not ${addenda_seen}`,
    );
  if (entry_class && kind !== "return" && addenda_seen > entry_class.addenda_max) {
    refuse(
      entry_line,
      entry_class.addenda_max === 0
        ? `${sec_code} entries have no addenda record, not ${addenda_seen}`
        : `${sec_code} entries have at most ${entry_class.addenda_max} addenda ${entry_class.addenda_max === 1 ? "record" : "records"}, not ${addenda_seen}`,
    );
  }
  if (ctx_addenda !== null && Number(ctx_addenda) !== addenda_seen)
    refuse(
      entry_line,
      `number of addenda records (columns 55-58) is ${Number(ctx_addenda)}, the entry has ${addenda_seen}`,
    );
  if (indicator === "1" && addenda_seen === 0)
    refuse(entry_line, "the addenda record indicator is 1 but no addenda record follows");
  if (kind === "return" && !entry.return_info)
    refuse(entry_line, `transaction code ${code} is a return and needs an addenda type 99`);
  if (kind === "noc" && !entry.change)
    refuse(entry_line, `a notification of change (transaction code ${code}) needs an addenda type 98`);
}

/** The batch control (type 8) at `i`: its counts, hash and totals are the batch's. */
function checkBatchControl(
  lines: readonly string[],
  i: number,
  { batch, service_class }: BatchHeader,
  { addenda_count, credit_cents, debit_cents }: { addenda_count: number; credit_cents: number; debit_cents: number },
) {
  const control_line = i + 1;
  if (lines[i]?.[0] !== "8")
    refuse(
      control_line,
      `a batch ends with a batch control (type 8), not ${lines[i] === undefined ? "the end of the file" : `type ${lines[i]![0]}`}`,
    );
  if (batch.entries.length === 0) refuse(control_line, "a batch holds at least one entry");
  const c = fields(BATCH_CONTROL, lines[i]!, control_line);
  if (c.service_class_code !== service_class)
    refuse(control_line, `service class code ${c.service_class_code} is not the batch header's ${service_class}`);
  const count = batch.entries.length + addenda_count;
  if (Number(c.entry_addenda_count) !== count)
    refuse(control_line, `entry/addenda count is ${Number(c.entry_addenda_count)}, the batch holds ${count}`);
  const hash = entryHash(batch.entries.map((e) => e.routing_number));
  if (c.entry_hash !== hash)
    refuse(control_line, `entry hash is ${c.entry_hash}, the entries' receiving DFIs sum to ${hash}`);
  if (Number(c.total_debit_entry_dollar_amount) !== debit_cents)
    refuse(
      control_line,
      `total debit is ${Number(c.total_debit_entry_dollar_amount)} cents, the entries' debits sum to ${debit_cents}`,
    );
  if (Number(c.total_credit_entry_dollar_amount) !== credit_cents)
    refuse(
      control_line,
      `total credit is ${Number(c.total_credit_entry_dollar_amount)} cents, the entries' credits sum to ${credit_cents}`,
    );
  if (trim(c.company_identification!) !== batch.company_id)
    refuse(
      control_line,
      `company identification ${JSON.stringify(trim(c.company_identification!))} is not the batch header's ${JSON.stringify(batch.company_id)}`,
    );
  if (c.originating_dfi_identification !== batch.odfi)
    refuse(control_line, `originating DFI ${c.originating_dfi_identification} is not the batch header's ${batch.odfi}`);
  if (Number(c.batch_number) !== batch.batch_number)
    refuse(control_line, `batch number ${Number(c.batch_number)} is not the batch header's ${batch.batch_number}`);
}

/** The file control (type 9) at `i`: its counts, hash and totals are the file's; then only padding. */
function checkFileControl(lines: readonly string[], i: number, file: InboundFile) {
  const control_line = i + 1;
  if (lines[i]?.[0] !== "9" || lines[i] === PADDING_RECORD)
    refuse(
      control_line,
      `expected a batch header (type 5) or the file control (type 9), not ${lines[i] === undefined ? "the end of the file" : `type ${lines[i]![0]}`}`,
    );
  if (file.batches.length === 0) refuse(control_line, "the file holds no batch");
  const f = fields(FILE_CONTROL, lines[i]!, control_line);
  if (Number(f.batch_count) !== file.batches.length)
    refuse(control_line, `batch count is ${Number(f.batch_count)}, the file holds ${file.batches.length}`);
  const blocks = lines.length / BLOCKING_FACTOR;
  if (Number(f.block_count) !== blocks)
    refuse(
      control_line,
      `block count is ${Number(f.block_count)}, the file holds ${blocks} blocks of ${BLOCKING_FACTOR} records`,
    );
  const count = file.entry_count + file.addenda_count;
  if (Number(f.entry_addenda_count) !== count)
    refuse(control_line, `entry/addenda count is ${Number(f.entry_addenda_count)}, the file holds ${count}`);
  const hash = entryHash(file.batches.flatMap((b) => b.entries.map((e) => e.routing_number)));
  if (f.entry_hash !== hash)
    refuse(control_line, `entry hash is ${f.entry_hash}, the entries' receiving DFIs sum to ${hash}`);
  if (Number(f.total_debit_entry_dollar_amount) !== file.debit_total_cents)
    refuse(
      control_line,
      `total debit is ${Number(f.total_debit_entry_dollar_amount)} cents, the batches' debits sum to ${file.debit_total_cents}`,
    );
  if (Number(f.total_credit_entry_dollar_amount) !== file.credit_total_cents)
    refuse(
      control_line,
      `total credit is ${Number(f.total_credit_entry_dollar_amount)} cents, the batches' credits sum to ${file.credit_total_cents}`,
    );
  for (i = i + 1; i < lines.length; i++) {
    if (lines[i] !== PADDING_RECORD) refuse(i + 1, "after the file control only padding records of nines may follow");
  }
  if (lines.length - control_line >= BLOCKING_FACTOR) refuse(lines.length, "more than one block of padding");
}
