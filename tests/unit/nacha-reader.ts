/**
 * An independent NACHA reader for the tests, written from the NACHA record layouts (the
 * Operating Rules' Appendix Three column tables) and sharing no code with app/domain/nacha: a
 * column mistake made in the writer's layout would have to be made again here, by hand, for a
 * wrong file to pass. It reads every field of every record and checks every control the rules
 * define, throwing "line N: rule" on the first problem.
 */

export interface ReadFileHeader {
  priority_code: string;
  immediate_destination: string; // 9 digits (the leading blank checked)
  immediate_origin: string;
  creation_date: string; // YYMMDD
  creation_time: string; // HHMM
  file_id_modifier: string;
  destination_name: string; // trimmed
  origin_name: string;
  reference_code: string;
}

export interface ReadEntry {
  transaction_code: string;
  rdfi: string; // 8 digits
  check_digit: string;
  account_number: string; // trimmed
  amount_cents: number;
  individual_id: string;
  individual_name: string;
  discretionary_data: string;
  addenda_indicator: string;
  trace_number: string;
  addenda: Array<{ type: string; text: string; sequence: number; entry_sequence: string }>;
  /** An IAT entry: columns 13-16, the number of addenda it says follow. */
  iat_addenda_count?: number;
}

export interface ReadBatch {
  service_class_code: string;
  company_name: string;
  company_discretionary_data: string;
  company_id: string;
  sec_code: string;
  entry_description: string;
  descriptive_date: string;
  effective_date: string; // YYMMDD
  settlement_date: string;
  originator_status: string;
  odfi: string;
  batch_number: number;
  entries: ReadEntry[];
  /** An IAT batch header's own columns. */
  iat?: {
    foreign_exchange_indicator: string;
    foreign_exchange_reference_indicator: string;
    foreign_exchange_reference: string;
    destination_country: string;
    originating_currency: string;
    destination_currency: string;
  };
  control: {
    entry_addenda_count: number;
    entry_hash: string;
    debit_cents: number;
    credit_cents: number;
    company_id: string;
    odfi: string;
    batch_number: number;
  };
}

export interface ReadFile {
  header: ReadFileHeader;
  batches: ReadBatch[];
  control: {
    batch_count: number;
    block_count: number;
    entry_addenda_count: number;
    entry_hash: string;
    debit_cents: number;
    credit_cents: number;
  };
  record_count: number; // without padding
  line_count: number;
}

class ReadError extends Error {}

function fail(line: number, rule: string): never {
  throw new ReadError(`line ${line}: ${rule}`);
}

/** Columns as the rules number them: 1-based, inclusive. */
function cols(record: string, from: number, to: number): string {
  return record.substring(from - 1, to);
}

function digits(record: string, from: number, to: number, line: number, name: string): string {
  const text = cols(record, from, to);
  if (!/^\d+$/.test(text)) fail(line, `${name} (columns ${from}-${to}) must be digits, got ${JSON.stringify(text)}`);
  return text;
}

function blank(record: string, from: number, to: number, line: number, name: string): void {
  if (cols(record, from, to).trim() !== "") fail(line, `${name} (columns ${from}-${to}) must be blank`);
}

function abaValid(nine: string): boolean {
  const w = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(nine[i]) * w[i]!;
  return sum % 10 === 0;
}

function hashOf(rdfis: string[]): string {
  const sum = rdfis.reduce((total, r) => total + BigInt(r), 0n);
  const text = sum.toString();
  return text.slice(-10).padStart(10, "0");
}

function printable(record: string, line: number): void {
  for (let i = 0; i < record.length; i++) {
    const code = record.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) fail(line, `column ${i + 1} holds a character outside printable ASCII`);
  }
}

