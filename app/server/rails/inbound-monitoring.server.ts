import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { institution } from "~/config/institution.server";
import { placeHold, today } from "~/server/ledger/ledger.server";
import { toId } from "~/domain/ledger-rules";
import {
  creditReviewReasons,
  type CreditAccountFacts,
  type CreditMonitoringPolicy,
  type CreditReviewReason,
} from "~/domain/ach-credit-monitoring";
import type { Item } from "./inbound-entries.server";

/**
 * Monitoring of incoming ACH credits (docs/product.md#incoming-credits-to-review): in the posting's
 * own database transaction, each credit just posted is checked against the rules of
 * app/domain/ach-credit-monitoring.ts with the facts gathered here for the whole chunk at once
 * (a few queries, not one per entry). A credit meeting a rule keeps its posting, and its amount is
 * held on the account (a pending debit against the ACH settlement account) until staff release or
 * return it (./inbound-review.server.ts).
 */

/** What the member reads on the hold: the wording of every deposit hold, naming no rule. */
export const CREDIT_HOLD_MEMO = "Deposit hold";

/** Sign-in and profile changes a taken-over account shows, and staff edits to the account itself. */
const CHANGE_ACTIONS = [
  "auth.profile.updated",
  "auth.password.changed",
  "auth.password.temporary_replaced",
  "auth.passkey.added",
  "auth.totp.disabled",
  "ledger.account.edit",
] as const;

export interface PostedCredit {
  entry: Item;
  account: { id: number; member_id: string | null; type: string };
  transaction_id: number;
}

export interface CreditHold {
  reasons: CreditReviewReason[];
  hold_transaction_id: number;
}

const originatorOf = (entry: Pick<Item, "company_id" | "company_name">) =>
  entry.company_id.trim() || entry.company_name.trim();

/**
 * Checks the credits just posted, in file order, and holds the amount of those meeting a rule.
 * Returns the hold of each flagged credit by its position in `credits`.
 */
export async function monitorPostedCredits(
  tx: DbOrTx,
  credits: readonly PostedCredit[],
  settlement_id: number,
  staff_id: string,
  key_prefix: string,
  now: Date,
): Promise<Map<number, CreditHold>> {
  const holds = new Map<number, CreditHold>();
  const members = credits.filter((c) => c.account.member_id);
  if (members.length === 0) return holds;
  const policy = institution().limits.ach_credit_monitoring;
  const business_date = today(now);
  const known = await chunkFacts(tx, members, policy, now);
  for (const [index, credit] of credits.entries()) {
    const member_id = credit.account.member_id;
    if (!member_id) continue;
    const id = credit.account.id;
    const originator = originatorOf(credit.entry);
    const reasons = creditReviewReasons(
      {
        individual_name: credit.entry.individual_name,
        amount_cents: credit.entry.amount_cents,
        originator,
        originator_name: credit.entry.company_name,
      },
      accountFacts(known, member_id, id, business_date),
      policy,
    );
    // Later credits of the chunk see this one: the day's originators, the account's first large credit.
    const today_originators = known.originators.get(id) ?? new Set<string>();
    today_originators.add(originator);
    known.originators.set(id, today_originators);
    if (credit.entry.amount_cents >= policy.new_account_large_cents) known.had_large.add(id);
    if (reasons.length === 0) continue;
    const hold = await placeHold(tx, {
      idempotency_key: `${key_prefix}:review:${credit.entry.line}`,
      initiator: "system:ach-in",
      kind: "ach_in",
      created_by: staff_id,
      memo: CREDIT_HOLD_MEMO,
      category: "Deposit",
      effective_date: business_date,
      entries: [
        { account_id: id, amount_cents: -credit.entry.amount_cents },
        { account_id: settlement_id, amount_cents: credit.entry.amount_cents },
      ],
    });
    // The credit just posted to the account, so its amount is there to hold; a refusal is a bug.
    if (!hold.ok) throw new Error(`ACH in: the hold on a credit to review was refused (${hold.code})`);
    holds.set(index, { reasons, hold_transaction_id: hold.transaction.id });
  }
  return holds;
}

/** What the rules need to know of the chunk's accounts and members, read once for the whole chunk. */
interface ChunkFacts {
  /** Each account's opening business day. */
  opened: Map<number, string>;
  /** Each member's names as the entry may name them (the holder's and a joint owner's). */
  holders: Map<string, string[]>;
  /** The originators of each account's credits of the business day so far. */
  originators: Map<number, Set<string>>;
  /** The accounts that already had a large credit. */
  had_large: Set<number>;
  /** The last change by key (`member:<id>` to sign-in or profile, `account:<id>` by staff). */
  changed: Map<string, string>;
  /** The last unfreeze of each account. */
  unfrozen: Map<number, string>;
}

