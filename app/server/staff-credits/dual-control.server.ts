import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { institution } from "~/config/institution.server";
import { today } from "~/server/ledger/ledger.server";
import { dualControlDecision, type DualControlDecision, type DualControlLimits } from "~/domain/dual-control";

/**
 * The dual-control rule's inputs from the database (docs/security.md#dual-control): the profile's
 * limits and what one staff member has already credited. Every staff posting that creates money
 * for a member calls `staffCreditDecision` inside its database transaction, before posting.
 */
export function dualControlLimits(): DualControlLimits {
  const limits = institution().limits;
  return {
    posting_above_cents: limits.adjustment_second_approval_above_cents,
    request_above_cents: limits.staff_credit_request_above_cents,
    member_24h_above_cents: limits.staff_credit_member_24h_above_cents,
    business_day_above_cents: limits.staff_credit_business_day_above_cents,
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What `staff_id` has credited to members that posted: balance adjustments up, the credit rows
 * of Add Transactions requests, and booked loans' corrections and late-fee waivers (each takes
 * what the member owes down, or gives a payment back to their account), posted at once or
 * approved by someone else (a credit the maker asked for counts for the maker, whoever approved it). It counts from the moment the money
 * posted: the request's time, or the approval's. `member_24h_cents`: to `member_id` in the 24
 * hours before `now`; `business_day_cents`: to every member on the business date of `now`
 * (the ledger's `today`, in the institution's time zone). A credit stamped a moment after `now`
 * counts too: it can only be one that committed while this request waited for the maker's lock
 * (an approval whose clock read a millisecond later), so it came first.
 */
export async function staffCreditTotals(
  db: DbOrTx,
  input: { staff_id: string; member_id: string; now: Date },
): Promise<{ member_24h_cents: number; business_day_cents: number }> {
  const { staff_id, member_id, now } = input;
  // A business day is at most 25 hours: two days back covers it and the rolling 24 hours.
  const since = new Date(now.getTime() - 2 * DAY_MS);
  const day_ago = new Date(now.getTime() - DAY_MS);
  const result = await db.execute(sql`
    with credits as (
      select member_id, amount_cents as cents, coalesce(decided_at, requested_at) as posted_at
        from balance_adjustments
       where requested_by = ${staff_id} and status = 'posted' and amount_cents > 0
         and (requested_at > ${since.toISOString()}::timestamptz or decided_at > ${since.toISOString()}::timestamptz)
      union all
      select member_id, credit_total_cents, coalesce(decided_at, requested_at)
        from staff_posting_requests
       where requested_by = ${staff_id} and status = 'posted' and credit_total_cents > 0
         and (requested_at > ${since.toISOString()}::timestamptz or decided_at > ${since.toISOString()}::timestamptz)
      union all
      select member_id, amount_cents, coalesce(decided_at, requested_at)
        from loan_staff_actions
       where requested_by = ${staff_id} and status = 'posted'
         and (requested_at > ${since.toISOString()}::timestamptz or decided_at > ${since.toISOString()}::timestamptz)
    )
    select
      coalesce(sum(cents) filter (where member_id = ${member_id} and posted_at > ${day_ago.toISOString()}::timestamptz), 0) as member_24h_cents,
      coalesce(sum(cents) filter (where (posted_at at time zone ${institution().time_zone})::date = ${today(now)}::date), 0) as business_day_cents
    from credits`);
  const row = result.rows[0] ?? {};
  return {
    member_24h_cents: Number(row.member_24h_cents ?? 0),
    business_day_cents: Number(row.business_day_cents ?? 0),
  };
}

/**
 * The rule for one request, inside the caller's database transaction. The maker's requests are
 * serialized first (a transaction-scoped lock on the staff member), so two requests sent at the
 * same moment cannot both see the total before the other: the second sees the first.
 */
export async function staffCreditDecision(
  tx: DbOrTx,
  input: { staff_id: string; member_id: string; credits_cents: readonly number[]; now: Date },
): Promise<DualControlDecision> {
  await lockStaffCredits(tx, input.staff_id);
  if (input.credits_cents.length === 0)
    return dualControlDecision({
      credits_cents: [],
      member_24h_cents: 0,
      business_day_cents: 0,
      limits: dualControlLimits(),
    });
  const totals = await staffCreditTotals(tx, input);
  return dualControlDecision({ credits_cents: input.credits_cents, ...totals, limits: dualControlLimits() });
}

/**
 * Taken first, before any row or account lock, by every staff posting that credits a member, and
 * by the approval (or decline) of a waiting one with the maker's id: an approval posts a credit
 * that counts for the maker, so a request the maker sends at that moment waits for it and counts
 * it. One staff member's lock per transaction, always first: no two transactions can wait for
 * each other through it.
 */
export async function lockStaffCredits(tx: DbOrTx, staff_id: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`staff-credits:${staff_id}`}))`);
}

/** The tables of staff credits that wait for a second staff member; each row names its maker. */
export type WaitingCreditTable = "balance_adjustments" | "staff_posting_requests" | "loan_staff_actions";

/**
 * Before a waiting credit is decided: its maker's lock (`lockStaffCredits`), read without a row
 * lock first (`requested_by` never changes) so the lock is still the first one taken. A row that
 * is not there takes none: the caller finds it missing and refuses.
 */
export async function lockMakersCredits(tx: DbOrTx, table: WaitingCreditTable, id: number): Promise<void> {
  const found = await tx.execute(sql`select requested_by from ${sql.identifier(table)} where id = ${id}`);
  const maker = found.rows[0]?.requested_by;
  if (typeof maker === "string") await lockStaffCredits(tx, maker);
}
