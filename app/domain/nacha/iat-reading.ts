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
} from "./iat";
import type { InboundEntry } from "./inbound-file";
import { fields, refuse, trim } from "./record-reading";

/**
 * Reading an IAT batch of an inbound file (reader.ts): its header's exchange fields, its entries'
 * layout, and each entry's seven mandatory addenda naming every party (./iat.ts holds the layouts).
 */

/**
 * An IAT batch header's fields, under the names the other batch headers use where they mean the
 * same (the originator identification is the company identification the batch control repeats;
 * an IAT batch names no company: each entry's addenda 11 names its originator).
 */
export function iatBatchFields(record: string, line: number): Record<string, string> {
  const b = fields(IAT_BATCH_HEADER, record, line);
  return {
    ...b,
    company_name: "",
    company_discretionary_data: "",
    company_identification: b.originator_identification!,
  };
}

/** The exchange fields of an IAT batch, checked: only US dollar entries to the United States are received. */
export function iatBatch(b: Record<string, string>, line: number): IatBatch {
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
export function iatEntryFields(record: string, line: number): Record<string, string> {
  const e = fields(IAT_ENTRY_DETAIL, record, line);
  return {
    ...e,
    // Filled from addenda 15 and 10 once they are read.
    individual_identification_number: "",
    individual_name: "",
    discretionary_data: "",
  };
}

/** A bank an IAT addenda names (13 the originator's, 14 the receiver's, 18 a correspondent). */
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
export function readIatAddenda(
  lines: readonly string[],
  start: number,
  entry: InboundEntry,
  batch: IatBatch,
  e: Record<string, string>,
  entry_line: number,
): { count: number; next: number } {
  const { read, records, remittance, correspondents, next: i } = iatAddendaRecords(lines, start, entry);
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

/** The addenda records of an IAT entry from `start`, each in its layout, in the order NACHA sets. */
function iatAddendaRecords(lines: readonly string[], start: number, entry: InboundEntry) {
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
  return { read, records, remittance, correspondents, next: i };
}
