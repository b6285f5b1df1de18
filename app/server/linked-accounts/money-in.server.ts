import { and, asc, desc, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { ledgerAccounts, linkedAccounts, moneyInPulls, users, type MoneyInPull } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { placeHold, releaseHold, settleHolds, today } from "~/server/ledger/ledger.server";
import { institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { notify, notifyAll } from "~/server/notifications/notifications.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { decryptField } from "~/server/security/crypto.server";
import { logger } from "~/server/logger.server";
import type { Actor } from "~/domain/actor";
import { refusal, type Refusal } from "~/domain/refusals";
import { accountLabel, referenceNumber } from "~/domain/account-display";
import { formatCents } from "~/domain/money";
import { addBusinessDays } from "~/domain/payment-dates";
import { formatBusinessDate } from "~/domain/calendar-date";
import type { NachaCredit } from "~/domain/nacha";
import {
  MONEY_IN_ENTRY_DESCRIPTION,
  MONEY_IN_MESSAGES as M,
  authorizationText,
  limitRefusal,
  pullIndividualId,
  remainingCents,
  type MoneyInForm,
  type MoneyInUsed,
} from "~/domain/money-in";
import { accountNumberContext, verifiedLinkedAccounts, type LinkedAccountView } from "./linked-accounts.server";

/**
 * Move money in (docs/product.md#move-money-in, decision 0030): a member pulls money from a
 * verified linked account into their own checking or savings, as an ACH debit (WEB) in the next
 * ACH file staff export.
 *
 * The books (decision 0030): when the member asks, a pending credit (a hold: the money is on its
 * way, not available) from ACH settlement to their account, and the pull row with the exact words
 * they agreed to. When the file goes out (app/server/rails/export.server.ts calls `sendPulls`)
 * the credit posts and an availability hold keeps the amount until `available_on` (the profile's
 * `limits.money_in.hold_business_days` after the settlement date); the availability job releases
 * it (`releaseAvailablePulls`). A return reverses the credit (./money-in-returns.server.ts).
 */

export const MONEY_IN_INITIATOR = "system:money-in";

export interface PullView {
  id: number;
  amount_cents: number;
  status: MoneyInPull["status"];
  from: string;
  to: string;
  created_at: Date;
  effective_date: string | null;
  available_on: string | null;
  available: boolean;
  return_code: string | null;
  reference: string;
}

export interface MoneyInPage {
  links: LinkedAccountView[];
  accounts: AccountView[];
  pulls: PullView[];
  limits: { daily_max_cents: number; monthly_max_cents: number; hold_business_days: number; code_above_cents: number };
  remaining_cents: number;
}

export function moneyInLimits() {
  return institution().limits.money_in;
}

/** The member's open checking and savings accounts: where money can be moved in. */
function receivingAccounts(accounts: readonly AccountView[]): AccountView[] {
  return accounts.filter((a) => a.status === "active" && (a.type === "checking" || a.type === "savings"));
}

/** What the member pulled today and this month (cancelled pulls do not count; returned ones do). */
export async function moneyInUsed(db: DbOrTx, member_id: string, now: Date = new Date()): Promise<MoneyInUsed> {
  const zone = institution().time_zone;
  const day = today(now);
  const result = await db.execute(sql`
    select coalesce(sum(amount_cents) filter (where (created_at at time zone ${zone})::date = ${day}::date), 0) as today_cents,
           coalesce(sum(amount_cents), 0) as month_cents
      from money_in_pulls
     where member_id = ${member_id} and status <> 'cancelled'
       and to_char(created_at at time zone ${zone}, 'YYYY-MM') = ${day.slice(0, 7)}`);
  const row = result.rows[0] ?? {};
  return { today_cents: Number(row.today_cents ?? 0), month_cents: Number(row.month_cents ?? 0) };
}

/** The page: verified links, the accounts money can go to, the pulls (newest first) and what is left to pull. */
export async function moneyInPage(db: DbOrTx, member_id: string, now: Date = new Date()): Promise<MoneyInPage> {
  const [links, accounts, pulls, used] = [
    await verifiedLinkedAccounts(db, member_id),
    receivingAccounts(await memberAccounts(db, member_id)),
    await memberPulls(db, member_id),
    await moneyInUsed(db, member_id, now),
  ];
  const limits = moneyInLimits();
  return { links, accounts, pulls, limits, remaining_cents: remainingCents(limits, used) };
}

export const PULLS_SHOWN_MAX = 50;

export async function memberPulls(db: DbOrTx, member_id: string): Promise<PullView[]> {
  const rows = await db
    .select({ pull: moneyInPulls, link: linkedAccounts, account: ledgerAccounts })
    .from(moneyInPulls)
    .innerJoin(linkedAccounts, eq(linkedAccounts.id, moneyInPulls.linked_account_id))
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, moneyInPulls.account_id))
    .where(eq(moneyInPulls.member_id, member_id))
    .orderBy(desc(moneyInPulls.id))
    .limit(PULLS_SHOWN_MAX);
  return rows.map(({ pull, link, account }) => ({
    id: pull.id,
    amount_cents: pull.amount_cents,
    status: pull.status,
    from: `${link.nickname} ••${link.account_last4}`,
    to: accountLabel(account),
    created_at: pull.created_at,
    effective_date: pull.effective_date,
    available_on: pull.available_on,
    available: pull.status === "sent" && pull.available_at !== null,
    return_code: pull.return_code,
    reference: referenceNumber(pull.credit_transaction_id),
  }));
}

