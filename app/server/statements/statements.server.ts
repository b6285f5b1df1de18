import { onPaperDelivery } from "~/server/electronic-delivery/electronic-delivery.server";
import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { accountStatements, memberProfiles, users, type AccountStatement } from "~/server/db/schema";
import type { AccountView } from "~/server/ledger/accounts.server";
import { institution } from "~/config/institution.server";
import { businessDate, toCents, toId } from "~/domain/ledger-rules";
import { jsonRows } from "~/server/accounts/history.server";
import {
  monthBounds,
  monthLabel,
  statementFigures,
  statementMonths,
  type StatementFigures,
  type StatementLine,
  type StatementMonth,
} from "~/domain/statements";
import { renderStatementPdf } from "./pdf.server";
import type { Refusal } from "~/domain/refusals";
import { statementDividends, type StatementDividends } from "~/server/dividends/dividends.server";

/**
 * Monthly statements (docs/product.md#statements): one account, one calendar month, read from
 * the ledger: the balance at the start, every posted transaction of the month in date order with
 * the balance after it, the balance at the end, money in and out, and the month's transactions
 * still pending listed apart. Made once per account and month and kept (account_statements):
 * asking again serves the statement as it was made.
 */

/**
 * A statement's PDF as the member downloads it or has it emailed (an account's, a loan's or a
 * line's), or the refusal: `not_found` for what is not the member's own (the same answer whether
 * it exists or not), `bad_input` for a month or cycle not offered for it.
 */
export type StatementDownload =
  { ok: true; pdf: Buffer; file_name: string; account_label: string; month_label: string } | Refusal;

export interface StatementData {
  month: StatementMonth;
  period: { start: string; end: string; label: string };
  institution: { name: string; address_lines: string[]; routing_number: string };
  member: { name: string; address_lines: string[] };
  account: { account_number: string; name: string; type: AccountView["type"] };
  figures: StatementFigures;
  /** The month's dividend, the year's so far and the APY earned (docs/product.md#dividends); null for an account that earns none. */
  dividends: StatementDividends | null;
}

/**
 * The first day of an account's history (institution's time zone): the day it was opened, or its
 * first posting's date when that is earlier (the demo's history is dated back months before the
 * demo accounts are opened).
 */
export async function historyStart(db: DbOrTx, account: Pick<AccountView, "id" | "opened_at">): Promise<string> {
  const opened = businessDate(institution().time_zone, account.opened_at);
  const result = await db.execute(sql`
    select min(t.effective_date)::text as first
      from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
     where e.account_id = ${account.id}`);
  const first = result.rows[0]?.first as string | null | undefined;
  return first && first < opened ? first : opened;
}

/** The months the account has a statement for, newest first (docs/product.md#statements). */
export async function availableMonths(
  db: DbOrTx,
  account: Pick<AccountView, "id" | "opened_at">,
  now: Date,
): Promise<StatementMonth[]> {
  return statementMonths(await historyStart(db, account), businessDate(institution().time_zone, now));
}

/**
 * The statement's figures from the ledger, in one statement (one snapshot): the opening balance
 * is the account's current balance less every posted entry dated on or after the month's first
 * day, so only the entries from that day on are read, however long the history.
 */
export async function readStatementFigures(
  db: DbOrTx,
  account_id: number,
  month: StatementMonth,
): Promise<StatementFigures> {
  const { start, end } = monthBounds(month);
  const result = await db.execute(sql`
    with since as (
      select t.id, t.effective_date, t.status, t.kind, t.memo, e.amount_cents
        from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
       where e.account_id = ${account_id} and t.effective_date >= ${start}::date and t.status in ('posted', 'reversed', 'pending')
    )
    select (select posted_cents from ledger_accounts where id = ${account_id}) as current_cents,
           (select coalesce(sum(amount_cents), 0) from since where status <> 'pending') as since_start_cents,
           (select coalesce(json_agg(json_build_object('transaction_id', s.id, 'effective_date', s.effective_date::text, 'status', s.status,
                     'kind', s.kind, 'memo', s.memo, 'amount_cents', s.amount_cents) order by s.effective_date, s.id), '[]')
              from since s where s.effective_date <= ${end}::date) as lines`);
  const row = result.rows[0];
  if (!row || row.current_cents === null || row.current_cents === undefined)
    throw new Error(`no ledger account ${account_id}`);
  const opening_cents = toCents(row.current_cents) - toCents(row.since_start_cents);
  const lines: StatementLine[] = jsonRows(row.lines).map((r) => ({
    transaction_id: toId(r.transaction_id),
    effective_date: String(r.effective_date),
    description: (r.memo as string | null) ?? describeKind(String(r.kind)),
    amount_cents: toCents(r.amount_cents),
    status: r.status as StatementLine["status"],
  }));
  return statementFigures(opening_cents, lines);
}

