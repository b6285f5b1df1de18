/**
 * Inbound NACHA files for the tests and the benchmark: what the Federal Reserve sends the credit
 * union. Written column by column from the NACHA record layouts, sharing no code with
 * app/domain/nacha (like nacha-reader.ts), so a column the parser reads wrongly is not
 * written wrongly here too. Every control (counts, hashes, totals, blocks) is computed; tests
 * that need a broken file edit the text afterwards (`replaceField`).
 */

export const FED_ROUTING = "011000015";
/** The credit union's routing number in the demo profile the tests run with. */
export const OUR_ROUTING = "501234566";

/** The header of a return file the credit union sends the Federal Reserve, the same in every return-file test. */
export const RETURN_FILE_HEADER = {
  origin: { routing_number: OUR_ROUTING, name: "Harborview Community Credit Union" },
  destination: { routing_number: FED_ROUTING, name: "Federal Reserve Bank" },
  created: { date: "2026-11-24", time: "14:05" },
  file_id_modifier: "B",
  effective_date: "2026-11-25",
};

export interface BuildEntry {
  /** 22, 32 credit; 27, 37 debit; 23, 28, 33, 38 prenote; 21, 26, 31, 36 return. */
  code: string;
  account_number: string;
  amount_cents: number;
  name?: string;
  id?: string;
  /** The receiving bank, nine digits (default ours). */
  routing?: string;
  /** Addenda 05 text. */
  info?: string;
  /** More addenda 05 after `info` (CTX carries many). */
  more_info?: string[];
  /** Columns 77-78 (WEB and TEL: the payment type code). */
  discretionary?: string;
  /** For a CTX entry: columns 55-58 as written (default: the addenda count). */
  ctx_addenda_count?: string;
  /** For a notification of change (COR batch): its addenda 98. */
  change_of?: { code: string; original_trace: string; corrected: string; original_rdfi?: string };
  /** For a return: its addenda 99. */
  return_of?: { reason: string; original_trace: string; original_rdfi?: string };
  /** For an entry of an IAT batch: its parties (addenda 10 to 16, then 17 and 18). */
  iat?: BuildIatParties;
}

/** The parties of an IAT entry, written into its seven mandatory addenda (Nacha Appendix Three, IAT). */
export interface BuildIatParties {
  originator_name: string;
  originator_street?: string;
  originator_city?: string;
  /** ISO alpha-2. */
  originator_country?: string;
  originator_postal?: string;
  odfi_name?: string;
  odfi_bic?: string;
  odfi_country?: string;
  rdfi_name?: string;
  receiver_street?: string;
  receiver_city?: string;
  receiver_postal?: string;
  transaction_type?: string;
  foreign_amount?: number;
  remittance?: string[];
  correspondents?: { name: string; bic: string; country: string }[];
  /** Write only the first n addenda (a broken entry). */
  only_addenda?: number;
}

export interface BuildBatch {
  company_name: string;
  company_id?: string;
  sec?: string;
  description?: string;
  /** YYMMDD. */
  effective?: string;
  /** Originating bank, eight digits. */
  odfi?: string;
  service_class?: string;
  entries: BuildEntry[];
  /** An IAT batch: its exchange fields (defaults FV, US, GBP to USD). */
  iat_header?: { fx?: string; destination_country?: string; origin_currency?: string; destination_currency?: string };
}

function n(value: number | string, width: number): string {
  const text = String(value);
  if (!/^\d+$/.test(text) || text.length > width) throw new Error(`builder: ${text} does not fit ${width} digits`);
  return text.padStart(width, "0");
}

function a(value: string, width: number): string {
  return value.toUpperCase().slice(0, width).padEnd(width, " ");
}

