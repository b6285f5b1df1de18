import type { FieldLayout } from "./records";
import { RECORD_LENGTH } from "./records";

/**
 * International ACH transactions (IAT, Nacha Operating Rules Appendix Three, subpart 3.2.2 and
 * the IAT addenda of 3.2.3): an entry that is part of a payment to or from outside the United
 * States. Its batch header and entry detail have their own columns, and every entry carries
 * seven mandatory addenda (10 to 16) naming the payment's parties, so that the receiving bank
 * can screen each of them against OFAC's lists before the money is available (31 CFR chapter V;
 * docs/product.md#iat-entries). Up to two addenda 17 (remittance text) and five addenda 18
 * (foreign correspondent banks) may follow. Pure: the reader (`reader.ts`) and the return file
 * (`return-file.ts`) read and write these columns.
 */

function layout<const T extends readonly FieldLayout[]>(fields: T): T {
  let column = 1;
  for (const field of fields) {
    if (field.start !== column)
      throw new Error(`IAT layout: ${field.name} starts at ${field.start}, expected ${column}`);
    column += field.length;
  }
  if (column !== RECORD_LENGTH + 1) throw new Error(`IAT layout ends at column ${column - 1}, not ${RECORD_LENGTH}`);
  return fields;
}

/** Record type 5 of an IAT batch. */
export const IAT_BATCH_HEADER = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "5" },
  { name: "service_class_code", start: 2, length: 3, kind: "N" },
  /** Blank, or IATCOR for notifications of change (not received here). */
  { name: "iat_indicator", start: 5, length: 16, kind: "AN" },
  /** FV fixed to variable, VF variable to fixed, FF fixed to fixed. */
  { name: "foreign_exchange_indicator", start: 21, length: 2, kind: "AN" },
  /** 1 an exchange rate, 2 a reference number, 3 blank. */
  { name: "foreign_exchange_reference_indicator", start: 23, length: 1, kind: "N" },
  { name: "foreign_exchange_reference", start: 24, length: 15, kind: "AN" },
  { name: "iso_destination_country_code", start: 39, length: 2, kind: "AN" },
  { name: "originator_identification", start: 41, length: 10, kind: "AN" },
  { name: "standard_entry_class_code", start: 51, length: 3, kind: "AN", constant: "IAT" },
  { name: "company_entry_description", start: 54, length: 10, kind: "AN" },
  { name: "iso_originating_currency_code", start: 64, length: 3, kind: "AN" },
  { name: "iso_destination_currency_code", start: 67, length: 3, kind: "AN" },
  { name: "effective_entry_date", start: 70, length: 6, kind: "N" },
  { name: "settlement_date", start: 76, length: 3, kind: "B" },
  { name: "originator_status_code", start: 79, length: 1, kind: "AN" },
  /** The gateway operator (inbound IAT) or ODFI: eight routing digits. */
  { name: "originating_dfi_identification", start: 80, length: 8, kind: "N" },
  { name: "batch_number", start: 88, length: 7, kind: "N" },
] as const);

/** Record type 6 of an IAT batch. */
export const IAT_ENTRY_DETAIL = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "6" },
  { name: "transaction_code", start: 2, length: 2, kind: "N" },
  { name: "receiving_dfi_identification", start: 4, length: 8, kind: "N" },
  { name: "check_digit", start: 12, length: 1, kind: "N" },
  /** The addenda that follow: 7 to 14. */
  { name: "number_of_addenda_records", start: 13, length: 4, kind: "N" },
  { name: "reserved", start: 17, length: 13, kind: "B" },
  { name: "amount", start: 30, length: 10, kind: "N" },
  { name: "dfi_account_number", start: 40, length: 35, kind: "AN" },
  { name: "reserved_2", start: 75, length: 2, kind: "B" },
  /** Whether the gateway operator screened the entry (1) or not (blank, 0). Informational. */
  { name: "gateway_operator_ofac_screening_indicator", start: 77, length: 1, kind: "AN" },
  { name: "secondary_ofac_screening_indicator", start: 78, length: 1, kind: "AN" },
  { name: "addenda_record_indicator", start: 79, length: 1, kind: "N", constant: "1" },
  { name: "trace_number", start: 80, length: 15, kind: "N" },
] as const);

const SEQUENCE = { name: "entry_detail_sequence_number", start: 88, length: 7, kind: "N" } as const;

