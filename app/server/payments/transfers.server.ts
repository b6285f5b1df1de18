import { and, eq, ne, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import {
  externalPayments,
  ledgerAccounts,
  ledgerEntries,
  ledgerTransactions,
  users,
  type ExternalPayment,
} from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import {
  placeHold,
  postTransferChecked,
  today,
  type CheckRefused,
  type LedgerAnswer,
  type LedgerRefusal,
  type LedgerResult,
  type LockedAccount,
} from "~/server/ledger/ledger.server";
import { assert } from "~/domain/ledger-rules";
import { institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { textQuery } from "~/server/ledger/session.server";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import { notify } from "~/server/notifications/notifications.server";
import { hitRateLimit } from "~/server/rate-limit/rate-limit.server";
import { formatCents } from "~/domain/money";
import { accountLabel, maskExternal, referenceNumber } from "~/domain/account-display";
import { findCurrency, formatCurrencyAmount, usdCentsForForeignAmount } from "~/domain/currencies";
import { findCountry } from "~/domain/countries";
import type {
  BetweenAccountsTransfer,
  InternationalTransfer,
  ToMemberTransfer,
  ToUsBankTransfer,
} from "~/domain/transfers";
import { outgoingPaymentsPaused } from "./controls.server";
import { currencyRate } from "./rates.server";
import { lockWait, verifyStepUpCode, type StepUpCheck } from "./step-up.server";
import { countTransferRefusal } from "~/server/metrics/metrics.server";
import { fileScreening, screenParties } from "~/server/sanctions/screening.server";
import { REFUSAL_MESSAGES, refusalMessage, type RefusalCode, type RefusalDetails } from "~/domain/refusals";

/**
 * The four transfers of docs/product.md#transfers. Routes parse the form with the domain schemas,
 * then call these with the signed-in member: every rule that needs the database is decided here,
 * per request (docs/product.md#the-server-decides), and every refusal carries its real cause.
 *
 * - Between Accounts and To Another Member post at once through the ledger.
 * - To US Bank, every International transfer, and a To Another Member transfer above the
 *   profile's `member_transfer_code_above_cents` are confirmed with a code emailed to the
 *   member (step-up, `step-up.server.ts`); the send functions check it themselves.
 * - To Another Member, To US Bank and International have per-transfer and daily limits from the
 *   institution profile; a day is the credit union's business day (its `time_zone`).
 * - To US Bank and International hold the money (a pending debit crediting the ACH or wire
 *   settlement account, and fees income for the wire fee) and record an `external_payments` row
 *   that waits for the back office.
 * Notifications are written in the same database transaction as the posting; a replayed request
 * (same idempotency key) returns the first result and writes nothing.
 */

export interface Member {
  id: string;
  email: string;
  name: string;
}

/**
 * Why a transfer was not made: a code from the one vocabulary (app/domain/refusals.ts, the same
 * code the ledger gave where the ledger refused) and its message as the member reads it.
 */
export interface Refusal {
  ok: false;
  code: RefusalCode;
  message: string;
  /** The form field the message belongs to, when it is one field's. */
  field?: string;
  /** At the code step: the transfer the code confirms, shown again with the message. */
  summary?: string;
}

export interface TransferDone {
  ok: true;
  /** The ledger transaction's reference number shown to the member. */
  reference_number: string;
  transaction_id: number;
  amount_cents: number;
  replayed: boolean;
  /** For payments to other banks: the queued payment. */
  payment_id?: number;
  /**
   * A payment to another bank held but stopped by a possible sanctions match
   * (docs/product.md#screening-queue): the member sees "We need to review this payment".
   */
  in_review?: boolean;
}

export type TransferResult = TransferDone | Refusal;

/** Screen words around the refusals; the refusals' own words are app/domain/refusals.ts's. */
export const MESSAGES = {
  recipient_error: "Error verifying recipient",
  rate_limited: REFUSAL_MESSAGES.rate_limited,
  blocked_title: "Transaction Blocked",
  /** What a member is told about their own frozen account: the ledger's words and where to turn. */
  blocked: `${REFUSAL_MESSAGES.account_frozen} Please visit a branch or contact support.`,
  denied_title: "Transaction Denied",
  denied: REFUSAL_MESSAGES.denied,
} as const;

function initiator(member: Member): string {
  return `member:${member.id}`;
}

/** Every refusal a member is shown is made here, and counted for /metrics by its code. */
function refuse(code: RefusalCode, field?: string, details?: RefusalDetails): Refusal {
  countTransferRefusal(code);
  const message = code === "account_frozen" ? MESSAGES.blocked : refusalMessage(code, details);
  return field === undefined ? { ok: false, code, message } : { ok: false, code, message, field };
}

/** A code that did not confirm the transfer: wrong, or the member's codes are locked (docs/product.md#step-up-codes). */
export function codeRefused(check: Exclude<StepUpCheck, { ok: true }>): Refusal {
  return check.reason === "locked"
    ? refuse("otp_locked", "otp", { wait: lockWait(check.retry_after_s) })
    : refuse("otp_invalid", "otp");
}

/**
 * A ledger refusal as the member sees it (docs/product.md#messages-transfers): the same code,
 * except that a refusal about the other member's account says only that the recipient cannot
 * receive (their balance and status are theirs). The service checks ownership, amounts and
 * accounts before it asks the ledger, so any other code here is a bug.
 */
function fromLedgerRefusal(refusal: LedgerRefusal, source_account_id: number): Refusal {
  const about_source = refusal.subject_id === undefined || refusal.subject_id === source_account_id;
  switch (refusal.code) {
    case "insufficient_funds":
      return about_source ? refuse("insufficient_funds", "amount") : refuse("recipient_unavailable");
    case "account_frozen":
    case "account_closed":
      return about_source ? refuse(refusal.code) : refuse("recipient_unavailable");
    case "transfer_limit":
      return refuse("transfer_limit", undefined, { limit: refusal.limit });
    case "same_account":
      return refuse("same_account", "to_account_id");
    case "invalid_amount":
      return refuse("invalid_amount", "amount");
    case "account_not_found":
      return refuse("not_your_account");
    default:
      throw new Error(`the ledger refused a member's transfer unexpectedly: ${refusal.code}`);
  }
}

function ownAccount(accounts: readonly AccountView[], account_id: number): AccountView | undefined {
  return accounts.find((a) => a.id === account_id && a.owner === "member");
}

/** Runs `work` in one database transaction; a refusal it answers rolls back everything it wrote. */
function inTransaction(db: Db, work: (tx: DbOrTx) => Promise<TransferResult>): Promise<TransferResult> {
  return inRefusableTransaction(db, work);
}

// ---------------------------------------------------------------------------------------------
// A repeated idempotency key.
//
// A form keeps its key until its transfer is known to have gone through or been refused, so a
// retry after "Transfer failed" (which may answer an error raised after the transfer was
// written) repeats the key. The same transfer again answers with the first result and moves
// nothing. A different transfer under the key (the amount, an account or the payee changed) is
// refused: answering it with the first transfer would tell the member that what they asked for
// now was sent. The ledger keeps, under the key, the transaction and its entries (accounts and
// amounts); a payment to another bank keeps its payee and amount in `external_payments`.

export type TransferRequest =
  | { kind: "internal"; form: BetweenAccountsTransfer }
  | { kind: "member"; form: ToMemberTransfer }
  | { kind: "ach"; form: ToUsBankTransfer }
  | { kind: "wire"; form: InternationalTransfer };

const LEDGER_KIND: Record<TransferRequest["kind"], string> = {
  internal: "transfer",
  member: "member_transfer",
  ach: "ach_out",
  wire: "wire_out",
};

function keyReused(transaction_id: number): Refusal {
  return refuse("key_reused", undefined, { reference: referenceNumber(transaction_id) });
}

interface KeyedEntry {
  account_id: number;
  amount_cents: number;
  /** The email of the member who holds the account (the payee of a member transfer). */
  owner_email: string | null;
}

/** Both sides of a two-entry transfer: `amount_cents` from one account to the other. */
function isTransfer(
  entries: readonly KeyedEntry[],
  from_account_id: number,
  amount_cents: number,
  to: (entry: KeyedEntry) => boolean,
): boolean {
  const debit = entries.find((e) => e.amount_cents < 0);
  const credit = entries.find((e) => e.amount_cents > 0);
  return (
    entries.length === 2 &&
    debit?.account_id === from_account_id &&
    debit.amount_cents === -amount_cents &&
    credit?.amount_cents === amount_cents &&
    to(credit)
  );
}

function samePayment(request: Extract<TransferRequest, { kind: "ach" | "wire" }>, payment: ExternalPayment): boolean {
  const details = payment.details;
  if (request.kind === "ach") {
    const form = request.form;
    return (
      payment.kind === "ach" &&
      payment.from_account_id === form.from_account_id &&
      payment.amount_cents === form.amount_cents &&
      details.routing_number === form.routing_number &&
      details.account_number === form.account_number &&
      (details.account_type ?? "checking") === form.account_type
    );
  }
  const form = request.form;
  return (
    payment.kind === "wire" &&
    payment.from_account_id === form.from_account_id &&
    payment.currency === form.currency &&
    payment.foreign_amount_minor === form.amount_minor_units &&
    details.bic === form.bic &&
    details.account_number === form.account_number &&
    (details.iban ?? "") === (form.iban ?? "")
  );
}

/**
 * What a step-up code confirms: this form's key and what the transfer does (accounts, amount,
 * payee), as the emailed summary states it. A code is only good for the transfer it was sent for.
 */
export function stepUpTransfer(request: Extract<TransferRequest, { kind: "member" | "ach" | "wire" }>): string {
  switch (request.kind) {
    case "member": {
      const f = request.form;
      return JSON.stringify([request.kind, f.idempotency_key, f.from_account_id, f.amount_cents, f.recipient_email]);
    }
    case "ach": {
      const f = request.form;
      return JSON.stringify([
        request.kind,
        f.idempotency_key,
        f.from_account_id,
        f.amount_cents,
        f.routing_number,
        f.account_number,
        f.account_type,
        f.account_name,
      ]);
    }
    case "wire": {
      const f = request.form;
      return JSON.stringify([
        request.kind,
        f.idempotency_key,
        f.from_account_id,
        f.currency,
        f.amount_minor_units,
        f.recipient_name,
        f.bank_name,
        f.bic,
        f.account_number,
        f.iban ?? "",
        f.country,
      ]);
    }
  }
}

/**
 * What an earlier request under this form's key did: nothing yet (null), this same transfer (its
 * first result, `replayed`), or another one (refused with "key_reused"). Every transfer asks
 * before anything else, so a repeat costs no recipient look-up and no code.
 */
export async function earlierTransfer(
  db: DbOrTx,
  member: Member,
  request: TransferRequest,
): Promise<TransferDone | Refusal | null> {
  const key = request.form.idempotency_key;
  const [transaction] = await db
    .select({ id: ledgerTransactions.id, kind: ledgerTransactions.kind })
    .from(ledgerTransactions)
    .where(and(eq(ledgerTransactions.initiator, initiator(member)), eq(ledgerTransactions.idempotency_key, key)));
  if (!transaction) return null;
  if (transaction.kind !== LEDGER_KIND[request.kind]) return keyReused(transaction.id);
  if (request.kind === "ach" || request.kind === "wire") {
    const payment = await existingPayment(db, member.id, key);
    return payment && samePayment(request, payment) ? replayOf(payment) : keyReused(transaction.id);
  }
  const entries: KeyedEntry[] = await db
    .select({
      account_id: ledgerEntries.account_id,
      amount_cents: ledgerEntries.amount_cents,
      owner_email: users.email,
    })
    .from(ledgerEntries)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, ledgerEntries.account_id))
    .leftJoin(users, eq(users.id, ledgerAccounts.member_id))
    .where(eq(ledgerEntries.transaction_id, transaction.id));
  const { form } = request;
  const same =
    request.kind === "internal"
      ? isTransfer(
          entries,
          form.from_account_id,
          form.amount_cents,
          (to) => to.account_id === request.form.to_account_id,
        )
      : isTransfer(
          entries,
          form.from_account_id,
          form.amount_cents,
          (to) => (to.owner_email ?? "").toLowerCase() === request.form.recipient_email,
        );
  if (!same) return keyReused(transaction.id);
  return {
    ok: true,
    reference_number: referenceNumber(transaction.id),
    transaction_id: transaction.id,
    amount_cents: form.amount_cents,
    replayed: true,
  };
}