/**
 * `inbound`: a file the Federal Reserve sends (its batches come from other banks, so a batch's
 * ODFI is not the file's origin). `returns`: entries may be returns (21, 26, 31, 36) with an
 * addenda type 99 (columns 4-6 reason, 7-21 original trace number, 22-27 date of death, 28-35
 * original receiving DFI, 36-79 information, 80-94 the return's own trace number).
 *
 * IAT batches (columns 51-53 IAT) are read in their own layout: the header's 5-20 IAT indicator,
 * 21-22 foreign exchange indicator, 23 its reference indicator, 24-38 reference, 39-40 destination
 * country, 41-50 originator identification, 64-66 and 67-69 the currencies; the entry's 13-16
 * addenda count, 17-29 reserved, 40-74 account number, 75-76 reserved, 77-78 OFAC indicators;
 * then addenda 10 to 16 in order, optional 17 and 18, and for a return the IAT addenda 99 (22-27
 * reserved, 36-45 the original forward entry's amount, 46-79 information).
 */
export function readNachaFile(text: string, options: { inbound?: boolean; returns?: boolean } = {}): ReadFile {
  const returns = options.returns === true || options.inbound === true;
  const CREDIT_CODES = returns ? ["21", "22", "23", "31", "32", "33"] : ["22", "23", "32", "33"];
  const DEBIT_CODES = returns ? ["26", "27", "28", "36", "37", "38"] : ["27", "28", "37", "38"];
  if (!text.endsWith("\n")) fail(0, "the file must end with a line break");
  const lines = text.slice(0, -1).split("\n");
  lines.forEach((record, i) => {
    if (record.length !== 94) fail(i + 1, `record length is ${record.length}, not 94`);
    printable(record, i + 1);
  });
  if (lines.length % 10 !== 0)
    fail(lines.length, `${lines.length} records is not a multiple of the blocking factor 10`);

  let i = 0;
  const line = () => i + 1;
  const h = lines[i]!;
  if (h[0] !== "1") fail(1, "the first record must be a file header (type 1)");
  if (cols(h, 4, 4) !== " " || cols(h, 14, 14) !== " ") fail(1, "immediate destination and origin start with a blank");
  const header: ReadFileHeader = {
    priority_code: digits(h, 2, 3, 1, "priority code"),
    immediate_destination: digits(h, 5, 13, 1, "immediate destination"),
    immediate_origin: digits(h, 15, 23, 1, "immediate origin"),
    creation_date: digits(h, 24, 29, 1, "file creation date"),
    creation_time: digits(h, 30, 33, 1, "file creation time"),
    file_id_modifier: cols(h, 34, 34),
    destination_name: cols(h, 41, 63).trimEnd(),
    origin_name: cols(h, 64, 86).trimEnd(),
    reference_code: cols(h, 87, 94).trimEnd(),
  };
  if (header.priority_code !== "01") fail(1, "priority code must be 01");
  if (!/^[A-Z0-9]$/.test(header.file_id_modifier)) fail(1, "file id modifier must be A-Z or 0-9");
  if (cols(h, 35, 37) !== "094") fail(1, "record size must be 094");
  if (cols(h, 38, 39) !== "10") fail(1, "blocking factor must be 10");
  if (cols(h, 40, 40) !== "1") fail(1, "format code must be 1");
  if (!abaValid(header.immediate_destination) || !abaValid(header.immediate_origin))
    fail(1, "routing numbers in the header fail the ABA checksum");
  i++;

  const batches: ReadBatch[] = [];
  while (lines[i]?.[0] === "5") {
    const b = lines[i]!;
    const n = line();
    const iat = cols(b, 51, 53) === "IAT";
    const batch: ReadBatch = {
      service_class_code: digits(b, 2, 4, n, "service class code"),
      company_name: iat ? "" : cols(b, 5, 20).trimEnd(),
      company_discretionary_data: iat ? "" : cols(b, 21, 40).trimEnd(),
      company_id: cols(b, 41, 50).trimEnd(),
      sec_code: cols(b, 51, 53),
      entry_description: cols(b, 54, 63).trimEnd(),
      descriptive_date: cols(b, 64, 69).trimEnd(),
      effective_date: digits(b, 70, 75, n, "effective entry date"),
      settlement_date: cols(b, 76, 78),
      originator_status: cols(b, 79, 79),
      odfi: digits(b, 80, 87, n, "originating DFI"),
      batch_number: Number(digits(b, 88, 94, n, "batch number")),
      entries: [],
      control: undefined as unknown as ReadBatch["control"],
    };
    if (iat) {
      batch.descriptive_date = "";
      batch.iat = {
        foreign_exchange_indicator: cols(b, 21, 22),
        foreign_exchange_reference_indicator: digits(b, 23, 23, n, "foreign exchange reference indicator"),
        foreign_exchange_reference: cols(b, 24, 38).trimEnd(),
        destination_country: cols(b, 39, 40),
        originating_currency: cols(b, 64, 66),
        destination_currency: cols(b, 67, 69),
      };
      if (!["FV", "VF", "FF"].includes(batch.iat.foreign_exchange_indicator))
        fail(n, "the foreign exchange indicator is FV, VF or FF");
      if (!/^[A-Z]{2}$/.test(batch.iat.destination_country)) fail(n, "the destination country is two letters");
      if (!/^[A-Z]{3}$/.test(batch.iat.originating_currency) || !/^[A-Z]{3}$/.test(batch.iat.destination_currency))
        fail(n, "the currencies are three letters");
    }
    if (!["200", "220", "225"].includes(batch.service_class_code))
      fail(n, "service class code must be 200, 220 or 225");
    if (batch.settlement_date.trim() !== "") fail(n, "settlement date is left blank by the originator");
    if (batch.originator_status !== "1") fail(n, "originator status code must be 1");
    if (!options.inbound && batch.odfi !== header.immediate_origin.slice(0, 8))
      fail(n, "the batch's ODFI is not the file's origin");
    if (batch.batch_number !== batches.length + 1) fail(n, "batch numbers must run 1, 2, 3...");
    i++;
    let addenda_count = 0;
    while (lines[i]?.[0] === "6") {
      const e = lines[i]!;
      const m = line();
      const entry: ReadEntry = {
        transaction_code: digits(e, 2, 3, m, "transaction code"),
        rdfi: digits(e, 4, 11, m, "receiving DFI"),
        check_digit: digits(e, 12, 12, m, "check digit"),
        account_number: cols(e, 13, 29).trimEnd(),
        amount_cents: Number(digits(e, 30, 39, m, "amount")),
        individual_id: cols(e, 40, 54).trimEnd(),
        individual_name: cols(e, 55, 76).trimEnd(),
        discretionary_data: cols(e, 77, 78),
        addenda_indicator: digits(e, 79, 79, m, "addenda record indicator"),
        trace_number: digits(e, 80, 94, m, "trace number"),
        addenda: [],
      };
      if (iat) {
        entry.account_number = cols(e, 40, 74).trimEnd();
        entry.individual_id = "";
        entry.individual_name = "";
        entry.discretionary_data = "";
        entry.iat_addenda_count = Number(digits(e, 13, 16, m, "number of addenda records"));
        blank(e, 17, 29, m, "reserved");
        blank(e, 75, 76, m, "reserved");
        if (entry.addenda_indicator !== "1") fail(m, "an IAT entry always has addenda");
      }
      if (!abaValid(entry.rdfi + entry.check_digit)) fail(m, "the receiving DFI's check digit is wrong");
      if (entry.account_number === "" || cols(e, iat ? 40 : 13, iat ? 40 : 13) === " ")
        fail(m, "the account number is left-justified and not empty");
      if (batch.service_class_code === "220" && !CREDIT_CODES.includes(entry.transaction_code))
        fail(m, "a credits-only batch holds a debit");
      if (batch.service_class_code === "225" && !DEBIT_CODES.includes(entry.transaction_code))
        fail(m, "a debits-only batch holds a credit");
      if (!CREDIT_CODES.includes(entry.transaction_code) && !DEBIT_CODES.includes(entry.transaction_code))
        fail(m, `transaction code ${entry.transaction_code} is not one this reader knows`);
      if (!entry.trace_number.startsWith(batch.odfi)) fail(m, "the trace number does not start with the ODFI");
      const previous = batch.entries.at(-1);
      if (previous && previous.trace_number >= entry.trace_number) fail(m, "trace numbers must ascend within a batch");
      i++;
      while (lines[i]?.[0] === "7") {
        const a = lines[i]!;
        const k = line();
        if (iat && cols(a, 2, 3) !== "99") {
          const type = digits(a, 2, 3, k, "addenda type code");
          const expected = entry.addenda.length < 7 ? String(10 + entry.addenda.length) : null;
          if (expected !== null && type !== expected) fail(k, `IAT addenda ${expected} must come here`);
          if (expected === null && type !== "17" && type !== "18") fail(k, "after 16 an IAT entry has 17 or 18 only");
          if (digits(a, 88, 94, k, "entry detail sequence number") !== entry.trace_number.slice(-7))
            fail(k, "the addenda's entry sequence is not its entry's trace number");
          entry.addenda.push({
            type,
            text: cols(a, 4, 87).trimEnd(),
            sequence: entry.addenda.length + 1,
            entry_sequence: cols(a, 88, 94),
          });
          addenda_count++;
          i++;
          continue;
        }
        if (returns && cols(a, 2, 3) === "99") {
          if (iat) {
            if (entry.addenda.length !== 7) fail(k, "an IAT return's addenda 99 follows the addenda 10 to 16");
            blank(a, 22, 27, k, "reserved");
            digits(a, 36, 45, k, "original forward entry payment amount");
          }
          if (!["21", "26", "31", "36"].includes(entry.transaction_code))
            fail(k, "a return addenda follows an entry that is not a return");
          if (!/^R\d\d$/.test(cols(a, 4, 6))) fail(k, "return reason code must be R and two digits");
          digits(a, 7, 21, k, "original entry trace number");
          digits(a, 28, 35, k, "original receiving DFI");
          if (digits(a, 80, 94, k, "trace number") !== entry.trace_number)
            fail(k, "the return addenda's trace number is not its entry's");
          if (iat && Number(cols(a, 36, 45)) !== entry.amount_cents)
            fail(k, "the IAT return's original amount is not the entry's");
          entry.addenda.push({
            type: "99",
            text: cols(a, 4, 79).trimEnd(),
            sequence: 1,
            entry_sequence: cols(a, 88, 94),
          });
          addenda_count++;
          i++;
          continue;
        }
        const addenda = {
          type: digits(a, 2, 3, k, "addenda type code"),
          text: cols(a, 4, 83).trimEnd(),
          sequence: Number(digits(a, 84, 87, k, "addenda sequence number")),
          entry_sequence: digits(a, 88, 94, k, "entry detail sequence number"),
        };
        if (entry.addenda_indicator !== "1") fail(k, "an addenda follows an entry whose indicator is 0");
        if (addenda.type !== "05") fail(k, "a PPD addenda is type 05");
        if (addenda.sequence !== entry.addenda.length + 1) fail(k, "addenda sequence numbers run 1, 2...");
        if (addenda.entry_sequence !== entry.trace_number.slice(-7))
          fail(k, "the addenda's entry sequence is not its entry's trace number");
        entry.addenda.push(addenda);
        addenda_count++;
        i++;
      }
      if (entry.addenda_indicator === "1" && entry.addenda.length === 0)
        fail(m, "the addenda indicator is 1 but no addenda follows");
      if (iat && entry.addenda.length < 7) fail(m, "an IAT entry carries the addenda 10 to 16");
      if (iat && entry.iat_addenda_count !== entry.addenda.length) fail(m, "the IAT entry's addenda count is wrong");
      if (["21", "26", "31", "36"].includes(entry.transaction_code) && entry.addenda[iat ? 7 : 0]?.type !== "99")
        fail(m, "a return needs an addenda type 99");
      if (batch.sec_code === "PPD" && entry.addenda.length > 1) fail(m, "a PPD entry has at most one addenda");
      batch.entries.push(entry);
    }
    const c = lines[i];
    const k = line();
    if (c?.[0] !== "8") fail(k, "a batch must end with a batch control (type 8)");
    batch.control = {
      entry_addenda_count: Number(digits(c, 5, 10, k, "entry/addenda count")),
      entry_hash: digits(c, 11, 20, k, "entry hash"),
      debit_cents: Number(digits(c, 21, 32, k, "total debit")),
      credit_cents: Number(digits(c, 33, 44, k, "total credit")),
      company_id: cols(c, 45, 54).trimEnd(),
      odfi: digits(c, 80, 87, k, "originating DFI"),
      batch_number: Number(digits(c, 88, 94, k, "batch number")),
    };
    blank(c, 55, 73, k, "message authentication code");
    blank(c, 74, 79, k, "reserved");
    if (digits(c, 2, 4, k, "service class code") !== batch.service_class_code)
      fail(k, "the control's service class is not the header's");
    if (batch.control.entry_addenda_count !== batch.entries.length + addenda_count)
      fail(k, "entry/addenda count is wrong");
    if (batch.control.entry_hash !== hashOf(batch.entries.map((e) => e.rdfi))) fail(k, "entry hash is wrong");
    const credits = batch.entries
      .filter((e) => CREDIT_CODES.includes(e.transaction_code))
      .reduce((s, e) => s + e.amount_cents, 0);
    const debits = batch.entries
      .filter((e) => DEBIT_CODES.includes(e.transaction_code))
      .reduce((s, e) => s + e.amount_cents, 0);
    if (batch.control.credit_cents !== credits) fail(k, "total credit is wrong");
    if (batch.control.debit_cents !== debits) fail(k, "total debit is wrong");
    if (batch.control.company_id !== batch.company_id) fail(k, "the control's company id is not the header's");
    if (batch.control.odfi !== batch.odfi || batch.control.batch_number !== batch.batch_number)
      fail(k, "the control's ODFI or batch number is not the header's");
    if (batch.entries.length === 0) fail(k, "a batch holds at least one entry");
    batches.push(batch);
    i++;
  }
  const f = lines[i];
  const k = line();
  if (f?.[0] !== "9") fail(k, "expected a batch header (5) or the file control (9)");
  const control = {
    batch_count: Number(digits(f, 2, 7, k, "batch count")),
    block_count: Number(digits(f, 8, 13, k, "block count")),
    entry_addenda_count: Number(digits(f, 14, 21, k, "entry/addenda count")),
    entry_hash: digits(f, 22, 31, k, "entry hash"),
    debit_cents: Number(digits(f, 32, 43, k, "total debit")),
    credit_cents: Number(digits(f, 44, 55, k, "total credit")),
  };
  blank(f, 56, 94, k, "reserved");
  const record_count = i + 1;
  if (control.batch_count !== batches.length) fail(k, "batch count is wrong");
  if (control.block_count !== lines.length / 10) fail(k, "block count is wrong");
  if (control.entry_addenda_count !== batches.reduce((s, b) => s + b.control.entry_addenda_count, 0))
    fail(k, "entry/addenda count is wrong");
  if (control.entry_hash !== hashOf(batches.flatMap((b) => b.entries.map((e) => e.rdfi))))
    fail(k, "entry hash is wrong");
  if (control.credit_cents !== batches.reduce((s, b) => s + b.control.credit_cents, 0))
    fail(k, "total credit is wrong");
  if (control.debit_cents !== batches.reduce((s, b) => s + b.control.debit_cents, 0)) fail(k, "total debit is wrong");
  for (i = i + 1; i < lines.length; i++) {
    if (lines[i] !== "9".repeat(94)) fail(line(), "after the file control only padding records of nines may follow");
  }
  if (lines.length - record_count >= 10) fail(lines.length, "more padding than one block");
  const traces = batches.flatMap((b) => b.entries.map((e) => e.trace_number));
  if (new Set(traces).size !== traces.length) fail(0, "trace numbers must be unique in the file");
  return { header, batches, control, record_count, line_count: lines.length };
}