/** Addenda 10: the transaction type, the amount abroad, the receiver's name. */
export const IAT_ADDENDA_10 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "10" },
  { name: "transaction_type_code", start: 4, length: 3, kind: "AN" },
  { name: "foreign_payment_amount", start: 7, length: 18, kind: "N" },
  { name: "foreign_trace_number", start: 25, length: 22, kind: "AN" },
  { name: "receiving_name", start: 47, length: 35, kind: "AN" },
  { name: "reserved", start: 82, length: 6, kind: "B" },
  SEQUENCE,
] as const);

/** Addenda 11: the originator's name and street address. */
export const IAT_ADDENDA_11 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "11" },
  { name: "originator_name", start: 4, length: 35, kind: "AN" },
  { name: "originator_street_address", start: 39, length: 35, kind: "AN" },
  { name: "reserved", start: 74, length: 14, kind: "B" },
  SEQUENCE,
] as const);

/** Addenda 12: the originator's city and state ("CITY*STATE\"), country and postal code ("GB*SW1A 1AA\"). */
export const IAT_ADDENDA_12 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "12" },
  { name: "originator_city_state", start: 4, length: 35, kind: "AN" },
  { name: "originator_country_postal", start: 39, length: 35, kind: "AN" },
  { name: "reserved", start: 74, length: 14, kind: "B" },
  SEQUENCE,
] as const);

/** Addenda 13: the originating financial institution (ODFI), its identification and branch country. */
export const IAT_ADDENDA_13 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "13" },
  { name: "odfi_name", start: 4, length: 35, kind: "AN" },
  /** 01 national clearing system number, 02 BIC, 03 IBAN. */
  { name: "odfi_identification_qualifier", start: 39, length: 2, kind: "AN" },
  { name: "odfi_identification", start: 41, length: 34, kind: "AN" },
  { name: "odfi_branch_country_code", start: 75, length: 3, kind: "AN" },
  { name: "reserved", start: 78, length: 10, kind: "B" },
  SEQUENCE,
] as const);

/** Addenda 14: the receiving financial institution (RDFI). */
export const IAT_ADDENDA_14 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "14" },
  { name: "rdfi_name", start: 4, length: 35, kind: "AN" },
  { name: "rdfi_identification_qualifier", start: 39, length: 2, kind: "AN" },
  { name: "rdfi_identification", start: 41, length: 34, kind: "AN" },
  { name: "rdfi_branch_country_code", start: 75, length: 3, kind: "AN" },
  { name: "reserved", start: 78, length: 10, kind: "B" },
  SEQUENCE,
] as const);

/** Addenda 15: the receiver's identification number and street address. */
export const IAT_ADDENDA_15 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "15" },
  { name: "receiver_identification_number", start: 4, length: 15, kind: "AN" },
  { name: "receiver_street_address", start: 19, length: 35, kind: "AN" },
  { name: "reserved", start: 54, length: 34, kind: "B" },
  SEQUENCE,
] as const);

/** Addenda 16: the receiver's city and state, country and postal code. */
export const IAT_ADDENDA_16 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "16" },
  { name: "receiver_city_state", start: 4, length: 35, kind: "AN" },
  { name: "receiver_country_postal", start: 39, length: 35, kind: "AN" },
  { name: "reserved", start: 74, length: 14, kind: "B" },
  SEQUENCE,
] as const);

/** Addenda 17 (up to two): remittance information. */
export const IAT_ADDENDA_17 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "17" },
  { name: "payment_related_information", start: 4, length: 80, kind: "AN" },
  { name: "addenda_sequence_number", start: 84, length: 4, kind: "N" },
  SEQUENCE,
] as const);

/** Addenda 18 (up to five): a foreign correspondent bank the payment went through. */
export const IAT_ADDENDA_18 = layout([
  { name: "record_type", start: 1, length: 1, kind: "N", constant: "7" },
  { name: "addenda_type_code", start: 2, length: 2, kind: "N", constant: "18" },
  { name: "correspondent_bank_name", start: 4, length: 35, kind: "AN" },
  { name: "correspondent_bank_identification_qualifier", start: 39, length: 2, kind: "AN" },
  { name: "correspondent_bank_identification", start: 41, length: 34, kind: "AN" },
  { name: "correspondent_bank_branch_country_code", start: 75, length: 3, kind: "AN" },
  { name: "reserved", start: 78, length: 6, kind: "B" },
  { name: "addenda_sequence_number", start: 84, length: 4, kind: "N" },
  SEQUENCE,
] as const);