export function buildInboundFile(
  batches: BuildBatch[],
  options: { destination?: string; origin?: string; modifier?: string; created?: string } = {},
): string {
  const records: string[] = [];
  const destination = options.destination ?? OUR_ROUTING;
  const origin = options.origin ?? FED_ROUTING;
  records.push(
    `101 ${destination} ${origin}${options.created ?? "261124"}0900${options.modifier ?? "A"}094101${a("HARBORVIEW COMMUNITY CR", 23)}${a("FEDERAL RESERVE BANK", 23)}${a("", 8)}`,
  );
  let entries_total = 0;
  let hash_total = 0n;
  let debit_total = 0;
  let credit_total = 0;
  let trace = 0;
  batches.forEach((batch, index) => {
    const odfi = batch.odfi ?? "09100001";
    const company_id = batch.company_id ?? "1234567890";
    const sc = batch.service_class ?? "200";
    const iat = batch.sec === "IAT";
    const h = batch.iat_header ?? {};
    records.push(
      iat
        ? // IAT: 5-20 indicator, 21-22 FX indicator, 23 FX reference indicator, 24-38 reference, 39-40 destination
          // country, 41-50 originator id, 51-53 IAT, 54-63 description, 64-66 and 67-69 currencies, 70-75 date.
          `5${sc}${a("", 16)}${a(h.fx ?? "FV", 2)}3${a("", 15)}${a(h.destination_country ?? "US", 2)}${a(company_id, 10)}IAT${a(batch.description ?? "REMITTANCE", 10)}${a(h.origin_currency ?? "GBP", 3)}${a(h.destination_currency ?? "USD", 3)}${batch.effective ?? "261125"}${"   "}1${odfi}${n(index + 1, 7)}`
        : `5${sc}${a(batch.company_name, 16)}${a("", 20)}${a(company_id, 10)}${a(batch.sec ?? "PPD", 3)}${a(batch.description ?? "PAYROLL", 10)}${a("", 6)}${batch.effective ?? "261125"}${"   "}1${odfi}${n(index + 1, 7)}`,
    );
    let count = 0;
    let hash = 0n;
    let debits = 0;
    let credits = 0;
    for (const entry of batch.entries) {
      trace++;
      const routing = entry.routing ?? destination;
      const trace_number = `${odfi}${n(trace, 7)}`;
      const infos = entry.info !== undefined ? [entry.info, ...(entry.more_info ?? [])] : [];
      const addenda = infos.length + (entry.return_of ? 1 : 0) + (entry.change_of ? 1 : 0);
      // CTX: columns 55-58 the number of addenda, 59-74 the receiving company, 75-76 reserved.
      const name =
        batch.sec === "CTX"
          ? `${entry.ctx_addenda_count ?? n(addenda, 4)}${a(entry.name ?? "ACME SUPPLY", 16)}  `
          : a(entry.name ?? "JORDAN MORGAN", 22);
      if (iat) {
        const iat_addenda = iatAddenda(entry, trace_number);
        // IAT entry: 13-16 addenda count, 17-29 reserved, 30-39 amount, 40-74 account, 75-76 reserved, 77-78 OFAC indicators.
        records.push(
          `6${entry.code}${routing.slice(0, 8)}${routing.slice(8)}${n(iat_addenda.length, 4)}${" ".repeat(13)}${n(entry.amount_cents, 10)}${a(entry.account_number, 35)}${"  "}${"  "}1${trace_number}`,
        );
        records.push(...iat_addenda);
        count += 1 + iat_addenda.length;
        hash += BigInt(routing.slice(0, 8));
        if (Number(entry.code.slice(-1)) <= 4) credits += entry.amount_cents;
        else debits += entry.amount_cents;
        continue;
      }
      records.push(
        `6${entry.code}${routing.slice(0, 8)}${routing.slice(8)}${a(entry.account_number, 17)}${n(entry.amount_cents, 10)}${a(entry.id ?? "", 15)}${name}${a(entry.discretionary ?? "", 2)}${addenda > 0 ? 1 : 0}${trace_number}`,
      );
      count++;
      infos.forEach((info, i) => {
        records.push(`705${a(info, 80)}${n(i + 1, 4)}${trace_number.slice(-7)}`);
        count++;
      });
      if (entry.change_of) {
        const c = entry.change_of;
        records.push(
          `798${c.code}${c.original_trace}${"      "}${c.original_rdfi ?? OUR_ROUTING.slice(0, 8)}${a(c.corrected, 29)}${" ".repeat(15)}${trace_number}`,
        );
        count++;
      }
      if (entry.return_of) {
        records.push(
          `799${entry.return_of.reason}${entry.return_of.original_trace}${"      "}${entry.return_of.original_rdfi ?? "02100002"}${a("", 44)}${trace_number}`,
        );
        count++;
      }
      hash += BigInt(routing.slice(0, 8));
      if (Number(entry.code.slice(-1)) <= 4) credits += entry.amount_cents;
      else debits += entry.amount_cents;
    }
    const hash_text = String(hash % 10_000_000_000n).padStart(10, "0");
    records.push(
      `8${sc}${n(count, 6)}${hash_text}${n(debits, 12)}${n(credits, 12)}${a(company_id, 10)}${" ".repeat(25)}${odfi}${n(index + 1, 7)}`,
    );
    entries_total += count;
    hash_total += hash;
    debit_total += debits;
    credit_total += credits;
  });
  const blocks = Math.ceil((records.length + 1) / 10);
  records.push(
    `9${n(batches.length, 6)}${n(blocks, 6)}${n(entries_total, 8)}${String(hash_total % 10_000_000_000n).padStart(10, "0")}${n(debit_total, 12)}${n(credit_total, 12)}${" ".repeat(39)}`,
  );
  while (records.length % 10 !== 0) records.push("9".repeat(94));
  for (const record of records)
    if (record.length !== 94) throw new Error(`builder wrote a record of ${record.length}: ${record}`);
  return `${records.join("\n")}\n`;
}