/**
 * Inside the transaction: the ledger answered with an earlier transaction under the key (a
 * request with the same key that committed a moment before this one). It is this transfer only
 * if its entries are the ones asked for.
 */
function checkReplay(
  result: LedgerResult,
  kind: TransferRequest["kind"],
  entries: ReadonlyArray<{ account_id: number; amount_cents: number }>,
): Refusal | null {
  if (!result.replayed) return null;
  const same =
    result.transaction.kind === LEDGER_KIND[kind] &&
    result.entries.length === entries.length &&
    entries.every((e) =>
      result.entries.some((r) => r.account_id === e.account_id && r.amount_cents === e.amount_cents),
    );
  return same ? null : keyReused(result.transaction.id);
}

function done(result: LedgerResult, amount_cents: number, payment_id?: number): TransferDone {
  return {
    ok: true,
    reference_number: referenceNumber(result.transaction.id),
    transaction_id: result.transaction.id,
    amount_cents,
    replayed: result.replayed,
    payment_id,
  };
}

// ---------------------------------------------------------------------------------------------
// Between Accounts

/**
 * One database transaction on the ledger's posting path: the accounts are locked, checked to be
 * the member's under the lock, and the transfer and its notification written in one statement.
 * The key comes first: a repeat answers with the first transfer whatever the accounts hold now
 * (the ledger looks the key up when anything refuses), and another transfer under it is refused.
 */