/** The seven mandatory addenda, in the order they must come. */
export const IAT_MANDATORY_ADDENDA = [
  IAT_ADDENDA_10,
  IAT_ADDENDA_11,
  IAT_ADDENDA_12,
  IAT_ADDENDA_13,
  IAT_ADDENDA_14,
  IAT_ADDENDA_15,
  IAT_ADDENDA_16,
] as const;

export const IAT_ADDENDA_17_MAX = 2;
export const IAT_ADDENDA_18_MAX = 5;

export const FOREIGN_EXCHANGE_INDICATORS: Record<string, string> = {
  FV: "fixed to variable",
  VF: "variable to fixed",
  FF: "fixed to fixed",
};

/** Addenda 10's transaction type codes for consumer and business payments (Appendix Three). */
export const IAT_TRANSACTION_TYPES: Record<string, string> = {
  ANN: "Annuity",
  BUS: "Business/commercial",
  DEP: "Deposit",
  LOA: "Loan",
  MIS: "Miscellaneous",
  MOR: "Mortgage",
  PEN: "Pension",
  REM: "Remittance",
  RLS: "Rent/lease",
  SAL: "Salary/payroll",
  TAX: "Tax",
  ARC: "Accounts receivable check",
  BOC: "Back office conversion",
  MTE: "Machine transfer entry",
  POP: "Point of purchase",
  POS: "Point of sale",
  RCK: "Re-presented check",
  SHR: "Shared network transaction",
  TEL: "Telephone-initiated",
  WEB: "Internet-initiated",
};

/** A bank of the payment: its name, how it is identified, and its branch country (ISO alpha-2 or -3 as sent). */
export interface IatBank {
  name: string;
  /** 01 national clearing system number, 02 BIC, 03 IBAN. */
  qualifier: string;
  identification: string;
  country: string;
}

/** A person or company of the payment, with the address the addenda carry. */
export interface IatParty {
  name: string;
  street: string;
  /** "CITY*STATE\" as sent, the delimiters removed: "LONDON". */
  city: string;
  /** The country as sent (ISO alpha-2 by the rules) and the postal code. */
  country: string;
  postal_code: string;
}

/** What the IAT batch header says of every entry in the batch. */
export interface IatBatch {
  foreign_exchange_indicator: string;
  foreign_exchange_reference_indicator: string;
  foreign_exchange_reference: string;
  iso_destination_country: string;
  iso_originating_currency: string;
  iso_destination_currency: string;
}

/** Everything an IAT entry's addenda say, as read (trailing blanks trimmed). */
export interface IatDetails extends IatBatch {
  transaction_type: string;
  foreign_payment_amount: string;
  foreign_trace_number: string;
  originator: IatParty;
  receiver: IatParty & { identification: string };
  odfi: IatBank;
  rdfi: IatBank;
  correspondents: IatBank[];
  remittance: string[];
  gateway_ofac_indicator: string;
  secondary_ofac_indicator: string;
  /** The entry's addenda records exactly as received: a return carries them back (Appendix Three, IAT returns). */
  addenda_records: string[];
}

/**
 * "CITY*STATE\" or "GB*SW1A 1AA\": the parts of an IAT address field. The rules separate them with
 * an asterisk and end the field with a backslash; both are removed here.
 */
export function iatAddressParts(text: string): [string, string] {
  const body = text.trim().replace(/\\$/, "");
  const star = body.indexOf("*");
  if (star < 0) return [body.trim(), ""];
  return [body.slice(0, star).trim(), body.slice(star + 1).trim()];
}

/** The parties an IAT entry names, as the sanctions screening takes them (docs/product.md#iat-entries). */
export function iatScreenedParties(details: IatDetails): { role: string; name: string; country: string }[] {
  const parties = [
    { role: "Originator", name: details.originator.name, country: details.originator.country },
    { role: "Receiver", name: details.receiver.name, country: details.receiver.country },
    { role: "Originating bank", name: details.odfi.name, country: details.odfi.country },
    { role: "Receiving bank", name: details.rdfi.name, country: details.rdfi.country },
    ...details.correspondents.map((bank) => ({ role: "Correspondent bank", name: bank.name, country: bank.country })),
  ];
  return parties.filter((p) => p.name.trim() !== "");
}