async function chunkFacts(
  tx: DbOrTx,
  members: readonly PostedCredit[],
  policy: CreditMonitoringPolicy,
  now: Date,
): Promise<ChunkFacts> {
  const business_date = today(now);
  const account_ids = [...new Set(members.map((c) => c.account.id))];
  const member_ids = [...new Set(members.map((c) => c.account.member_id!))];
  const opened = await openedOn(tx, account_ids);
  // "First large credit": only new accounts receiving a large credit need the look back.
  const new_large = [
    ...new Set(members.filter((c) => c.entry.amount_cents >= policy.new_account_large_cents).map((c) => c.account.id)),
  ].filter((id) => daysSince(opened.get(id) ?? business_date, business_date) < policy.new_account_days);
  const since = new Date(now.getTime() - (policy.recent_change_days + 1) * 86_400_000);
  return {
    opened,
    holders: await holderNames(tx, member_ids),
    originators: await originatorsToday(tx, account_ids, business_date),
    had_large: await hadLargeCredit(tx, new_large, members, policy.new_account_large_cents),
    ...(policy.recent_change_days > 0
      ? await recentChanges(tx, member_ids, since)
      : { changed: new Map<string, string>(), unfrozen: new Map<number, string>() }),
  };
}

/** One credit's facts for the rules, from what the chunk knows so far. */
function accountFacts(known: ChunkFacts, member_id: string, id: number, business_date: string): CreditAccountFacts {
  const member_change = known.changed.get(`member:${member_id}`) ?? null;
  const account_change = known.changed.get(`account:${id}`) ?? null;
  return {
    holder_names: known.holders.get(member_id) ?? [],
    opened_on: known.opened.get(id) ?? business_date,
    today: business_date,
    had_large_credit: known.had_large.has(id),
    originators_today: [...(known.originators.get(id) ?? [])],
    last_change_on:
      member_change && account_change
        ? member_change > account_change
          ? member_change
          : account_change
        : (member_change ?? account_change),
    unfrozen_on: known.unfrozen.get(id) ?? null,
  };
}

async function openedOn(tx: DbOrTx, account_ids: number[]): Promise<Map<number, string>> {
  const zone = institution().time_zone;
  const opened = new Map<number, string>();
  for (const r of (
    await tx.execute(sql`
      select id, to_char((opened_at at time zone ${zone})::date, 'YYYY-MM-DD') as opened_on from ledger_accounts
       where id in (select (jsonb_array_elements_text(${JSON.stringify(account_ids)}::jsonb))::bigint)`)
  ).rows)
    opened.set(toId(r.id), String(r.opened_on));
  return opened;
}

async function holderNames(tx: DbOrTx, member_ids: string[]): Promise<Map<string, string[]>> {
  const holders = new Map<string, string[]>();
  for (const r of (
    await tx.execute(sql`
      select u.id, u.name, p.first_name, p.last_name, p.joint_account, p.joint_name
        from users u left join member_profiles p on p.user_id = u.id
       where u.id in (select jsonb_array_elements_text(${JSON.stringify(member_ids)}::jsonb))`)
  ).rows) {
    const names = [
      r.first_name && r.last_name ? `${String(r.first_name)} ${String(r.last_name)}` : String(r.name ?? ""),
    ];
    if (r.joint_account && r.joint_name) names.push(String(r.joint_name));
    holders.set(
      String(r.id),
      names.filter((n) => n.trim()),
    );
  }
  return holders;
}

/** The account's earlier credits of the business day, from files before this one or chunks before this one. */
async function originatorsToday(
  tx: DbOrTx,
  account_ids: number[],
  business_date: string,
): Promise<Map<number, Set<string>>> {
  const zone = institution().time_zone;
  const originators = new Map<number, Set<string>>();
  for (const r of (
    await tx.execute(sql`
      with todays as materialized (
             select id from ach_inbound_files where (uploaded_at at time zone ${zone})::date = ${business_date}::date)
      select e.account_id, e.company_id, e.company_name
        from todays f
        join ach_inbound_entries e on e.file_id = f.id and e.kind = 'credit' and e.status = 'posted'
       -- A constant array: PostgreSQL tests membership with a hash, whatever it guesses of the entries just stored.
       where e.account_id = any(${`{${account_ids.join(",")}}`}::bigint[])`)
  ).rows) {
    const id = toId(r.account_id);
    const set = originators.get(id) ?? new Set<string>();
    set.add(originatorOf({ company_id: String(r.company_id), company_name: String(r.company_name) }));
    originators.set(id, set);
  }
  return originators;
}

