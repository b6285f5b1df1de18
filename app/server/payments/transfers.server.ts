import { and, eq } from "drizzle-orm";
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
  type CheckRefused,
  type LedgerAnswer,
  type LedgerRefusal,
  type LedgerResult,
} from "~/server/ledger/ledger.server";
import { type AccountView } from "~/server/ledger/accounts.server";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import { formatCents } from "~/domain/money";
import { referenceNumber } from "~/domain/account-display";
import type {
  BetweenAccountsTransfer,
  InternationalTransfer,
  ToMemberTransfer,
  ToUsBankTransfer,
} from "~/domain/transfers";
import { lockWait, type StepUpCheck } from "./step-up.server";
import { openNumber } from "./payment-destination.server";
import { countTransferRefusal } from "~/server/metrics/metrics.server";
import {
  REFUSAL_MESSAGES,
  codedRefusal,
  refusalMessage,
  type CodedRefusal,
  type RefusalCode,
  type RefusalDetails,
  type RefusalKind,
} from "~/domain/refusals";

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

/** The codes a transfer is refused with: the ledger's that reach the member, and the service's own. */
export type TransferRefusalCode = keyof typeof TRANSFER_REFUSAL_KINDS;

/**
 * What kind of "no" each code is (the route picks the HTTP status from it, `refusalStatus`): the
 * form's own input (`bad_input`, next to its field), an account, recipient or linked account that
 * is not the member's to use (`not_found`, the same whether it exists or not), the state of an
 * account or of an earlier request under the key (`conflict`), too many look-ups or codes
 * (`too_many`), payments paused for everyone (`forbidden`), a code that does not confirm the
 * transfer or no rate for the currency (`unprocessable`).
 */
const TRANSFER_REFUSAL_KINDS = {
  invalid_amount: "bad_input",
  insufficient_funds: "bad_input",
  same_account: "bad_input",
  own_account: "bad_input",
  over_transfer_max: "bad_input",
  over_daily_limit: "bad_input",
  otp_missing: "bad_input",
  not_your_account: "not_found",
  recipient_not_found: "not_found",
  linked_account_unavailable: "not_found",
  account_frozen: "conflict",
  account_closed: "conflict",
  transfer_limit: "conflict",
  recipient_unavailable: "conflict",
  key_reused: "conflict",
  rate_limited: "too_many",
  codes_rate_limited: "too_many",
  otp_locked: "too_many",
  denied: "forbidden",
  otp_invalid: "unprocessable",
  no_rate: "unprocessable",
} as const satisfies Partial<Record<RefusalCode, RefusalKind>>;

/**
 * Why a transfer was not made (docs/architecture.md#refusals): a code from the one vocabulary
 * (app/domain/refusals.ts, the same code the ledger gave where the ledger refused), its kind, and
 * its message as the member reads it, next to `field` when it is one field's.
 */
export type TransferRefusal = CodedRefusal<TransferRefusalCode> & {
  /** At the code step: the transfer the code confirms, shown again with the message. */
  summary?: string;
};

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

export type TransferResult = TransferDone | TransferRefusal;

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

export function initiator(member: Member): string {
  return `member:${member.id}`;
}

/** Every refusal a member is shown is made here, and counted for /metrics by its code. */
export function refuse(code: TransferRefusalCode, field?: string, details?: RefusalDetails): TransferRefusal {
  countTransferRefusal(code);
  return transferRefusal(code, field, details);
}

/** A refusal with its kind and words, not counted: for a form step that answers before the service is asked. */
export function transferRefusal(code: TransferRefusalCode, field?: string, details?: RefusalDetails): TransferRefusal {
  const message = code === "account_frozen" ? MESSAGES.blocked : refusalMessage(code, details);
  return codedRefusal(TRANSFER_REFUSAL_KINDS[code], message, code, field === undefined ? {} : { field });
}

/** A code that did not confirm the transfer: wrong, or the member's codes are locked (docs/product.md#step-up-codes). */
export function codeRefused(check: Exclude<StepUpCheck, { ok: true }>): TransferRefusal {
  return check.code === "otp_locked"
    ? { ...refuse("otp_locked", "otp", { wait: lockWait(check.retry_after_s) }), retry_after_s: check.retry_after_s }
    : refuse("otp_invalid", "otp");
}

/**
 * A ledger refusal as the member sees it (docs/product.md#messages-transfers): the same code,
 * except that a refusal about the other member's account says only that the recipient cannot
 * receive (their balance and status are theirs). The service checks ownership, amounts and
 * accounts before it asks the ledger, so any other code here is a bug.
 */