function describeKind(kind: string): string {
  return kind.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/** Everything the PDF shows: the figures, the institution's details and the member's. */
export async function statementData(db: DbOrTx, account: AccountView, month: StatementMonth): Promise<StatementData> {
  if (!account.member_id) throw new Error("statements are for member accounts");
  const figures = await readStatementFigures(db, account.id, month);
  const bounds = monthBounds(month);
  return {
    month,
    period: { ...bounds, label: monthLabel(month) },
    institution: statementInstitution(),
    member: await statementHolder(db, account.member_id),
    account: { account_number: account.account_number, name: account.name, type: account.type },
    figures,
    dividends: await statementDividends(db, account.id, month),
  };
}

/** The institution as a statement's heading names it. */
export function statementInstitution(): StatementData["institution"] {
  const p = institution();
  return {
    name: p.name,
    address_lines: [p.address.street, `${p.address.city}, ${p.address.state} ${p.address.postal_code}`],
    routing_number: p.routing_number,
  };
}

/** The member as a statement is addressed: both names of a joint membership, and the mailing address. */
export async function statementHolder(db: DbOrTx, member_id: string): Promise<StatementData["member"]> {
  const [holder] = await db
    .select({
      name: users.name,
      first_name: memberProfiles.first_name,
      last_name: memberProfiles.last_name,
      joint_name: memberProfiles.joint_name,
      street: memberProfiles.street,
      city: memberProfiles.city,
      state: memberProfiles.state,
      postal_code: memberProfiles.postal_code,
      country: memberProfiles.country,
    })
    .from(users)
    .leftJoin(memberProfiles, eq(memberProfiles.user_id, users.id))
    .where(eq(users.id, member_id))
    .limit(1);
  const own_name = holder?.first_name ? `${holder.first_name} ${holder.last_name}` : (holder?.name ?? "");
  return {
    name: holder?.joint_name ? `${own_name} & ${holder.joint_name}` : own_name,
    address_lines: holder?.street
      ? [
          holder.street,
          [holder.city, [holder.state, holder.postal_code].filter(Boolean).join(" ")].filter(Boolean).join(", "),
          holder.country && holder.country !== "US" ? holder.country : "",
        ].filter(Boolean)
      : [],
  };
}

/**
 * The account's statement for the month: the one kept if it was made before, else made now from
 * the ledger and kept. Two callers at once both make it and the first insert wins (the unique
 * account and month); both then serve the kept one. The caller checks the month is allowed
 * (`availableMonths`) and the account is the member's.
 */
export async function statementFor(
  db: DbOrTx,
  account: AccountView,
  month: StatementMonth,
  created_by: string,
): Promise<{ statement: AccountStatement; made: boolean }> {
  const kept = await keptStatement(db, account.id, month);
  if (kept) return { statement: kept, made: false };
  const data = await statementData(db, account, month);
  const pdf = await renderStatementPdf(data);
  const f = data.figures;
  // Without consent to electronic delivery on record (E-SIGN), the statement is also mailed.
  const mail_paper_copy = await onPaperDelivery(db, account.member_id!);
  const inserted = await db
    .insert(accountStatements)
    .values({
      account_id: account.id,
      member_id: account.member_id!,
      period_month: month,
      period_start: data.period.start,
      period_end: data.period.end,
      opening_cents: f.opening_cents,
      closing_cents: f.closing_cents,
      credits_cents: f.credits_cents,
      debits_cents: f.debits_cents,
      posted_count: f.posted.length,
      pending_count: f.pending.length,
      pdf,
      mail_paper_copy,
      created_by,
    })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return { statement: inserted[0], made: true };
  const winner = await keptStatement(db, account.id, month);
  if (!winner) throw new Error("statement insert conflicted but none is kept");
  return { statement: winner, made: false };
}

export async function keptStatement(
  db: DbOrTx,
  account_id: number,
  month: StatementMonth,
): Promise<AccountStatement | null> {
  const [row] = await db
    .select()
    .from(accountStatements)
    .where(and(eq(accountStatements.account_id, account_id), eq(accountStatements.period_month, month)))
    .limit(1);
  return row ?? null;
}

/** The statement file's name: the account's last four digits and the month, nothing personal. */
export function statementFileName(account_number: string, month: StatementMonth): string {
  return `statement-${account_number.slice(-4)}-${month}.pdf`;
}