/** How a link is named in the authorization: "Home checking (Chase Bank, checking ••6789)". */
export function linkWords(link: Pick<LinkedAccountView, "nickname" | "bank_name" | "account_type" | "masked">): string {
  return `${link.nickname} (${link.bank_name ? `${link.bank_name}, ` : ""}${link.account_type} ${link.masked})`;
}

/** The authorization's exact words for this member, link, account and amount, today. */
export function authorizationFor(
  member_name: string,
  link: Pick<LinkedAccountView, "nickname" | "bank_name" | "account_type" | "masked">,
  account: { type: string; account_number: string },
  amount_cents: number,
  now: Date = new Date(),
): string {
  return authorizationText({
    institution_name: institution().name,
    member_name,
    amount_cents,
    from: linkWords(link),
    to: accountLabel(account),
    date: formatBusinessDate(today(now)),
  });
}

export interface MoneyInMember {
  id: string;
  email: string;
  name: string;
}

export type PullResult =
  | {
      ok: true;
      pull_id: number;
      amount_cents: number;
      replayed: boolean;
      authorization_text: string;
      /** The pending credit's reference number, as the member's history shows it. */
      reference: string;
    }
  | Refusal<"limit" | "link" | "account" | "amount">;

/**
 * The checks a pull passes before anything is written, shared by the step that asks for a code
 * (above the profile's amount) and the one that asks for the money: the link is a verified one of
 * the member's own, the account an open checking or savings of theirs, the amount within the
 * day's and month's limits. Answers the words to agree to, or the refusal beside its field.
 */
export async function checkPull(
  db: DbOrTx,
  member: MoneyInMember,
  form: Pick<MoneyInForm, "linked_account_id" | "to_account_id" | "amount_cents">,
  now: Date = new Date(),
): Promise<{ ok: true; link: LinkedAccountView; account: AccountView; authorization_text: string } | Refusal> {
  const link = (await verifiedLinkedAccounts(db, member.id)).find((l) => l.id === form.linked_account_id);
  if (!link) return refusal("unprocessable", M.link, { code: "link", field: "linked_account_id" });
  const account = receivingAccounts(await memberAccounts(db, member.id)).find((a) => a.id === form.to_account_id);
  if (!account) return refusal("unprocessable", M.account, { code: "account", field: "to_account_id" });
  const over = limitRefusal(moneyInLimits(), await moneyInUsed(db, member.id, now), form.amount_cents);
  if (over) return refusal("unprocessable", over.message, { code: "limit", field: "amount" });
  return {
    ok: true,
    link,
    account,
    authorization_text: authorizationFor(member.name, link, account, form.amount_cents, now),
  };
}

/** Whether a pull of this amount is confirmed with a code or a passkey first (as To Another Member above its amount). */
export function pullNeedsCode(amount_cents: number): boolean {
  return amount_cents > moneyInLimits().code_above_cents;
}