export async function transferBetweenAccounts(
  db: Db,
  member: Member,
  form: BetweenAccountsTransfer,
): Promise<TransferResult> {
  const entries = [
    { account_id: form.from_account_id, amount_cents: -form.amount_cents },
    { account_id: form.to_account_id, amount_cents: form.amount_cents },
  ];
  const result = await postTransferChecked<Refusal>(
    db,
    {
      kind: "transfer",
      initiator: initiator(member),
      idempotency_key: form.idempotency_key,
      created_by: member.id,
      entries,
      reference: form.reference,
      category: "Transfers",
    },
    async (accounts) => {
      const from = ownLocked(accounts, member, form.from_account_id);
      const to = ownLocked(accounts, member, form.to_account_id);
      if (!from || !to)
        return { ok: false, refusal: refuse("not_your_account", from ? "to_account_id" : "from_account_id") };
      const moved = `${formatCents(form.amount_cents)} moved from ${accountLabel(from)} to ${accountLabel(to)}.`;
      return {
        ok: true,
        memo: `Transfer from ${accountLabel(from)} to ${accountLabel(to)}`,
        notifications: [
          {
            member_id: member.id,
            kind: "transfer_sent",
            title: `Transfer of ${formatCents(form.amount_cents)} completed`,
            body: (reference) => `${moved} Reference ${reference}.`,
          },
        ],
      };
    },
  );
  // An account that does not exist is not the member's either.
  if (!result.ok && !("refused_by_check" in result) && result.code === "account_not_found") {
    return refuse("not_your_account", result.subject_id === form.from_account_id ? "from_account_id" : "to_account_id");
  }
  return answerOf(result, "internal", entries, form.amount_cents, form.from_account_id);
}

/** The member's own account among those the posting locked. */
function ownLocked(
  accounts: ReadonlyMap<number, LockedAccount>,
  member: Member,
  account_id: number,
): LockedAccount | undefined {
  const account = accounts.get(account_id);
  return account && account.owner === "member" && account.member_id === member.id ? account : undefined;
}

// ---------------------------------------------------------------------------------------------
// To Another Member

