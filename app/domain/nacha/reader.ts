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
  sliceRecord,
  type RecordLayout,
} from "./records";
import { entryHash } from "./writer";
import { RETURN_ADDENDA } from "./return-file";
import { CHANGE_ADDENDA, CHANGE_CODES } from "./change";
import {
  FOREIGN_EXCHANGE_INDICATORS,
  IAT_ADDENDA_17,
  IAT_ADDENDA_17_MAX,
  IAT_ADDENDA_18,
  IAT_ADDENDA_18_MAX,
  IAT_BATCH_HEADER,
  IAT_ENTRY_DETAIL,
  IAT_MANDATORY_ADDENDA,
  iatAddressParts,
  type IatBank,
  type IatBatch,
  type IatDetails,
} from "./iat";

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

interface EntryClass {
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
const UNSUPPORTED_CLASSES: Record<string, string> = {};
const SERVICE_CLASSES = { "200": "mixed", "220": "credits", "225": "debits" } as const;

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

class Refusal extends Error {
  constructor(
    readonly line: number,
    readonly rule: string,
  ) {
    super(line > 0 ? `line ${line}: ${rule}` : rule);
  }
}

function refuse(line: number, rule: string): never {
  throw new Refusal(line, rule);
}

const trim = (value: string) => value.trim();

/** The fields of a record by its layout, with every numeric field checked as digits. */
function fields(layout: RecordLayout, record: string, line: number): Record<string, string> {
  const values = sliceRecord(layout, record);
  for (const field of layout) {
    const value = values[field.name]!;
    if (field.kind === "N" && !/^\d+$/.test(value))
      refuse(
        line,
        `${field.name.replaceAll("_", " ")} (columns ${field.start}-${field.start + field.length - 1}) must be digits, not ${JSON.stringify(value)}`,
      );
    // The originator status code is 1 for a bank, 2 for a government agency: read, not enforced.
    if (field.constant !== undefined && value !== field.constant && field.name !== "originator_status_code")
      refuse(
        line,
        `${field.name.replaceAll("_", " ")} (columns ${field.start}-${field.start + field.length - 1}) must be ${field.constant}, not ${JSON.stringify(value)}`,
      );
  }
  return values;
}

function date(yymmdd: string, line: number, name: string): string {
  const yy = Number(yymmdd.slice(0, 2));
  const mm = Number(yymmdd.slice(2, 4));
  const dd = Number(yymmdd.slice(4, 6));
  const iso = `20${yymmdd.slice(0, 2)}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
  const parsed = new Date(`${iso}T00:00:00Z`);
  if (mm < 1 || mm > 12 || dd < 1 || Number.isNaN(parsed.getTime()) || parsed.getUTCDate() !== dd || yy > 99)
    refuse(line, `${name} ${yymmdd} is not a date (YYMMDD)`);
  return iso;
}

/** The records of the file: lines, or one unbroken run of 94-character records. */
function records(bytes: Uint8Array): string[] {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x0a || b === 0x0d) continue;
    if (b < 0x20 || b > 0x7e) {
      const line = 1 + bytes.subarray(0, i).filter((c) => c === 0x0a).length;
      refuse(
        line,
        `byte ${i + 1} is not printable text (0x${b.toString(16).padStart(2, "0")}): a NACHA file holds only ASCII records`,
      );
    }
  }
  const text = new TextDecoder("latin1").decode(bytes);
  if (!text.includes("\n") && !text.includes("\r")) {
    if (text.length % RECORD_LENGTH !== 0)
      refuse(1, `the file is one line of ${text.length} characters, not a run of ${RECORD_LENGTH}-character records`);
    return text.match(new RegExp(`.{${RECORD_LENGTH}}`, "g")) ?? [];
  }
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

export function readInboundNachaFile(bytes: Uint8Array, expect: { routing_number: string }): ReadInboundResult {
  try {
    return { ok: true, file: read(bytes, expect) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, line: error.line, rule: error.rule, message: error.message };
    throw error;
  }
}

function read(bytes: Uint8Array, expect: { routing_number: string }): InboundFile {
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

  // File header.
  const first = lines[0]!;
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

  const traces = new Set<string>();
  let i = 1;
  while (lines[i]?.[0] === "5") {
    const batch_line = i + 1;
    const iat_batch = lines[i]!.slice(50, 53) === "IAT";
    const b = iat_batch ? iatBatchFields(lines[i]!, batch_line) : fields(BATCH_HEADER, lines[i]!, batch_line);
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
    const previous_batch = file.batches.at(-1);
    if (previous_batch && batch.batch_number <= previous_batch.batch_number)
      refuse(
        batch_line,
        `batch number ${batch.batch_number} is not after ${previous_batch.batch_number}: batch numbers ascend`,
      );
    i++;

    let addenda_count = 0;
    let credit_cents = 0;
    let debit_cents = 0;
    while (lines[i]?.[0] === "6") {
      const entry_line = i + 1;
      const e = iat_batch ? iatEntryFields(lines[i]!, entry_line) : fields(ENTRY_DETAIL, lines[i]!, entry_line);
      const code = e.transaction_code!;
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
      if (
        kind === "debit" &&
        entry_class?.amount_max_cents !== undefined &&
        amount_cents > entry_class.amount_max_cents
      ) {
        refuse(
          entry_line,
          `${sec_code} entries are at most ${entry_class.amount_max_cents} cents, not ${amount_cents}`,
        );
      }
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
        refuse(
          entry_line,
          `number of addenda records (columns 55-58) must be digits, not ${JSON.stringify(ctx_addenda)}`,
        );
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
      i++;
      if (iat_batch) {
        const read = readIatAddenda(lines, i, entry, batch.iat!, e, entry_line);
        addenda_count += read.count;
        i = read.next;
        if (credit) credit_cents += amount_cents;
        else debit_cents += amount_cents;
        batch.entries.push(entry);
        continue;
      }

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
            refuse(
              addenda_line,
              `the return addenda's trace number ${a.trace_number} is not its entry's ${trace_number}`,
            );
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
            refuse(
              addenda_line,
              `the change addenda's trace number ${a.trace_number} is not its entry's ${trace_number}`,
            );
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
            refuse(
              addenda_line,
              `addenda sequence number ${Number(a.addenda_sequence_number)} is not ${addenda_seen + 1}`,
            );
          if (a.entry_detail_sequence_number !== trace_number.slice(-7))
            refuse(
              addenda_line,
              `entry detail sequence number ${a.entry_detail_sequence_number} is not the last seven digits of its entry's trace number ${trace_number}`,
            );
          entry.payment_information = trim(
            `${entry.payment_information ?? ""} ${trim(a.payment_related_information!)}`,
          );
        } else {
          refuse(
            addenda_line,
            `addenda type ${JSON.stringify(type)} is not accepted (05 payment information, 98 notification of change, 99 return)`,
          );
        }
        addenda_seen++;
        i++;
      }
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
      addenda_count += addenda_seen;
      if (credit) credit_cents += amount_cents;
      else debit_cents += amount_cents;
      batch.entries.push(entry);
    }

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
      refuse(
        control_line,
        `originating DFI ${c.originating_dfi_identification} is not the batch header's ${batch.odfi}`,
      );
    if (Number(c.batch_number) !== batch.batch_number)
      refuse(control_line, `batch number ${Number(c.batch_number)} is not the batch header's ${batch.batch_number}`);
    file.batches.push(batch);
    file.entry_count += batch.entries.length;
    file.addenda_count += addenda_count;
    file.credit_total_cents += credit_cents;
    file.debit_total_cents += debit_cents;
    i++;
  }

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
  return file;
}

