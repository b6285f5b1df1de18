import { referenceNumber } from "~/domain/account-display";
import { sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { csvDocument, csvField } from "~/server/files/csv.server";
import { institution } from "~/config/institution.server";
import { businessDate, toCents, toId } from "~/domain/ledger-rules";
import { CALENDAR_DATE_MESSAGE, isCalendarDate } from "~/domain/calendar-date";
import { EXPORT_DAYS_MAX } from "~/domain/statements";
import { centsAsDecimal } from "~/domain/money";
import { OFX_FILE_TYPES, writeOfx, type OfxFileType } from "~/domain/ofx";
import { STATEMENT_ACCOUNT_MESSAGE, memberAccountOf } from "./member-statements.server";
import { memberLoanLines } from "~/server/loans/loan-views.server";
import { memberLineExportLines } from "./line-statements.server";

/**
 * The member's transactions of one account for a date range, as CSV or as OFX 1.0.2 (.ofx, .qfx
 * for Quicken, .qbo for QuickBooks) (docs/product.md#statements). Posted transactions only (a
 * reversed one and its reversal both appear), with the balance after each; the range is at most
 * EXPORT_DAYS_MAX days and ends no later than today.
 */
export { EXPORT_DAYS_MAX };
export const EXPORT_FORMATS = ["csv", "ofx", "qfx", "qbo"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_MESSAGES = {
  format: "Please choose CSV, OFX, QFX or QBO",
  order: "The start date must be on or before the end date",
  future: "The end date cannot be in the future",
  range: `Please choose a range of at most ${EXPORT_DAYS_MAX} days`,
  intuit:
    "QFX and QBO files are not available yet: Quicken and QuickBooks need our Intuit bank id, which is not set up. Please choose OFX or CSV",
} as const;

/**
 * The file types offered: QFX and QBO only when the profile has the Intuit bank id (INTU.BID),
 * without which Quicken and QuickBooks refuse to import them.
 */
export function exportFormats(): ExportFormat[] {
  return institution().intuit_bank_id ? [...EXPORT_FORMATS] : ["csv", "ofx"];
}

export type ExportProblems = Partial<Record<"account" | "from" | "to" | "format", string>>;

export type ExportAnswer =
  | { ok: true; body: string; file_name: string; media_type: string }
  | { ok: false; status: 400 | 404; problems: ExportProblems };

function daysBetween(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
}

export async function memberExport(
  db: Db,
  member_id: string,
  params: URLSearchParams,
  now: Date,
): Promise<ExportAnswer> {
  // A loan is chosen as `loan-<id>` (docs/product.md#loan-servicing), a line of credit as
  // `line-<id>` (docs/product.md#line-statements); anything else is an account id.
  const credit = /^(loan|line)-([1-9]\d{0,15})$/.exec(params.get("account") ?? "");
  const account = credit ? null : await memberAccountOf(db, member_id, params.get("account") ?? "");
  if (!credit && !account) return { ok: false, status: 404, problems: { account: STATEMENT_ACCOUNT_MESSAGE } };

  const problems: ExportProblems = {};
  const from = params.get("from")?.trim() ?? "";
  const to = params.get("to")?.trim() ?? "";
  const format = params.get("format") ?? "";
  const today = businessDate(institution().time_zone, now);
  if (!isCalendarDate(from)) problems.from = CALENDAR_DATE_MESSAGE;
  if (!isCalendarDate(to)) problems.to = CALENDAR_DATE_MESSAGE;
  else if (to > today) problems.to = EXPORT_MESSAGES.future;
  if (!problems.from && !problems.to) {
    if (from > to) problems.from = EXPORT_MESSAGES.order;
    else if (daysBetween(from, to) + 1 > EXPORT_DAYS_MAX) problems.from = EXPORT_MESSAGES.range;
  }
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) problems.format = EXPORT_MESSAGES.format;
  else if (!(exportFormats() as string[]).includes(format)) problems.format = EXPORT_MESSAGES.intuit;
  if (Object.keys(problems).length) return { ok: false, status: 400, problems };
  const statement = account
    ? await accountLines(db, account, from, to)
    : await creditLines(db, member_id, credit![1] as "loan" | "line", Number(credit![2]), from, to);
  if (!statement) return { ok: false, status: 404, problems: { account: STATEMENT_ACCOUNT_MESSAGE } };
  const { transactions, closing_cents } = statement;
  const file_base = `transactions-${statement.number.slice(-4)}-${from}-to-${to}`;

  if (format === "csv") {
    let balance = closing_cents - transactions.reduce((sum, t) => sum + t.amount_cents, 0);
    const rows = transactions.map((t) => {
      balance += t.amount_cents;
      return [
        t.date,
        csvField(t.description, { quote: "always" }),
        centsAsDecimal(t.amount_cents),
        centsAsDecimal(balance),
        t.status === "reversed" ? "Reversed" : "Completed",
        referenceNumber(t.id),
      ];
    });
    return {
      ok: true,
      body: csvDocument(["Date", "Description", "Amount", "Balance", "Status", "Reference number"], rows),
      file_name: `${file_base}.csv`,
      media_type: "text/csv; charset=utf-8",
    };
  }
  const type = OFX_FILE_TYPES[format as OfxFileType];
  const profile = institution();
  const body = writeOfx({
    made_at: now,
    // INTU.BID only in the Intuit file types: a plain .ofx is for any program.
    institution: {
      name: profile.name,
      routing_number: profile.routing_number,
      intuit_bank_id: format === "ofx" ? null : profile.intuit_bank_id,
    },
    account: { account_number: statement.number, type: statement.type },
    from,
    to,
    transactions: transactions.map((t) => ({
      fit_id: String(t.id),
      posted_date: t.date,
      amount_cents: t.amount_cents,
      name: t.description,
      memo: referenceNumber(t.id),
    })),
    ledger_balance_cents: closing_cents,
    available_balance_cents: statement.available_cents,
  });
  return { ok: true, body, file_name: `${file_base}.${type.extension}`, media_type: type.media_type };
}

type MemberAccount = NonNullable<Awaited<ReturnType<typeof memberAccountOf>>>;

/** One member account's posted lines of the range and its balance at the end of `to`. */
async function accountLines(db: Db, account: MemberAccount, from: string, to: string) {
  // One statement (one snapshot): the balance at the end of `to` is the current balance less the
  // posted entries dated after it; the range's posted lines in date order.
  const result = await db.execute(sql`
    with since as (
      select t.id, t.effective_date, t.kind, t.memo, t.status, e.amount_cents
        from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
       where e.account_id = ${account.id} and t.effective_date >= ${from}::date and t.status in ('posted', 'reversed'))
    select (select posted_cents from ledger_accounts where id = ${account.id}) as current_cents,
           (select coalesce(sum(amount_cents), 0) from since where effective_date > ${to}::date) as after_cents,
           (select coalesce(json_agg(json_build_object('id', s.id, 'date', s.effective_date::text, 'kind', s.kind, 'memo', s.memo, 'status', s.status, 'amount_cents', s.amount_cents) order by s.effective_date, s.id), '[]')
              from since s where s.effective_date <= ${to}::date) as lines`);
  const row = result.rows[0]!;
  const closing_cents = toCents(row.current_cents) - toCents(row.after_cents);
  const raw = row.lines;
  const lines = (typeof raw === "string" ? JSON.parse(raw) : raw) as Record<string, unknown>[];
  const transactions = lines.map((l) => ({
    id: toId(l.id),
    date: String(l.date),
    description:
      (l.memo as string | null) ??
      String(l.kind)
        .replace(/_/g, " ")
        .replace(/^./, (c) => c.toUpperCase()),
    status: String(l.status),
    amount_cents: toCents(l.amount_cents),
  }));

  return {
    transactions,
    closing_cents,
    number: account.account_number,
    type: account.type as "checking" | "savings" | "credit_card",
    available_cents: account.available_cents,
  };
}

/**
 * One of the member's loans or lines of credit as a credit line (as Quicken reads it): its lines and
 * balance (negative: owed); null if not theirs. A line's available balance is its available credit.
 */
async function creditLines(db: Db, member_id: string, kind: "loan" | "line", id: number, from: string, to: string) {
  if (kind === "line") {
    const line = await memberLineExportLines(db, member_id, id, from, to);
    return (
      line && {
        ...line,
        transactions: line.lines.map((l) => ({ ...l, status: "posted" })),
        type: "credit_line" as const,
      }
    );
  }
  const loan = await memberLoanLines(db, member_id, id, from, to);
  if (!loan) return null;
  return {
    transactions: loan.lines.map((l) => ({ ...l, status: "posted" })),
    closing_cents: loan.closing_cents,
    number: loan.number.replace("-", ""),
    type: "credit_line" as const,
    available_cents: loan.current_cents,
  };
}