interface Recipient {
  member_id: string;
  name: string;
  checking: AccountView | null;
}

async function findRecipient(db: DbOrTx, email: string): Promise<Recipient | null> {
  const [user] = await db
    .select({ id: users.id, name: users.name, role: users.role })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()))
    .limit(1);
  if (!user || (user.role !== null && user.role !== "user")) return null;
  const accounts = await memberAccounts(db, user.id);
  const checking = accounts.find((a) => a.type === "checking" && a.status !== "closed") ?? null;
  if (!checking && accounts.length === 0) return null;
  return { member_id: user.id, name: user.name, checking };
}

export type VerifyResult = { ok: true; name: string } | Refusal;

export const RECIPIENT_LOOKUPS_PER_WINDOW = 30;
const RECIPIENT_LOOKUP_WINDOW_MS = 15 * 60 * 1000;

/**
 * Counts one look-up of a recipient by email against the member's limit, and refuses when it is
 * spent. Every look-up counts, the Verify button's and the one a transfer makes when it is sent:
 * a transfer answers differently for a member's email and an unknown one, so an unlimited send
 * would let anyone test addresses against the member directory.
 */
async function countRecipientLookup(db: DbOrTx, member: Member): Promise<Refusal | null> {
  const limit = await hitRateLimit(
    {
      key: `recipient-lookup:${member.id}`,
      limit: RECIPIENT_LOOKUPS_PER_WINDOW,
      window_ms: RECIPIENT_LOOKUP_WINDOW_MS,
    },
    { database: db },
  );
  return limit.allowed ? null : refuse("rate_limited", "recipient_email");
}

/**
 * "Verify" on the To Another Member form: the recipient's name only, never other data, and
 * rate-limited (30 lookups per 15 minutes per member, shared with sending) so the directory
 * cannot be harvested.
 */
export async function verifyRecipient(db: Db, member: Member, email: string): Promise<VerifyResult> {
  const limited = await countRecipientLookup(db, member);
  if (limited) return limited;
  const address = email.trim().toLowerCase();
  if (address === member.email.trim().toLowerCase()) return refuse("own_account", "recipient_email");
  const recipient = await findRecipient(db, address);
  if (!recipient || !recipient.checking) return refuse("recipient_not_found", "recipient_email");
  return { ok: true, name: recipient.name };
}

/** True when a To Another Member transfer of this amount is confirmed with the emailed code. */
export function memberTransferNeedsCode(amount_cents: number): boolean {
  return amount_cents > institution().limits.member_transfer_code_above_cents;
}

/** The lock that serializes one member's transfers to other members, so two at once cannot both pass the daily limit. */
function memberTransfersLock(member_id: string): string {
  return `member-transfers:${member_id}`;
}

/**
 * What the member sent to other members today (the credit union's business day), from the
 * ledger's daily totals. One statement for both checks: at the review step (`textQuery(db)`) and
 * inside the posting's transaction after the member's lock (the check's own `query`).
 */
async function sentToMembersToday(
  query: (text: string, params?: readonly unknown[]) => Promise<Record<string, unknown>[]>,
  accounts: readonly AccountView[],
): Promise<number> {
  const ids = accounts.filter((a) => a.owner === "member").map((a) => a.id);
  if (ids.length === 0) return 0;
  const [row] = await query(
    `SELECT coalesce(sum(debits_cents), 0)::text AS total FROM ledger_daily_totals
      WHERE account_id IN (SELECT value::bigint FROM jsonb_array_elements_text($1::jsonb)) AND effective_date = $2::date AND kind = 'member_transfer'`,
    [JSON.stringify(ids), today()],
  );
  return Number(row?.total ?? 0);
}

interface MemberTransferPlan {
  from: AccountView;
  to: AccountView;
  recipient: Recipient;
  accounts: AccountView[];
  summary: string;
}

/**
 * Every check of a To Another Member transfer, before the code is sent and again before it
 * posts. The per-transfer limit comes before the recipient is looked up, so an amount no one may
 * send answers the same for every email; the look-up itself counts against the Verify limit.
 */
async function checkMemberTransfer(
  db: DbOrTx,
  member: Member,
  form: ToMemberTransfer,
): Promise<Refusal | MemberTransferPlan> {
  const accounts = await memberAccounts(db, member.id);
  const from = ownAccount(accounts, form.from_account_id);
  if (!from) return refuse("not_your_account", "from_account_id");
  if (form.recipient_email === member.email.trim().toLowerCase()) return refuse("own_account", "recipient_email");
  const limits = limitsFor("member");
  const too_large = overTransferLimit(limits, form.amount_cents);
  if (too_large) return too_large;
  if (from.status === "frozen") return refuse("account_frozen");
  if (from.status === "closed") return refuse("account_closed");
  const limited = await countRecipientLookup(db, member);
  if (limited) return limited;
  const recipient = await findRecipient(db, form.recipient_email);
  if (!recipient || !recipient.checking) return refuse("recipient_not_found", "recipient_email");
  if (recipient.member_id === member.id) return refuse("own_account", "recipient_email");
  const over_daily = overDailyLimit(limits, form.amount_cents, await sentToMembersToday(textQuery(db), accounts));
  if (over_daily) return over_daily;
  if (form.amount_cents > from.available_cents + from.overdraft_limit_cents)
    return refuse("insufficient_funds", "amount");
  const summary = `${formatCents(form.amount_cents)} from ${accountLabel(from)} to ${recipient.name} (${form.recipient_email}).`;
  return { from, to: recipient.checking, recipient, accounts, summary };
}

