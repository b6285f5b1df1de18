import { findCurrency } from "~/domain/currencies";

/**
 * Writes an ISO 20022 pain.001.001.09 message (customer credit transfer initiation) for the
 * wires of one export (pure): a group header (message id, creation time, number of
 * transactions, control sum, initiating party), one payment information block whose debtor is
 * the institution (its name and routing number, its wire settlement account, its agent by ABA
 * routing number), and one credit transfer per wire (end-to-end id = the member's reference
 * number, the instructed amount in the wire's currency, charge bearer, creditor agent by BIC,
 * creditor, creditor account by IBAN or by account number, the member's text as remittance).
 *
 * Every text is escaped for XML and cut to the schema's length; characters XML 1.0 cannot carry
 * are dropped. Bad input throws `Pain001Error` before any text is made.
 */

export const PAIN001_NAMESPACE = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09";

export type ChargeBearer = "DEBT" | "CRED" | "SHAR" | "SLEV";

export interface Pain001Transfer {
  /** Our id for the instruction (Max35Text), e.g. "W42". */
  instruction_id: string;
  /** The member's reference number, quoted back by every bank on the way. */
  end_to_end_id: string;
  currency: string;
  /** In the currency's minor units (no decimals for JPY, three for BHD). */
  amount_minor_units: number;
  creditor_name: string;
  /** ISO 3166 alpha-2. */
  creditor_country: string;
  /** With an IBAN the account is given by it; otherwise by `creditor_account_number`. */
  creditor_iban?: string;
  creditor_account_number: string;
  creditor_agent_bic: string;
  creditor_agent_name: string;
  /** Free text for the creditor (140 characters kept). */
  remittance_information?: string;
}

export interface Pain001Input {
  message_id: string;
  /** ISO date-time with offset, e.g. 2026-11-24T10:30:00Z. */
  created_at: string;
  /** YYYY-MM-DD: the day the correspondent is asked to execute. */
  requested_execution_date: string;
  debtor: { name: string; routing_number: string; account_number: string };
  charge_bearer: ChargeBearer;
  transfers: readonly Pain001Transfer[];
}

export interface Pain001Message {
  xml: string;
  number_of_transactions: number;
  /** The control sum as written: the sum of the amounts as decimals, whatever their currency. */
  control_sum: string;
}

export class Pain001Error extends Error {}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Pain001Error(message);
}

/** What XML 1.0 cannot hold: control characters, lone surrogates, U+FFFE/U+FFFF. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Drops what XML 1.0 cannot hold. */
function xmlChars(value: string): string {
  return value.replace(NOT_XML, "");
}

/**
 * The characters of `value` a pain.001 message cannot carry (XML 1.0's, written "U+FFFF"), each
 * once, in order: empty when the whole text can be written. The schema's text types
 * (Max35Text, Max140Text) add no character rule of their own, only a length of at least one.
 */
export function xmlUnfitCharacters(value: string): string[] {
  const found = new Set<string>();
  for (const [character] of value.matchAll(NOT_XML))
    found.add(`U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`);
  return [...found];
}

