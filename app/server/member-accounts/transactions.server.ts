import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { isPendingStaffPosting, type PendingOwner } from "~/domain/member-accounts";
import { accountsOfMember, emailsOf, pendingOwnerSql } from "./common.server";

/**
 * User Transactions in the back office (docs/product.md#member-accounts-staff): every ledger
 * transaction that touches one of the member's accounts, newest first, in keyset pages.
 *
 * How a page stays cheap however long the history: for each of the member's accounts, its newest
 * PAGE_SIZE + 1 entries below the cursor (an index walk on ledger_entries (account_id, id)); a
 * transaction is ranked by its newest entry on the member's accounts. A transaction has at most
 * one entry per account, so every transaction of the page is among those walks. The cursor is the
 * last row's newest entry id; a transaction with an entry at or above the cursor was on an
 * earlier page and is left out.
 */
export const TRANSACTIONS_PAGE_SIZE = 20;

export interface MemberTransactionLeg {
  account_id: number;
  account_name: string;
  account_number: string;
  /** Signed: positive = money in. */
  amount_cents: number;
}

export interface MemberTransactionRow {
  id: number;
  kind: string;
  status: "pending" | "posted" | "failed" | "reversed";
  effective_date: string;
  created_at: Date;
  memo: string | null;
  reference: string | null;
  category: string | null;
  reverses_id: number | null;
  /** The user id or job that posted it, and that person's email when it is a person. */
  created_by: string;
  created_by_email: string | null;
  /** The entries on this member's accounts. */
  legs: MemberTransactionLeg[];
  /** A staff hold (placed from the Holds box): released there or with the row's button. */
  staff_hold: boolean;
  /** A pending row added with Add Transactions: Post (or Release) here when it completes. */
  postable: boolean;
  /** A pending transaction resolved elsewhere (PENDING_OWNERS), not released here; null otherwise. */
  pending_owner: PendingOwner | null;
}

export interface MemberTransactionsPage {
  rows: MemberTransactionRow[];
  /** `tx_before` for the next (older) page, or null. */
  next_before: string | null;
}

export async function memberTransactionsPage(
  db: DbOrTx,
  member_id: string,
  options: { before?: string | null; limit?: number } = {},
): Promise<MemberTransactionsPage> {
  const limit = options.limit ?? TRANSACTIONS_PAGE_SIZE;
  const before = options.before && /^[1-9]\d{0,15}$/.test(options.before) ? options.before : null;
  const accounts = await accountsOfMember(db, member_id);
  if (accounts.length === 0) return { rows: [], next_before: null };
  const ids = accounts.map((a) => a.id);
  const idList = sql.raw(ids.join(", "));
  const walks = sql.join(
    ids.map(
      (id) => sql`(select e.id, e.transaction_id from ledger_entries e
                   where e.account_id = ${id} ${before ? sql`and e.id < ${before}::bigint` : sql``}
                   order by e.account_id desc, e.id desc limit ${limit + 1})`,
    ),
    sql` union all `,
  );
  const result = await db.execute(sql`
    with walked as (${walks}),
    ranked as (
      select transaction_id, max(id) as newest_entry_id from walked group by transaction_id
    ),
    page as (
      select r.transaction_id, r.newest_entry_id from ranked r
       ${before ? sql`where not exists (select 1 from ledger_entries x where x.transaction_id = r.transaction_id and x.account_id in (${idList}) and x.id >= ${before}::bigint)` : sql``}
       order by r.newest_entry_id desc limit ${limit + 1}
    )
    select t.id, t.kind, t.status, t.effective_date::text as effective_date,
           (extract(epoch from t.created_at) * 1000)::float8 as created_at_ms,
           t.memo, t.reference, t.category, t.reverses_id, t.created_by, t.initiator, t.idempotency_key,
           p.newest_entry_id,
           case when t.status = 'pending' then ${pendingOwnerSql(sql`t.id`)} end as pending_owner,
           (select json_agg(json_build_object('account_id', e.account_id, 'amount_cents', e.amount_cents) order by e.id)
              from ledger_entries e where e.transaction_id = t.id and e.account_id in (${idList})) as legs
      from page p join ledger_transactions t on t.id = p.transaction_id
     order by p.newest_entry_id desc`);
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const all = result.rows.map((r) => {
    const legs = (typeof r.legs === "string" ? JSON.parse(r.legs) : (r.legs ?? [])) as {
      account_id: number | string;
      amount_cents: number | string;
    }[];
    const initiator = String(r.initiator);
    return {
      newest_entry_id: String(r.newest_entry_id),
      row: {
        id: Number(r.id),
        kind: String(r.kind),
        status: r.status as MemberTransactionRow["status"],
        effective_date: String(r.effective_date),
        created_at: new Date(Number(r.created_at_ms)),
        memo: (r.memo as string | null) ?? null,
        reference: (r.reference as string | null) ?? null,
        category: (r.category as string | null) ?? null,
        reverses_id: r.reverses_id === null ? null : Number(r.reverses_id),
        created_by: String(r.created_by),
        created_by_email: null,
        staff_hold: initiator.startsWith("staff:") && String(r.idempotency_key).startsWith("staff-hold:"),
        postable: isPendingStaffPosting({ kind: String(r.kind), status: String(r.status), initiator }),
        pending_owner: (r.pending_owner ?? null) as PendingOwner | null,
        legs: legs.map((leg) => {
          const account = byId.get(Number(leg.account_id))!;
          return {
            account_id: account.id,
            account_name: account.name,
            account_number: account.account_number,
            amount_cents: Number(leg.amount_cents),
          };
        }),
      } satisfies MemberTransactionRow as MemberTransactionRow,
    };
  });
  const page = all.slice(0, limit);
  const emails = await emailsOf(
    db,
    page.map((p) => p.row.created_by),
  );
  for (const p of page) p.row.created_by_email = emails.get(p.row.created_by) ?? null;
  return {
    rows: page.map((p) => p.row),
    next_before: all.length > limit ? page[page.length - 1]!.newest_entry_id : null,
  };
}