/** The step before the code: everything is checked, and the summary the code step shows. */
export async function reviewMemberTransfer(
  db: Db,
  member: Member,
  form: ToMemberTransfer,
): Promise<Refusal | { ok: true; summary: string }> {
  const plan = await checkMemberTransfer(db, member, form);
  if ("ok" in plan) return plan;
  return { ok: true, summary: plan.summary };
}

/**
 * Posts a To Another Member transfer. Above `member_transfer_code_above_cents` it needs the code
 * emailed by `sendStepUpCode` (`otp`), whatever form or request asks for it.
 */
export async function transferToMember(
  db: Db,
  member: Member,
  form: ToMemberTransfer,
  otp = "",
): Promise<TransferResult> {
  const earlier = await earlierTransfer(db, member, { kind: "member", form });
  if (earlier) return earlier;
  const plan = await checkMemberTransfer(db, member, form);
  if ("ok" in plan) return plan;
  const { from, to, recipient } = plan;
  if (memberTransferNeedsCode(form.amount_cents)) {
    const code = otp.trim();
    if (code === "") return { ...refuse("otp_missing", "otp"), summary: plan.summary };
    const checked = await verifyStepUpCode(db, member, {
      code,
      transfer: stepUpTransfer({ kind: "member", form }),
      action: "transfer_to_member",
    });
    if (!checked.ok) return { ...codeRefused(checked), summary: plan.summary };
  }
  const entries = [
    { account_id: from.id, amount_cents: -form.amount_cents },
    { account_id: to.id, amount_cents: form.amount_cents },
  ];
  const result = await postTransferChecked<Refusal>(
    db,
    {
      kind: "member_transfer",
      initiator: initiator(member),
      idempotency_key: form.idempotency_key,
      created_by: member.id,
      entries,
      memo: `Transfer between members: ${member.name} to ${recipient.name}`,
      reference: form.reference,
      category: "Transfers",
    },
    async (_accounts, query) => {
      // Under the accounts' locks, then the member's own lock: a transfer of the member's that
      // committed meanwhile is in today's total (a repeat of this key is the ledger's to answer).
      await query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [memberTransfersLock(member.id)]);
      const over_daily = overDailyLimit(
        limitsFor("member"),
        form.amount_cents,
        await sentToMembersToday(query, plan.accounts),
      );
      if (over_daily) return { ok: false, refusal: over_daily };
      const amount = formatCents(form.amount_cents);
      return {
        ok: true,
        notifications: [
          {
            member_id: member.id,
            kind: "transfer_sent",
            title: `You sent ${amount} to ${recipient.name}`,
            body: (reference) => `From ${accountLabel(from)}. Reference ${reference}.`,
          },
          {
            member_id: recipient.member_id,
            kind: "transfer_received",
            title: `You received ${amount} from ${member.name}`,
            body: (reference) => `Into ${accountLabel(to)}: "${form.reference}". Reference ${reference}.`,
          },
        ],
      };
    },
  );
  return answerOf(result, "member", entries, form.amount_cents, from.id);
}

/** A member transfer's answer: the check's refusal, the ledger's as the member reads it, a reused key, or the transfer. */
function answerOf(
  result: LedgerAnswer | CheckRefused<Refusal>,
  kind: TransferRequest["kind"],
  entries: ReadonlyArray<{ account_id: number; amount_cents: number }>,
  amount_cents: number,
  source_account_id: number,
): TransferResult {
  if (!result.ok)
    return "refused_by_check" in result ? result.refused_by_check : fromLedgerRefusal(result, source_account_id);
  return checkReplay(result, kind, entries) ?? done(result, amount_cents);
}

// ---------------------------------------------------------------------------------------------
// Limits per transfer and per business day, from the institution profile.

interface Limits {
  per_transfer: number;
  daily: number;
  /** As the messages name them: "transfers to other banks". */
  what: string;
}

function limitsFor(kind: "member" | "ach" | "wire"): Limits {
  const limits = institution().limits;
  if (kind === "member")
    return {
      per_transfer: limits.member_transfer_max_cents,
      daily: limits.member_daily_max_cents,
      what: "transfers to other members",
    };
  return kind === "ach"
    ? {
        per_transfer: limits.external_transfer_max_cents,
        daily: limits.external_daily_max_cents,
        what: "transfers to other banks",
      }
    : {
        per_transfer: limits.wire_transfer_max_cents,
        daily: limits.wire_daily_max_cents,
        what: "international transfers",
      };
}

function overTransferLimit(limits: Limits, amount_cents: number): Refusal | null {
  if (amount_cents <= limits.per_transfer) return null;
  return refuse("over_transfer_max", "amount", { what: limits.what, max: formatCents(limits.per_transfer) });
}

function overDailyLimit(limits: Limits, amount_cents: number, sent_today_cents: number): Refusal | null {
  if (sent_today_cents + amount_cents <= limits.daily) return null;
  const left = formatCents(Math.max(0, limits.daily - sent_today_cents));
  return refuse("over_daily_limit", "amount", { max: formatCents(limits.daily), what: limits.what, left });
}

// ---------------------------------------------------------------------------------------------
// To US Bank (ACH) and International (wire): checks shared by the review and the send step.

export interface UsBankReview {
  ok: true;
  from: AccountView;
  bank_name: string | null;
}