export function fromLedgerRefusal(refusal: LedgerRefusal, source_account_id: number): TransferRefusal {
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

export function ownAccount(accounts: readonly AccountView[], account_id: number): AccountView | undefined {
  return accounts.find((a) => a.id === account_id && a.owner === "member");
}

/** Runs `work` in one database transaction; a refusal it answers rolls back everything it wrote. */
export function inTransaction(db: Db, work: (tx: DbOrTx) => Promise<TransferResult>): Promise<TransferResult> {
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

export const LEDGER_KIND: Record<TransferRequest["kind"], string> = {
  internal: "transfer",
  member: "member_transfer",
  ach: "ach_out",
  wire: "wire_out",
};

export function keyReused(transaction_id: number): TransferRefusal {
  return refuse("key_reused", undefined, { reference: referenceNumber(transaction_id) });
}

export interface KeyedEntry {
  account_id: number;
  amount_cents: number;
  /** The email of the member who holds the account (the payee of a member transfer). */
  owner_email: string | null;
}

/** Both sides of a two-entry transfer: `amount_cents` from one account to the other. */
export function isTransfer(
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

export function samePayment(
  request: Extract<TransferRequest, { kind: "ach" | "wire" }>,
  payment: ExternalPayment,
): boolean {
  const details = payment.details;
  // The numbers are sealed in the details: opened here only when everything else already matches.
  if (request.kind === "ach") {
    const form = request.form;
    return (
      payment.kind === "ach" &&
      payment.from_account_id === form.from_account_id &&
      payment.amount_cents === form.amount_cents &&
      details.routing_number === form.routing_number &&
      (details.account_type ?? "checking") === form.account_type &&
      openNumber(payment, "account_number") === form.account_number
    );
  }
  const form = request.form;
  return (
    payment.kind === "wire" &&
    payment.from_account_id === form.from_account_id &&
    payment.currency === form.currency &&
    payment.foreign_amount_minor === form.amount_minor_units &&
    details.bic === form.bic &&
    openNumber(payment, "account_number") === form.account_number &&
    openNumber(payment, "iban") === (form.iban ?? "")
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
): Promise<TransferDone | TransferRefusal | null> {
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
export function checkReplay(
  result: LedgerResult,
  kind: TransferRequest["kind"],
  entries: ReadonlyArray<{ account_id: number; amount_cents: number }>,
): TransferRefusal | null {
  if (!result.replayed) return null;
  const same =
    result.transaction.kind === LEDGER_KIND[kind] &&
    result.entries.length === entries.length &&
    entries.every((e) =>
      result.entries.some((r) => r.account_id === e.account_id && r.amount_cents === e.amount_cents),
    );
  return same ? null : keyReused(result.transaction.id);
}

export function done(result: LedgerResult, amount_cents: number, payment_id?: number): TransferDone {
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
// Limits per transfer and per business day, from the institution profile.

export interface Limits {
  per_transfer: number;
  daily: number;
  /** As the messages name them: "transfers to other banks". */
  what: string;
}

export function limitsFor(kind: "member" | "ach" | "wire"): Limits {
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

export function overTransferLimit(limits: Limits, amount_cents: number): TransferRefusal | null {
  if (amount_cents <= limits.per_transfer) return null;
  return refuse("over_transfer_max", "amount", { what: limits.what, max: formatCents(limits.per_transfer) });
}

export function overDailyLimit(limits: Limits, amount_cents: number, sent_today_cents: number): TransferRefusal | null {
  if (sent_today_cents + amount_cents <= limits.daily) return null;
  const left = formatCents(Math.max(0, limits.daily - sent_today_cents));
  return refuse("over_daily_limit", "amount", { max: formatCents(limits.daily), what: limits.what, left });
}

export async function existingPayment(
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

export function replayOf(payment: ExternalPayment): TransferDone {
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

/** A member transfer's answer: the check's refusal, the ledger's as the member reads it, a reused key, or the transfer. */
export function answerOf(
  result: LedgerAnswer | CheckRefused<TransferRefusal>,
  kind: TransferRequest["kind"],
  entries: ReadonlyArray<{ account_id: number; amount_cents: number }>,
  amount_cents: number,
  source_account_id: number,
): TransferResult {
  if (!result.ok)
    return "refused_by_check" in result ? result.refused_by_check : fromLedgerRefusal(result, source_account_id);
  return checkReplay(result, kind, entries) ?? done(result, amount_cents);
}