/**
 * An IAT batch header's fields, under the names the other batch headers use where they mean the
 * same (the originator identification is the company identification the batch control repeats;
 * an IAT batch names no company: each entry's addenda 11 names its originator).
 */
function iatBatchFields(record: string, line: number): Record<string, string> {
  const b = fields(IAT_BATCH_HEADER, record, line);
  return {
    ...b,
    company_name: "",
    company_discretionary_data: "",
    company_identification: b.originator_identification!,
  };
}

/** The exchange fields of an IAT batch, checked: only US dollar entries to the United States are received. */
function iatBatch(b: Record<string, string>, line: number): IatBatch {
  const fx = b.foreign_exchange_indicator!;
  if (!FOREIGN_EXCHANGE_INDICATORS[fx])
    refuse(line, `foreign exchange indicator (columns 21-22) must be FV, VF or FF, not ${JSON.stringify(fx)}`);
  const reference_indicator = b.foreign_exchange_reference_indicator!;
  if (!["1", "2", "3"].includes(reference_indicator))
    refuse(line, `foreign exchange reference indicator (column 23) must be 1, 2 or 3, not ${reference_indicator}`);
  const destination_country = trim(b.iso_destination_country_code!);
  if (destination_country !== "US")
    refuse(
      line,
      `ISO destination country code (columns 39-40) is ${JSON.stringify(destination_country)}: this credit union receives IAT entries for the United States (US) only`,
    );
  const originating_currency = trim(b.iso_originating_currency_code!);
  if (!/^[A-Z]{3}$/.test(originating_currency))
    refuse(
      line,
      `ISO originating currency code (columns 64-66) must be three letters, not ${JSON.stringify(originating_currency)}`,
    );
  const destination_currency = trim(b.iso_destination_currency_code!);
  if (destination_currency !== "USD")
    refuse(
      line,
      `ISO destination currency code (columns 67-69) is ${JSON.stringify(destination_currency)}: accounts here are in US dollars (USD)`,
    );
  return {
    foreign_exchange_indicator: fx,
    foreign_exchange_reference_indicator: reference_indicator,
    foreign_exchange_reference: trim(b.foreign_exchange_reference!),
    iso_destination_country: destination_country,
    iso_originating_currency: originating_currency,
    iso_destination_currency: destination_currency,
  };
}