function bankName(routing_number: string): string | null {
  return institution().us_banks.find((b) => b.routing_number === routing_number)?.name ?? null;
}

/** Today's total (the credit union's business day) of the member's payments of a kind to other banks, cancelled ones excluded. */
async function sentToday(db: DbOrTx, member_id: string, kind: "ach" | "wire"): Promise<number> {
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${externalPayments.amount_cents}), 0)::text` })
    .from(externalPayments)
    .where(
      and(
        eq(externalPayments.member_id, member_id),
        eq(externalPayments.kind, kind),
        ne(externalPayments.status, "cancelled"),
        // Midnight of today's business date where the credit union keeps its books.
        sql`${externalPayments.created_at} >= (${today()}::date::timestamp at time zone ${institution().time_zone})`,
      ),
    );
  return Number(row?.total ?? 0);
}

async function checkExternal(
  db: DbOrTx,
  member: Member,
  accounts: readonly AccountView[],
  from_account_id: number,
  kind: "ach" | "wire",
  usd_cents: number,
  total_cents: number,
): Promise<Refusal | AccountView> {
  const from = ownAccount(accounts, from_account_id);
  if (!from) return refuse("not_your_account", "from_account_id");
  if (await outgoingPaymentsPaused(db)) return refuse("denied");
  if (from.status === "frozen") return refuse("account_frozen");
  if (from.status === "closed") return refuse("account_closed");
  const limits = limitsFor(kind);
  const over =
    overTransferLimit(limits, usd_cents) ?? overDailyLimit(limits, usd_cents, await sentToday(db, member.id, kind));
  if (over) return over;
  if (total_cents > from.available_cents + from.overdraft_limit_cents) return refuse("insufficient_funds", "amount");
  return from;
}

async function existingPayment(
  db: DbOrTx,
  member_id: string,
  idempotency_key: string,
): Promise<ExternalPayment | null> {
  const [row] = await db
    .select()
    .from(externalPayments)
    .where(and(eq(externalPayments.member_id, member_id), eq(externalPayments.idempotency_key, idempotency_key)));
  return row ?? null;
}

function replayOf(payment: ExternalPayment): TransferDone {
  return {
    ok: true,
    reference_number: referenceNumber(Number(payment.hold_transaction_id)),
    transaction_id: Number(payment.hold_transaction_id),
    amount_cents: Number(payment.amount_cents) + Number(payment.fee_cents),
    replayed: true,
    payment_id: Number(payment.id),
    ...(payment.status === "screening" ? { in_review: true } : {}),
  };
}

/** Serializes one member's payments to other banks, so two at once cannot both pass the daily limit. */
async function lockMemberPayments(tx: DbOrTx, member_id: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`external-payments:${member_id}`}))`);
}

/** Step one of To US Bank: everything is checked before the code is sent. */
export async function reviewUsBankTransfer(
  db: Db,
  member: Member,
  form: ToUsBankTransfer,
): Promise<Refusal | (UsBankReview & { summary: string })> {
  const accounts = await memberAccounts(db, member.id);
  const checked = await checkExternal(
    db,
    member,
    accounts,
    form.from_account_id,
    "ach",
    form.amount_cents,
    form.amount_cents,
  );
  if ("ok" in checked) return checked;
  const bank = bankName(form.routing_number);
  const summary = `${formatCents(form.amount_cents)} from ${accountLabel(checked)} to ${form.account_name} at ${bank ?? `routing number ${form.routing_number}`}, ${form.account_type} account ${maskExternal(form.account_number)}.`;
  return { ok: true, from: checked, bank_name: bank, summary };
}

/** Step two of To US Bank: the one-time code, then the hold and the queued ACH payment. */
export async function sendUsBankTransfer(
  db: Db,
  member: Member,
  form: ToUsBankTransfer,
  otp: string,
): Promise<TransferResult> {
  return sendExternal(db, member, { kind: "ach", form }, otp);
}

/** What one payment to another bank holds and queues, once its review has passed. */
interface ExternalPlan {
  /** The transfer the emailed code confirms, shown again with a code refusal. */
  summary: string;
  /** What the other bank receives, in US cents; the hold is this plus `fee_cents`. */
  usd_cents: number;
  fee_cents: number;
  memo: string;
  payment: Pick<typeof externalPayments.$inferInsert, "currency" | "foreign_amount_minor" | "rate" | "details">;
  notification: (from: AccountView, reference: string) => { title: string; body: string };
}