/** Of the new accounts receiving a large credit, those with a large credit before this chunk (few rows, by the entries' account index). */
async function hadLargeCredit(
  tx: DbOrTx,
  new_large: number[],
  members: readonly PostedCredit[],
  large_cents: number,
): Promise<Set<number>> {
  const had_large = new Set<number>();
  if (new_large.length === 0) return had_large;
  for (const r of (
    await tx.execute(sql`
      select distinct le.account_id from ledger_entries le join ledger_transactions t on t.id = le.transaction_id
       where le.account_id in (select (jsonb_array_elements_text(${JSON.stringify(new_large)}::jsonb))::bigint)
         and t.kind = 'ach_in' and t.status in ('posted', 'reversed') and le.amount_cents >= ${large_cents}
         and t.id not in (select (jsonb_array_elements_text(${JSON.stringify(members.map((c) => c.transaction_id))}::jsonb))::bigint)`)
  ).rows)
    had_large.add(toId(r.account_id));
  return had_large;
}

/** The last change to each member's sign-in or profile, or to the account; the last unfreeze of the account. */
async function recentChanges(
  tx: DbOrTx,
  member_ids: string[],
  since: Date,
): Promise<{ changed: Map<string, string>; unfrozen: Map<number, string> }> {
  const zone = institution().time_zone;
  const changed = new Map<string, string>();
  const unfrozen = new Map<number, string>();
  for (const r of (
    await tx.execute(sql`
      with wanted as materialized (select distinct jsonb_array_elements_text(${JSON.stringify(member_ids)}::jsonb) as member_id)
      select a.member_id, a.action, a.subject_type, a.subject_id,
             to_char((max(a.at) at time zone ${zone})::date, 'YYYY-MM-DD') as on_date
        from audit_log a join wanted w on w.member_id = a.member_id
       where a.at >= ${since.toISOString()}::timestamptz
         and a.action in (select jsonb_array_elements_text(${JSON.stringify([...CHANGE_ACTIONS, "ledger.account.unfreeze"])}::jsonb))
       group by a.member_id, a.action, a.subject_type, a.subject_id`)
  ).rows) {
    const on = String(r.on_date);
    const account_change = r.subject_type === "ledger_account";
    if (r.action === "ledger.account.unfreeze") {
      const id = Number(r.subject_id);
      if (!unfrozen.has(id) || unfrozen.get(id)! < on) unfrozen.set(id, on);
      continue;
    }
    const key = account_change ? `account:${String(r.subject_id)}` : `member:${String(r.member_id)}`;
    if (!changed.has(key) || changed.get(key)! < on) changed.set(key, on);
  }
  return { changed, unfrozen };
}

function daysSince(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The review rows of the flagged credits, once their entries are stored (by file and line). */
export async function recordCreditReviews(
  tx: DbOrTx,
  reviews: readonly {
    file_id: number;
    line: number;
    account_id: number;
    member_id: string;
    credit_transaction_id: number;
    hold: CreditHold;
    amount_cents: number;
  }[],
): Promise<void> {
  if (reviews.length === 0) return;
  const rows = reviews.map((r) => ({
    file_id: r.file_id,
    line: r.line,
    account_id: r.account_id,
    member_id: r.member_id,
    credit_transaction_id: r.credit_transaction_id,
    hold_transaction_id: r.hold.hold_transaction_id,
    amount_cents: r.amount_cents,
    reasons: r.hold.reasons,
  }));
  await tx.execute(sql`
    insert into ach_credit_reviews (entry_id, account_id, member_id, credit_transaction_id, hold_transaction_id, amount_cents, reasons)
    select e.id, v.account_id, v.member_id, v.credit_transaction_id, v.hold_transaction_id, v.amount_cents, v.reasons
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(file_id bigint, line integer, account_id bigint, member_id text,
             credit_transaction_id bigint, hold_transaction_id bigint, amount_cents bigint, reasons jsonb)
      join ach_inbound_entries e on e.file_id = v.file_id and e.line = v.line
    on conflict (entry_id) do nothing`);
}