/** The addenda 10 to 16 (then 17, 18) of an IAT entry, column by column from Appendix Three. */
function iatAddenda(entry: BuildEntry, trace_number: string): string[] {
  const p = entry.iat ?? { originator_name: "HARTLEY TRADING LTD" };
  const seq = trace_number.slice(-7);
  const records = [
    // 10: 4-6 transaction type, 7-24 foreign amount, 25-46 foreign trace, 47-81 receiver name, 82-87 reserved.
    `710${a(p.transaction_type ?? "REM", 3)}${n(p.foreign_amount ?? entry.amount_cents, 18)}${a("", 22)}${a(entry.name ?? "JORDAN MORGAN", 35)}${a("", 6)}${seq}`,
    // 11: 4-38 originator name, 39-73 street, 74-87 reserved.
    `711${a(p.originator_name, 35)}${a(p.originator_street ?? "12 KING STREET", 35)}${a("", 14)}${seq}`,
    // 12: 4-38 city*state\, 39-73 country*postal\.
    `712${a(`${p.originator_city ?? "LONDON"}*\\`, 35)}${a(`${p.originator_country ?? "GB"}*${p.originator_postal ?? "EC2V 7HH"}\\`, 35)}${a("", 14)}${seq}`,
    // 13: 4-38 ODFI name, 39-40 qualifier, 41-74 identification, 75-77 branch country, 78-87 reserved.
    `713${a(p.odfi_name ?? "BARCLAYS BANK PLC", 35)}02${a(p.odfi_bic ?? "BARCGB22", 34)}${a(p.odfi_country ?? "GB", 3)}${a("", 10)}${seq}`,
    // 14: the RDFI (us), identified by routing number (qualifier 01).
    `714${a(p.rdfi_name ?? "HARBORVIEW COMMUNITY CU", 35)}01${a(OUR_ROUTING, 34)}${a("US", 3)}${a("", 10)}${seq}`,
    // 15: 4-18 receiver id, 19-53 street, 54-87 reserved.
    `715${a(entry.id ?? "", 15)}${a(p.receiver_street ?? "400 HARBOR WAY", 35)}${a("", 34)}${seq}`,
    // 16: 4-38 city*state\, 39-73 country*postal\.
    `716${a(`${p.receiver_city ?? "PORTLAND"}*ME\\`, 35)}${a(`US*${p.receiver_postal ?? "04101"}\\`, 35)}${a("", 14)}${seq}`,
  ];
  (p.remittance ?? []).forEach((text, i) => records.push(`717${a(text, 80)}${n(i + 1, 4)}${seq}`));
  (p.correspondents ?? []).forEach((bank, i) =>
    records.push(`718${a(bank.name, 35)}02${a(bank.bic, 34)}${a(bank.country, 3)}${a("", 6)}${n(i + 1, 4)}${seq}`),
  );
  return p.only_addenda === undefined ? records : records.slice(0, p.only_addenda);
}

/** The text with one record's columns (1-based, inclusive) replaced: a file broken on purpose. */
export function replaceField(text: string, line: number, from: number, to: number, value: string): string {
  const lines = text.split("\n");
  const record = lines[line - 1]!;
  if (value.length !== to - from + 1) throw new Error("replaceField: the value must fill the columns");
  lines[line - 1] = record.slice(0, from - 1) + value + record.slice(to);
  return lines.join("\n");
}

/** The 1-based line of the first record starting with `prefix` (after `after`). */
export function lineOf(text: string, prefix: string, after = 0): number {
  const lines = text.split("\n");
  for (let i = after; i < lines.length; i++) if (lines[i]!.startsWith(prefix)) return i + 1;
  throw new Error(`no record starting ${prefix}`);
}