/** The review of a payment to another bank (every check, before the code is sent) as what to hold and queue. */
async function planExternal(db: Db, member: Member, request: ExternalRequest): Promise<Refusal | ExternalPlan> {
  if (request.kind === "ach") {
    const form = request.form;
    const review = await reviewUsBankTransfer(db, member, form);
    if (!review.ok) return review;
    const bank = review.bank_name;
    return {
      summary: review.summary,
      usd_cents: form.amount_cents,
      fee_cents: 0,
      memo: `Transfer to ${form.account_name} at ${bank ?? "another bank"} ${maskExternal(form.account_number)}`,
      payment: {
        currency: "USD",
        details: {
          routing_number: form.routing_number,
          account_number: form.account_number,
          account_type: form.account_type,
          account_name: form.account_name,
          bank_name: bank ?? "",
        },
      },
      notification: (from, reference) => ({
        title: `Transfer of ${formatCents(form.amount_cents)} to ${form.account_name} is on its way`,
        body: `The money is held from ${accountLabel(from)} and goes out with the next ACH file. Reference ${reference}.`,
      }),
    };
  }
  const form = request.form;
  const quote = await reviewWire(db, member, form);
  if (!quote.ok) return quote;
  return {
    summary: quote.summary,
    usd_cents: quote.usd_cents,
    fee_cents: quote.fee_cents,
    memo: `International transfer to ${form.recipient_name}, ${form.bank_name} (${quote.amount_text}, fee ${formatCents(quote.fee_cents)})`,
    payment: {
      currency: quote.currency,
      foreign_amount_minor: form.amount_minor_units,
      rate: quote.rate,
      details: {
        recipient_name: form.recipient_name,
        bank_name: form.bank_name,
        bic: form.bic,
        account_number: form.account_number,
        iban: form.iban ?? "",
        country: form.country,
      },
    },
    notification: (from, reference) => ({
      title: `International transfer of ${quote.amount_text} to ${form.recipient_name} is waiting to be sent`,
      body: `${formatCents(quote.total_cents)} (including the ${formatCents(quote.fee_cents)} wire fee) is held from ${accountLabel(from)}. Reference ${reference}.`,
    }),
  };
}

type ExternalRequest = Extract<TransferRequest, { kind: "ach" | "wire" }>;

/**
 * The send step of To US Bank and International, one path for both: a repeat of the form's key
 * answers with its first result; then every check again (the review), the emailed code, and in
 * one database transaction (under the member's payments lock, checks repeated) the hold on the
 * member's account, the queued payment for the back office and the member's notification.
 */
async function sendExternal(db: Db, member: Member, request: ExternalRequest, otp: string): Promise<TransferResult> {
  const earlier = await earlierTransfer(db, member, request);
  if (earlier) return earlier;
  const plan = await planExternal(db, member, request);
  if ("ok" in plan) return plan;
  const code = otp.trim();
  if (code === "") return { ...refuse("otp_missing", "otp"), summary: plan.summary };
  const checked = await verifyStepUpCode(db, member, {
    code,
    transfer: stepUpTransfer(request),
    action: request.kind === "ach" ? "transfer_to_us_bank" : "international_transfer",
  });
  if (!checked.ok) return { ...codeRefused(checked), summary: plan.summary };
  // Sanctions screening (docs/product.md#sanctions-screening) before anything is held: the payee,
  // or the wire's recipient and bank, with the country. Outside the transaction: no lock waits on it.
  const parties =
    request.kind === "ach"
      ? [
          { name: request.form.account_name, country: "US" },
          ...(plan.payment.details?.bank_name ? [{ name: plan.payment.details.bank_name, country: "US" }] : []),
        ]
      : [
          { name: request.form.recipient_name, country: request.form.country },
          { name: request.form.bank_name, country: request.form.country },
        ];
  const matches = await screenParties(db, parties);
  const settlement = await institutionAccount(db, request.kind === "ach" ? "ach_settlement" : "wire_settlement");
  const fees = request.kind === "wire" ? await institutionAccount(db, "fees_income") : null;
  const { form } = request;
  const total_cents = plan.usd_cents + plan.fee_cents;
  return inTransaction(db, async (tx) => {
    await lockMemberPayments(tx, member.id);
    // Under the lock: a request with the same key that committed meanwhile answers as above.
    const again = await earlierTransfer(tx, member, request);
    if (again) return again;
    const checked = await checkExternal(
      tx,
      member,
      await memberAccounts(tx, member.id),
      form.from_account_id,
      request.kind,
      plan.usd_cents,
      total_cents,
    );
    if ("ok" in checked) return checked;
    const entries = [
      { account_id: checked.id, amount_cents: -total_cents },
      { account_id: settlement.id, amount_cents: plan.usd_cents },
    ];
    if (plan.fee_cents > 0) entries.push({ account_id: fees!.id, amount_cents: plan.fee_cents });
    assertExternalHold(member, checked, plan, entries);
    const result = await placeHold(tx, {
      kind: LEDGER_KIND[request.kind] as "ach_out" | "wire_out",
      initiator: initiator(member),
      idempotency_key: form.idempotency_key,
      created_by: member.id,
      entries,
      memo: plan.memo,
      reference: form.reference,
      category: "Transfers",
    });
    if (!result.ok) return fromLedgerRefusal(result, checked.id);
    // No payment has the key (checked under the lock): a ledger transaction with it is another transfer's.
    if (result.replayed) return keyReused(result.transaction.id);
    const [payment] = await tx
      .insert(externalPayments)
      .values({
        member_id: member.id,
        kind: request.kind,
        from_account_id: checked.id,
        hold_transaction_id: result.transaction.id,
        amount_cents: plan.usd_cents,
        fee_cents: plan.fee_cents,
        ...plan.payment,
        reference: form.reference,
        idempotency_key: form.idempotency_key,
        // A possible sanctions match: held, but not in the queue until staff clear it.
        ...(matches.length > 0 ? { status: "screening" as const } : {}),
      })
      .returning({ id: externalPayments.id });
    if (matches.length > 0) {
      const details = plan.payment.details ?? {};
      await fileScreening(tx, {
        subject_type: "payment",
        subject_id: String(payment!.id),
        member_id: member.id,
        screened_name: request.kind === "ach" ? request.form.account_name : request.form.recipient_name,
        screened_details:
          request.kind === "ach"
            ? {
                kind: "To US Bank",
                bank: details.bank_name || `routing number ${request.form.routing_number}`,
                country: "US",
              }
            : { kind: "International", bank: request.form.bank_name, country: request.form.country },
        matches,
      });
      await notify(tx, {
        member_id: member.id,
        kind: "payment_pending",
        title: "We need to review this payment",
        body: `${formatCents(total_cents)} is held from ${accountLabel(checked)} while we review it; we will let you know when it goes out. Reference ${referenceNumber(result.transaction.id)}.`,
      });
      return { ...done(result, total_cents, Number(payment!.id)), in_review: true };
    }
    await notify(tx, {
      member_id: member.id,
      kind: "payment_pending",
      ...plan.notification(checked, referenceNumber(result.transaction.id)),
    });
    return done(result, total_cents, Number(payment!.id));
  });
}

