/**
 * OFX 1.0.2 (SGML) bank statement download, the format Quicken and QuickBooks import
 * (docs/product.md#statements). Pure: the caller reads the account's posted transactions and
 * balance. Three file types carry the same content: `.ofx` (Open Financial Exchange), `.qfx`
 * (Quicken Web Connect) and `.qbo` (QuickBooks Web Connect); they differ in name and media type,
 * and Quicken and QuickBooks also look for an Intuit-assigned bank id (INTU.BID), written only
 * when the institution has one.
 */
import { centsAsDecimal } from "./money";

export const OFX_FILE_TYPES = {
  ofx: { extension: "ofx", media_type: "application/x-ofx" },
  qfx: { extension: "qfx", media_type: "application/vnd.intu.qfx" },
  qbo: { extension: "qbo", media_type: "application/vnd.intu.qbo" },
} as const;
export type OfxFileType = keyof typeof OFX_FILE_TYPES;

export interface OfxTransaction {
  /** Unique and stable for the account: the same transaction always has the same id. */
  fit_id: string;
  /** YYYY-MM-DD */
  posted_date: string;
  /** Signed for the account: positive money in. */
  amount_cents: number;
  name: string;
  memo?: string | null;
}

export interface OfxStatement {
  /** DTSERVER: when the file was made. */
  made_at: Date;
  institution: { name: string; routing_number: string; intuit_bank_id?: string | null };
  /** A loan is a credit line (ACCTTYPE CREDITLINE), as Quicken reads a loan from a bank statement. */
  account: { account_number: string; type: "checking" | "savings" | "credit_card" | "credit_line" };
  /** YYYY-MM-DD, inclusive. */
  from: string;
  to: string;
  transactions: readonly OfxTransaction[];
  /** The posted balance at the end of `to`, and the available balance now. */
  ledger_balance_cents: number;
  available_balance_cents: number;
}

/** SGML text: the three characters that would open or break a tag, escaped; no control characters; cut to the field's length. */
function text(value: string, max: number): string {
  const clean = value
    .replace(/\p{Cc}/gu, " ")
    .trim()
    .slice(0, max);
  return clean.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;") || "-";
}

function day(date: string): string {
  return date.replace(/-/g, "");
}

function timestamp(at: Date): string {
  return `${at.toISOString().replace(/[-:T]/g, "").slice(0, 14)}.000[0:GMT]`;
}

export function writeOfx(s: OfxStatement): string {
  const credit_card = s.account.type === "credit_card";
  const account_from = credit_card
    ? `<CCACCTFROM><ACCTID>${s.account.account_number}</CCACCTFROM>`
    : `<BANKACCTFROM><BANKID>${s.institution.routing_number}<ACCTID>${s.account.account_number}<ACCTTYPE>${s.account.type === "savings" ? "SAVINGS" : s.account.type === "credit_line" ? "CREDITLINE" : "CHECKING"}</BANKACCTFROM>`;
  const lines = s.transactions.map(
    (t) =>
      `<STMTTRN><TRNTYPE>${t.amount_cents >= 0 ? "CREDIT" : "DEBIT"}<DTPOSTED>${day(t.posted_date)}<TRNAMT>${centsAsDecimal(t.amount_cents)}<FITID>${text(t.fit_id, 255)}<NAME>${text(t.name, 32)}${t.memo ? `<MEMO>${text(t.memo, 255)}` : ""}</STMTTRN>`,
  );
  const [wrap_open, wrap_close, rs_open, rs_close] = credit_card
    ? ["<CREDITCARDMSGSRSV1><CCSTMTTRNRS>", "</CCSTMTTRNRS></CREDITCARDMSGSRSV1>", "<CCSTMTRS>", "</CCSTMTRS>"]
    : ["<BANKMSGSRSV1><STMTTRNRS>", "</STMTTRNRS></BANKMSGSRSV1>", "<STMTRS>", "</STMTRS>"];
  const made = timestamp(s.made_at);
  return [
    "OFXHEADER:100",
    "DATA:OFXSGML",
    "VERSION:102",
    "SECURITY:NONE",
    "ENCODING:USASCII",
    "CHARSET:1252",
    "COMPRESSION:NONE",
    "OLDFILEUID:NONE",
    "NEWFILEUID:NONE",
    "",
    "<OFX>",
    "<SIGNONMSGSRSV1><SONRS>",
    `<STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>${made}<LANGUAGE>ENG`,
    `<FI><ORG>${text(s.institution.name, 32)}<FID>${s.institution.routing_number}</FI>`,
    ...(s.institution.intuit_bank_id ? [`<INTU.BID>${text(s.institution.intuit_bank_id, 32)}`] : []),
    "</SONRS></SIGNONMSGSRSV1>",
    wrap_open,
    "<TRNUID>0<STATUS><CODE>0<SEVERITY>INFO</STATUS>",
    `${rs_open}<CURDEF>USD${account_from}`,
    `<BANKTRANLIST><DTSTART>${day(s.from)}<DTEND>${day(s.to)}`,
    ...lines,
    "</BANKTRANLIST>",
    `<LEDGERBAL><BALAMT>${centsAsDecimal(s.ledger_balance_cents)}<DTASOF>${day(s.to)}</LEDGERBAL>`,
    `<AVAILBAL><BALAMT>${centsAsDecimal(s.available_balance_cents)}<DTASOF>${made}</AVAILBAL>`,
    rs_close,
    wrap_close,
    "</OFX>",
    "",
  ].join("\r\n");
}