/** Text for an element: XML-safe, white space collapsed, at most `max` characters (code points). */
export function xmlText(value: string, max: number): string {
  const plain = xmlChars(value).replace(/\s+/g, " ").trim();
  const cut = Array.from(plain).slice(0, max).join("").trim();
  return cut
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** Minor units as the schema's decimal: 123456 EUR -> "1234.56", 1000 JPY -> "1000", 1 BHD -> "0.001". */
export function decimalAmount(amount_minor_units: number | bigint, minor_units: number): string {
  const digits = BigInt(amount_minor_units)
    .toString()
    .padStart(minor_units + 1, "0");
  return minor_units === 0 ? digits : `${digits.slice(0, -minor_units)}.${digits.slice(-minor_units)}`;
}

const MAX35 = /^.{1,35}$/u;

/**
 * Why one wire cannot be written into a message (an unknown currency, a malformed BIC, IBAN or
 * account, a name with nothing left once XML 1.0's forbidden characters are dropped), or null when
 * it can. The export leaves such a payment out for staff and writes the rest
 * (docs/product.md#payment-queues).
 */
export function pain001TransferProblem(t: Pain001Transfer): string | null {
  const currency = findCurrency(t.currency);
  if (currency === undefined || currency.code !== t.currency) return `unknown currency ${JSON.stringify(t.currency)}`;
  if (!(Number.isSafeInteger(t.amount_minor_units) && t.amount_minor_units > 0))
    return "the amount must be a positive whole number of minor units";
  if (!(MAX35.test(t.instruction_id) && MAX35.test(t.end_to_end_id))) return "ids are 1 to 35 characters";
  if (!/^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/.test(t.creditor_agent_bic))
    return `BIC ${JSON.stringify(t.creditor_agent_bic)} is not a BIC`;
  if (!/^[A-Z]{2}$/.test(t.creditor_country)) return "country must be two capital letters";
  if (!(
    t.creditor_iban === undefined ||
    t.creditor_iban === "" ||
    /^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{1,30}$/.test(t.creditor_iban)
  ))
    return "IBAN has the wrong shape";
  if (!/^\S{1,34}$/.test(t.creditor_account_number)) return "account number is 1 to 34 characters";
  if (xmlText(t.creditor_name, 140) === "") return "the creditor's name has no character an XML message can carry";
  // The agent's <Nm> is Max140Text too: at least one character.
  if (xmlText(t.creditor_agent_name, 140) === "")
    return "the creditor's bank name has no character an XML message can carry";
  return null;
}

function checkTransfer(t: Pain001Transfer, index: number): number {
  const problem = pain001TransferProblem(t);
  check(problem === null, `wire ${index + 1}: ${problem}`);
  return findCurrency(t.currency)!.minor_units;
}

export function writePain001(input: Pain001Input): Pain001Message {
  check(input.transfers.length > 0, "a message needs at least one wire");
  check(MAX35.test(input.message_id), "message id is 1 to 35 characters");
  check(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(input.created_at),
    "creation time must be an ISO date-time with offset",
  );
  check(/^\d{4}-\d{2}-\d{2}$/.test(input.requested_execution_date), "execution date must be YYYY-MM-DD");
  check(/^\d{9}$/.test(input.debtor.routing_number), "the debtor's routing number is nine digits");
  check(/^\S{1,34}$/.test(input.debtor.account_number), "the debtor's account number is 1 to 34 characters");
  const exponents = input.transfers.map(checkTransfer);

  // The control sum adds decimals of different exponents exactly: scale every amount to 10^-5 (the schema's most).
  const SCALE = 5;
  const sum_scaled = input.transfers.reduce(
    (sum, t, i) => sum + BigInt(t.amount_minor_units) * 10n ** BigInt(SCALE - exponents[i]!),
    0n,
  );
  const control_sum = decimalAmount(sum_scaled, SCALE).replace(/0+$/, "").replace(/\.$/, "");
  const count = String(input.transfers.length);
  const routing = xmlText(input.debtor.routing_number, 35);
  const usaba = `<ClrSysMmbId><ClrSysId><Cd>USABA</Cd></ClrSysId><MmbId>${routing}</MmbId></ClrSysMmbId>`;

  const lines: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<Document xmlns="${PAIN001_NAMESPACE}">`,
    `  <CstmrCdtTrfInitn>`,
    `    <GrpHdr>`,
    `      <MsgId>${xmlText(input.message_id, 35)}</MsgId>`,
    `      <CreDtTm>${input.created_at}</CreDtTm>`,
    `      <NbOfTxs>${count}</NbOfTxs>`,
    `      <CtrlSum>${control_sum}</CtrlSum>`,
    `      <InitgPty><Nm>${xmlText(input.debtor.name, 140)}</Nm></InitgPty>`,
    `    </GrpHdr>`,
    `    <PmtInf>`,
    `      <PmtInfId>${xmlText(input.message_id, 35)}</PmtInfId>`,
    `      <PmtMtd>TRF</PmtMtd>`,
    `      <NbOfTxs>${count}</NbOfTxs>`,
    `      <CtrlSum>${control_sum}</CtrlSum>`,
    `      <ReqdExctnDt><Dt>${input.requested_execution_date}</Dt></ReqdExctnDt>`,
    `      <Dbtr><Nm>${xmlText(input.debtor.name, 140)}</Nm><Id><OrgId><Othr><Id>${routing}</Id><SchmeNm><Prtry>USABA</Prtry></SchmeNm></Othr></OrgId></Id></Dbtr>`,
    `      <DbtrAcct><Id><Othr><Id>${xmlText(input.debtor.account_number, 34)}</Id></Othr></Id><Ccy>USD</Ccy></DbtrAcct>`,
    `      <DbtrAgt><FinInstnId>${usaba}</FinInstnId></DbtrAgt>`,
  ];
  input.transfers.forEach((t, i) => {
    const account = t.creditor_iban
      ? `<IBAN>${t.creditor_iban}</IBAN>`
      : `<Othr><Id>${xmlText(t.creditor_account_number, 34)}</Id></Othr>`;
    const remittance = xmlText(t.remittance_information ?? "", 140);
    lines.push(
      `      <CdtTrfTxInf>`,
      `        <PmtId><InstrId>${xmlText(t.instruction_id, 35)}</InstrId><EndToEndId>${xmlText(t.end_to_end_id, 35)}</EndToEndId></PmtId>`,
      `        <Amt><InstdAmt Ccy="${t.currency}">${decimalAmount(t.amount_minor_units, exponents[i]!)}</InstdAmt></Amt>`,
      `        <ChrgBr>${input.charge_bearer}</ChrgBr>`,
      `        <CdtrAgt><FinInstnId><BICFI>${t.creditor_agent_bic}</BICFI><Nm>${xmlText(t.creditor_agent_name, 140)}</Nm></FinInstnId></CdtrAgt>`,
      `        <Cdtr><Nm>${xmlText(t.creditor_name, 140)}</Nm><PstlAdr><Ctry>${t.creditor_country}</Ctry></PstlAdr></Cdtr>`,
      `        <CdtrAcct><Id>${account}</Id></CdtrAcct>`,
      ...(remittance === "" ? [] : [`        <RmtInf><Ustrd>${remittance}</Ustrd></RmtInf>`]),
      `      </CdtTrfTxInf>`,
    );
  });
  lines.push(`    </PmtInf>`, `  </CstmrCdtTrfInitn>`, `</Document>`, ``);
  return { xml: lines.join("\n"), number_of_transactions: input.transfers.length, control_sum };
}