/**
 * The service boundary's invariants before anything is held: checks above already refused every
 * bad request, so a failure here is a bug, and it stops the transfer (the transaction rolls back)
 * instead of holding the wrong money. The hold is the amount plus the fee, from the member's own
 * open account, and balances.
 */
function assertExternalHold(
  member: Member,
  from: AccountView,
  plan: ExternalPlan,
  entries: ReadonlyArray<{ account_id: number; amount_cents: number }>,
): void {
  assert(
    Number.isSafeInteger(plan.usd_cents) && plan.usd_cents > 0,
    `payment amount ${plan.usd_cents} is not a positive whole number of cents`,
  );
  assert(
    Number.isSafeInteger(plan.fee_cents) && plan.fee_cents >= 0,
    `fee ${plan.fee_cents} is not a whole number of cents`,
  );
  assert(from.owner === "member" && from.member_id === member.id, `account ${from.id} is not the member's`);
  assert(
    entries[0]?.account_id === from.id && entries[0].amount_cents === -(plan.usd_cents + plan.fee_cents),
    "the hold is not the amount plus the fee",
  );
  assert(entries.reduce((sum, e) => sum + e.amount_cents, 0) === 0, "the hold's entries do not balance");
}

// ---------------------------------------------------------------------------------------------
// International

export interface WireQuote {
  ok: true;
  usd_cents: number;
  fee_cents: number;
  total_cents: number;
  rate: string;
  currency: string;
  amount_text: string;
  country_name: string;
}

export async function quoteWire(
  db: DbOrTx,
  form: Pick<InternationalTransfer, "currency" | "amount_minor_units" | "country">,
): Promise<WireQuote | Refusal> {
  const currency = findCurrency(form.currency);
  const rate = currency ? await currencyRate(db, currency.code) : null;
  if (!currency || !rate) return refuse("no_rate", "currency");
  const usd_cents = usdCentsForForeignAmount(form.amount_minor_units, currency.minor_units, rate.usd_per_unit);
  if (usd_cents < 1) return refuse("invalid_amount", "amount");
  const fee_cents = institution().limits.wire_fee_cents;
  return {
    ok: true,
    usd_cents,
    fee_cents,
    total_cents: usd_cents + fee_cents,
    rate: rate.usd_per_unit,
    currency: currency.code,
    amount_text: formatCurrencyAmount(form.amount_minor_units, currency.code),
    country_name: findCountry(form.country)?.name ?? form.country,
  };
}

export interface WireReview extends WireQuote {
  /** What the code step shows: the wire the emailed code confirms. */
  summary: string;
}

/** The confirm, notice and code steps: the USD debit at the current rate plus the fee, after every check. */
export async function reviewWire(db: Db, member: Member, form: InternationalTransfer): Promise<WireReview | Refusal> {
  const quote = await quoteWire(db, form);
  if (!quote.ok) return quote;
  const accounts = await memberAccounts(db, member.id);
  const checked = await checkExternal(
    db,
    member,
    accounts,
    form.from_account_id,
    "wire",
    quote.usd_cents,
    quote.total_cents,
  );
  if ("ok" in checked) return checked;
  const summary = `${quote.amount_text} to ${form.recipient_name} at ${form.bank_name} (${quote.country_name}), account ${maskExternal(form.account_number)}: ${formatCents(quote.total_cents)} held from ${accountLabel(checked)}, including the ${formatCents(quote.fee_cents)} wire fee.`;
  return { ...quote, summary };
}

/**
 * The last step of International: every wire needs the code emailed by `sendStepUpCode`
 * (`otp`), then the USD amount and the fee are held and the wire waits in the back office queue.
 */
export async function sendWire(
  db: Db,
  member: Member,
  form: InternationalTransfer,
  otp: string,
): Promise<TransferResult> {
  return sendExternal(db, member, { kind: "wire", form }, otp);
}

/** The member's pending payments to other banks (for the dashboard). */
export async function pendingExternalPayments(db: DbOrTx, member_id: string): Promise<ExternalPayment[]> {
  return db
    .select()
    .from(externalPayments)
    .where(and(eq(externalPayments.member_id, member_id), eq(externalPayments.status, "pending")))
    .limit(50);
}

/** For tests and the back office: the ledger accounts of one member, by id. */
export async function accountOwner(db: DbOrTx, account_id: number): Promise<string | null> {
  const [row] = await db
    .select({ member_id: ledgerAccounts.member_id })
    .from(ledgerAccounts)
    .where(eq(ledgerAccounts.id, account_id));
  return row?.member_id ?? null;
}