/** What a code or passkey confirming a pull is bound to: the form's key, the link, the account and the amount. */
export function pullBinding(
  form: Pick<MoneyInForm, "idempotency_key" | "linked_account_id" | "to_account_id" | "amount_cents">,
): string {
  return `money-in:${form.idempotency_key}:${form.linked_account_id}:${form.to_account_id}:${form.amount_cents}`;
}

/**
 * Asks for the pull: under the member's own lock (two pulls at once are counted against the
 * limits one after the other) the checks run again, the pending credit is placed and the pull
 * stored with the words the member agreed to, the member is told and it is audited. The form's
 * key makes a repeat answer the first pull.
 */
export async function requestPull(
  db: Db,
  member: MoneyInMember,
  form: MoneyInForm,
  origin: AuditOrigin,
  now: Date = new Date(),
): Promise<PullResult> {
  return inRefusableTransaction<PullResult>(db, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`money-in:${member.id}`}))`);
    const [earlier] = await tx
      .select()
      .from(moneyInPulls)
      .where(and(eq(moneyInPulls.member_id, member.id), eq(moneyInPulls.idempotency_key, form.idempotency_key)));
    if (earlier)
      return {
        ok: true,
        pull_id: earlier.id,
        amount_cents: earlier.amount_cents,
        replayed: true,
        authorization_text: earlier.authorization_text,
        reference: referenceNumber(earlier.credit_transaction_id),
      };
    const checked = await checkPull(tx, member, form, now);
    if (!checked.ok) return checked as PullResult;
    const { link, account, authorization_text } = checked;
    const settlement = await institutionAccount(tx, "ach_settlement");
    const credit = await placeHold(tx, {
      idempotency_key: `money-in:${form.idempotency_key}`,
      initiator: `member:${member.id}`,
      kind: "ach_in",
      created_by: member.id,
      entries: [
        { account_id: account.id, amount_cents: form.amount_cents },
        { account_id: settlement.id, amount_cents: -form.amount_cents },
      ],
      memo: `Moved in from ${link.nickname} ${link.masked}`,
      category: "Transfer",
    });
    if (!credit.ok) refuse(refusal("unprocessable", M.account, { code: "account", field: "to_account_id" }));
    const [pull] = await tx
      .insert(moneyInPulls)
      .values({
        member_id: member.id,
        linked_account_id: link.id,
        account_id: account.id,
        amount_cents: form.amount_cents,
        idempotency_key: form.idempotency_key,
        authorization_text,
        credit_transaction_id: credit.transaction.id,
      })
      .returning();
    await notify(tx, {
      member_id: member.id,
      kind: "payment_pending",
      title: `Moving ${formatCents(form.amount_cents)} in from ${link.nickname}`,
      body: `We will take it from ${link.nickname} ${link.masked} with the next ACH file and add it to your ${accountLabel(account)}. Reference ${referenceNumber(credit.transaction.id)}.`,
    });
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "money_in.request",
      subject_type: "money_in_pull",
      subject_id: pull!.id,
      member_id: member.id,
      // The words agreed to hold only masked numbers: Nacha asks that they be kept.
      after: {
        linked_account_id: link.id,
        account_id: account.id,
        amount_cents: form.amount_cents,
        authorization_text,
        transaction_id: credit.transaction.id,
      },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return {
      ok: true,
      pull_id: pull!.id,
      amount_cents: form.amount_cents,
      replayed: false,
      authorization_text,
      reference: referenceNumber(credit.transaction.id),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The ACH export (app/server/rails/export.server.ts).

/** A pull the next ACH file carries, the link's account number opened for the file. */
export interface UnsentPull {
  pull: MoneyInPull;
  routing_number: string;
  account_number: string;
  account_type: "checking" | "savings";
  nickname: string;
  account_last4: string;
  member_name: string;
}

/** Most pulls in one file; the rest go with the next. */
export const PULLS_PER_FILE = 5_000;

/**
 * The pending pulls whose link is still verified and whose account is open, oldest first, locked
 * for the export's transaction. A pull to a frozen or closed account waits (as a payment does).
 */
export async function lockUnsentPulls(tx: DbOrTx, limit: number): Promise<UnsentPull[]> {
  const rows = await tx
    .select({ pull: moneyInPulls, link: linkedAccounts, member_name: users.name })
    .from(moneyInPulls)
    .innerJoin(linkedAccounts, eq(linkedAccounts.id, moneyInPulls.linked_account_id))
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, moneyInPulls.account_id))
    .innerJoin(users, eq(users.id, moneyInPulls.member_id))
    .where(
      and(
        eq(moneyInPulls.status, "pending"),
        eq(linkedAccounts.status, "verified"),
        eq(ledgerAccounts.status, "active"),
      ),
    )
    .orderBy(asc(moneyInPulls.id))
    .limit(limit)
    .for("update", { of: moneyInPulls });
  return rows.map(({ pull, link, member_name }) => ({
    pull,
    routing_number: link.routing_number,
    account_number: decryptField(link.account_number_enc, accountNumberContext(link.member_id)),
    account_type: link.account_type,
    nickname: link.nickname,
    account_last4: link.account_last4,
    member_name,
  }));
}

/** Pulls waiting for the next ACH file: the ACH queue counts them. */
export async function unsentPullCount(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(moneyInPulls)
    .where(eq(moneyInPulls.status, "pending"));
  return Number(row?.n ?? 0);
}

/**
 * The pulls as WEB debits (27 or 37) described TRANSFER. Their trace sequences are the next free
 * ones in the file (`sequence`); the individual id names the pull, so a return finds it.
 */
export function pullEntries(
  pulls: readonly UnsentPull[],
  effective_date: string,
  sequence: () => number,
): NachaCredit[] {
  return pulls.map((p) => ({
    effective_date,
    routing_number: p.routing_number,
    account_number: p.account_number,
    account_type: p.account_type,
    amount_cents: p.pull.amount_cents,
    individual_id: pullIndividualId(p.pull.id),
    individual_name: p.member_name,
    trace_sequence: sequence(),
    sec_code: "WEB" as const,
    entry_description: MONEY_IN_ENTRY_DESCRIPTION,
    debit: true,
  }));
}

/** The trace number the file gives an entry: our routing number's first eight digits, then the sequence. */
export function traceNumberOf(sequence: number): string {
  return `${institution().routing_number.slice(0, 8)}${String(sequence).padStart(7, "0")}`;
}

/**
 * The pulls of a file in the books and with the members: each pending credit posts (one bulk
 * settle), an availability hold keeps the amount until its day (none when the profile's hold
 * days are 0), the pulls are marked sent with the file, trace and dates, and each member is told.
 * A refusal from the ledger stops the export (nothing is sent).
 */
export async function sendPulls(
  tx: DbOrTx,
  pulls: readonly UnsentPull[],
  traces: readonly number[],
  file_id: number,
  effective_date: string,
  staff: Actor,
  stop: (message: string) => never,
): Promise<void> {
  if (pulls.length === 0) return;
  const settled = await settleHolds(tx, {
    holds: pulls.map((p) => ({ transaction_id: p.pull.credit_transaction_id })),
    idempotency_key: `export:${file_id}:money-in`,
    resolved_by: `staff:${staff.id}`,
  });
  if (!settled.ok) stop(`The money moved in could not be credited (${settled.code}); nothing was exported.`);
  const settlement = await institutionAccount(tx, "ach_settlement");
  const hold_days = moneyInLimits().hold_business_days;
  const available_on = addBusinessDays(effective_date, hold_days);
  for (const [i, p] of pulls.entries()) {
    let hold_transaction_id: number | null = null;
    if (hold_days > 0) {
      const hold = await placeHold(tx, {
        idempotency_key: `money-in-hold:${p.pull.id}`,
        initiator: MONEY_IN_INITIATOR,
        kind: "ach_in",
        created_by: staff.id,
        entries: [
          { account_id: p.pull.account_id, amount_cents: -p.pull.amount_cents },
          { account_id: settlement.id, amount_cents: p.pull.amount_cents },
        ],
        memo: `Hold until ${formatBusinessDate(available_on)}: moved in from ${p.nickname} ••${p.account_last4}`,
      });
      if (!hold.ok) stop(`The hold on money moved in could not be placed (${hold.code}); nothing was exported.`);
      hold_transaction_id = hold.transaction.id;
    }
    await tx
      .update(moneyInPulls)
      .set({
        status: "sent",
        export_file_id: file_id,
        trace_number: traceNumberOf(traces[i]!),
        effective_date,
        hold_transaction_id,
        available_on,
        available_at: hold_days > 0 ? null : new Date(),
      })
      .where(eq(moneyInPulls.id, p.pull.id));
  }
  await notifyAll(
    tx,
    pulls.map((p) => ({
      member_id: p.pull.member_id,
      kind: "payment_sent" as const,
      title: `${formatCents(p.pull.amount_cents)} is on its way in from ${p.nickname}`,
      body:
        hold_days > 0
          ? `It is in your account and available on ${formatBusinessDate(available_on)}.`
          : `It is in your account and available now.`,
    })),
  );
}

// ---------------------------------------------------------------------------------------------
// Availability and cancelling.

/**
 * Releases the availability hold of every pull whose day has come (the business date in the
 * institution's time zone) and tells the member; each pull its own database transaction, a repeat
 * releases nothing twice (the release's key). Run by the mobile deposit availability job.
 */
export async function releaseAvailablePulls(db: Db, now: Date = new Date()): Promise<{ released: number }> {
  const on = today(now);
  const due = await db
    .select({ id: moneyInPulls.id })
    .from(moneyInPulls)
    .where(
      and(
        eq(moneyInPulls.status, "sent"),
        sql`${moneyInPulls.available_at} is null`,
        sql`${moneyInPulls.available_on} <= ${on}`,
      ),
    )
    .orderBy(asc(moneyInPulls.id))
    .limit(1000);
  let released = 0;
  for (const { id } of due) {
    released += await db.transaction(async (tx) => {
      const [pull] = await tx.select().from(moneyInPulls).where(eq(moneyInPulls.id, id)).for("update");
      if (!pull || pull.status !== "sent" || pull.available_at || pull.hold_transaction_id === null) return 0;
      const answer = await releaseHold(tx, {
        transaction_id: pull.hold_transaction_id,
        idempotency_key: `money-in-available:${id}`,
        resolved_by: MONEY_IN_INITIATOR,
      });
      if (!answer.ok) {
        logger.error({ pull_id: id, code: answer.code }, "a money-in hold could not be released");
        return 0;
      }
      await tx.update(moneyInPulls).set({ available_at: now }).where(eq(moneyInPulls.id, id));
      await notify(tx, {
        member_id: pull.member_id,
        kind: "deposit_decision",
        title: `${formatCents(pull.amount_cents)} you moved in is available`,
        body: "The money you moved in from your linked account is now available to spend.",
      });
      return 1;
    });
  }
  return { released };
}

/**
 * Cancels the pulls of a link still waiting for the file (the member removed the link, or the
 * other bank returned its entries): each pending credit is released, the member told. In the
 * caller's transaction.
 */
export async function cancelPendingPulls(tx: DbOrTx, linked_account_id: number, why: string): Promise<number> {
  const pending = await tx
    .select()
    .from(moneyInPulls)
    .where(and(eq(moneyInPulls.linked_account_id, linked_account_id), eq(moneyInPulls.status, "pending")))
    .for("update");
  for (const pull of pending) {
    const answer = await releaseHold(tx, {
      transaction_id: pull.credit_transaction_id,
      idempotency_key: `money-in-cancel:${pull.id}`,
      resolved_by: MONEY_IN_INITIATOR,
    });
    if (!answer.ok)
      throw new Error(`money in: the pending credit of pull ${pull.id} could not be released (${answer.code})`);
    await tx
      .update(moneyInPulls)
      .set({ status: "cancelled", resolved_at: new Date() })
      .where(eq(moneyInPulls.id, pull.id));
    await notify(tx, {
      member_id: pull.member_id,
      kind: "payment_cancelled",
      title: `Moving ${formatCents(pull.amount_cents)} in was cancelled`,
      body: why,
    });
  }
  return pending.length;
}

/** The members' pulls not cancelled, for tests and staff views: ids by status. */
export async function pullsOf(
  db: DbOrTx,
  member_id: string,
  statuses?: MoneyInPull["status"][],
): Promise<MoneyInPull[]> {
  return db
    .select()
    .from(moneyInPulls)
    .where(
      and(
        eq(moneyInPulls.member_id, member_id),
        statuses ? inArray(moneyInPulls.status, statuses) : ne(moneyInPulls.status, "cancelled"),
      ),
    )
    .orderBy(asc(moneyInPulls.id));
}