/** An IAT entry detail's fields, under the names of the other classes' entry where they mean the same. */
function iatEntryFields(record: string, line: number): Record<string, string> {
  const e = fields(IAT_ENTRY_DETAIL, record, line);
  return {
    ...e,
    // Filled from addenda 15 and 10 once they are read.
    individual_identification_number: "",
    individual_name: "",
    discretionary_data: "",
  };
}

function iatBank(a: Record<string, string>, prefix: string): IatBank {
  return {
    name: trim(a[`${prefix}_name`]!),
    qualifier: trim(a[`${prefix}_identification_qualifier`]!),
    identification: trim(a[`${prefix}_identification`]!),
    country: trim(a[`${prefix}_branch_country_code`]!),
  };
}

/**
 * The addenda of an IAT entry from `start`: 10 to 16 in that order (all seven required), then up to
 * two 17 and five 18, each carrying the entry's sequence number; their count must be the one the
 * entry states (columns 13-16). Fills the entry's parties in and returns where the next record is.
 */
function readIatAddenda(
  lines: readonly string[],
  start: number,
  entry: InboundEntry,
  batch: IatBatch,
  e: Record<string, string>,
  entry_line: number,
): { count: number; next: number } {
  const read: Record<string, string>[] = [];
  const records: string[] = [];
  const remittance: string[] = [];
  const correspondents: IatBank[] = [];
  let i = start;
  while (lines[i]?.[0] === "7") {
    const line = i + 1;
    const record = lines[i]!;
    const type = record.slice(1, 3);
    const expected = read.length < IAT_MANDATORY_ADDENDA.length ? String(10 + read.length) : null;
    if (expected !== null && type !== expected)
      refuse(
        line,
        `an IAT entry's addenda ${expected} is missing: its addenda come 10 to 16 in order (then 17 and 18), not type ${type}`,
      );
    let a: Record<string, string>;
    if (expected !== null) {
      a = fields(IAT_MANDATORY_ADDENDA[read.length]!, record, line);
      read.push(a);
    } else if (type === "17") {
      if (correspondents.length > 0) refuse(line, "an IAT addenda 17 comes before the addenda 18");
      a = fields(IAT_ADDENDA_17, record, line);
      if (remittance.length >= IAT_ADDENDA_17_MAX)
        refuse(line, `an IAT entry has at most ${IAT_ADDENDA_17_MAX} addenda 17`);
      if (Number(a.addenda_sequence_number) !== remittance.length + 1)
        refuse(line, `addenda sequence number ${Number(a.addenda_sequence_number)} is not ${remittance.length + 1}`);
      remittance.push(trim(a.payment_related_information!));
    } else if (type === "18") {
      a = fields(IAT_ADDENDA_18, record, line);
      if (correspondents.length >= IAT_ADDENDA_18_MAX)
        refuse(line, `an IAT entry has at most ${IAT_ADDENDA_18_MAX} addenda 18`);
      if (Number(a.addenda_sequence_number) !== correspondents.length + 1)
        refuse(
          line,
          `addenda sequence number ${Number(a.addenda_sequence_number)} is not ${correspondents.length + 1}`,
        );
      correspondents.push(iatBank(a, "correspondent_bank"));
    } else {
      refuse(line, `addenda type ${JSON.stringify(type)} does not belong to an IAT entry (10 to 18)`);
    }
    if (a.entry_detail_sequence_number !== entry.trace_number.slice(-7))
      refuse(
        line,
        `entry detail sequence number ${a.entry_detail_sequence_number} is not the last seven digits of its entry's trace number ${entry.trace_number}`,
      );
    records.push(record);
    i++;
  }
  if (read.length < IAT_MANDATORY_ADDENDA.length)
    refuse(
      entry_line,
      `an IAT entry carries the seven addenda 10 to 16; this one has ${read.length === 0 ? "none" : `only up to ${9 + read.length}`}`,
    );
  const stated = Number(e.number_of_addenda_records);
  if (stated !== records.length)
    refuse(entry_line, `number of addenda records (columns 13-16) is ${stated}, the entry has ${records.length}`);
  const [a10, a11, a12, a13, a14, a15, a16] = read as [
    Record<string, string>,
    Record<string, string>,
    Record<string, string>,
    Record<string, string>,
    Record<string, string>,
    Record<string, string>,
    Record<string, string>,
  ];
  const receiver_name = trim(a10.receiving_name!);
  const originator_name = trim(a11.originator_name!);
  if (receiver_name === "") refuse(start + 1, "the receiver's name (addenda 10, columns 47-81) is blank");
  if (originator_name === "") refuse(start + 2, "the originator's name (addenda 11, columns 4-38) is blank");
  const [originator_city, originator_state] = iatAddressParts(a12.originator_city_state!);
  const [originator_country, originator_postal] = iatAddressParts(a12.originator_country_postal!);
  const [receiver_city, receiver_state] = iatAddressParts(a16.receiver_city_state!);
  const [receiver_country, receiver_postal] = iatAddressParts(a16.receiver_country_postal!);
  entry.iat = {
    ...batch,
    transaction_type: trim(a10.transaction_type_code!),
    foreign_payment_amount: a10.foreign_payment_amount!,
    foreign_trace_number: trim(a10.foreign_trace_number!),
    originator: {
      name: originator_name,
      street: trim(a11.originator_street_address!),
      city: [originator_city, originator_state].filter(Boolean).join(", "),
      country: originator_country,
      postal_code: originator_postal,
    },
    receiver: {
      name: receiver_name,
      identification: trim(a15.receiver_identification_number!),
      street: trim(a15.receiver_street_address!),
      city: [receiver_city, receiver_state].filter(Boolean).join(", "),
      country: receiver_country,
      postal_code: receiver_postal,
    },
    odfi: iatBank(a13, "odfi"),
    rdfi: iatBank(a14, "rdfi"),
    correspondents,
    remittance,
    gateway_ofac_indicator: trim(e.gateway_operator_ofac_screening_indicator ?? ""),
    secondary_ofac_indicator: trim(e.secondary_ofac_screening_indicator ?? ""),
    addenda_records: records,
  };
  entry.individual_name = receiver_name;
  entry.individual_id = entry.iat.receiver.identification;
  entry.payment_information = remittance.filter(Boolean).join(" ") || null;
  return { count: records.length, next: i };
}
