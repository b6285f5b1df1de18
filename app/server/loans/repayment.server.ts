import { and, eq, inArray } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts } from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { refusal, refusalMessage, type Refusal } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import {
  applyPayment,
  paymentParts,
  totalOwed,
  type LoanOwed,
  type PaymentApplication,
} from "~/domain/loans/servicing";

/**
 * What a closed-end loan (./servicing.server.ts) and a line of credit (./lines-of-credit.server.ts)
 * share when the member pays or sets up autopay: one concept in one place. Each caller keeps what is
 * its own: how the amount is chosen (the schedule's next due, the cycle's minimum), what happens at
 * zero (a loan is paid off and closed, a line stays open), its rows, keys, messages and audit names.
 */

export const CHOOSE_OWN_ACCOUNT = "Please choose one of your open checking or savings accounts.";

/** A member's own open checking or savings account (where a payment comes from, a draw goes), or null. */
export async function memberOwnAccount(db: DbOrTx, member_id: string, account_id: number) {
  const [row] = await db
    .select({ id: ledgerAccounts.id, name: ledgerAccounts.name })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.id, account_id),
        eq(ledgerAccounts.member_id, member_id),
        inArray(ledgerAccounts.type, ["checking", "savings"]),
        eq(ledgerAccounts.status, "active"),
      ),
    );
  return row ?? null;
}

/** The figures of a loan or line that say what is owed on it. */
export interface CreditFigures {
  receivable_account_id: number;
  fees_due_cents: number;
  accrued_interest_cents: number;
}

/** What the member owes now, by part: the receivable holds principal and fees; interest is kept apart. */
export async function owedOn(db: DbOrTx, credit: CreditFigures): Promise<LoanOwed> {
  const [row] = await db
    .select({ posted_cents: ledgerAccounts.posted_cents })
    .from(ledgerAccounts)
    .where(eq(ledgerAccounts.id, credit.receivable_account_id));
  const receivable = 0 - (row?.posted_cents ?? 0); // never -0
  return {
    fees_cents: credit.fees_due_cents,
    interest_cents: credit.accrued_interest_cents,
    principal_cents: receivable - credit.fees_due_cents,
  };
}

/**
 * The payment applied to fees, then interest, then principal (docs/product.md#loan-servicing), or the
 * refusal shown beside the amount. `total` names what all that is owed is called on the page: a
 * loan's "payoff", a line's "balance".
 */
export function applyOrRefuse(
  amount_cents: number,
  owed: LoanOwed,
  total: "payoff" | "balance",
): PaymentApplication | Refusal {
  const applied = applyPayment(amount_cents, owed);
  if (applied) return applied;
  const owed_cents = totalOwed(owed);
  return refusal(
    "bad_input",
    amount_cents > owed_cents
      ? `That is more than you owe: the ${total} today is ${formatCents(owed_cents)}.`
      : "Enter an amount of at least $0.01.",
    { field: "amount" },
  );
}

export interface Repayment {
  /** The ledger's idempotency key, unique to the loan or line and the member's key. */
  idempotency_key: string;
  member_id: string;
  /** Who made the posting: the member, or the nightly servicing job for autopay. */
  created_by: string;
  memo: string;
  day: string;
  from_account_id: number;
  receivable_account_id: number;
  amount_cents: number;
  applied: PaymentApplication;
}

/**
 * Posts a payment (kind `loan_payment`): the member's account debited; the interest receivable
 * credited with the interest part, the loan's or line's receivable with the fees and principal.
 */
export async function postRepayment(tx: DbOrTx, r: Repayment) {
  const interestReceivable = await institutionAccount(tx, "interest_receivable");
  const to_receivable = r.applied.fees_cents + r.applied.principal_cents;
  const posted = await postTransfer(tx, {
    idempotency_key: r.idempotency_key,
    initiator: `member:${r.member_id}`,
    kind: "loan_payment",
    created_by: r.created_by,
    memo: r.memo,
    category: "Loan payment",
    effective_date: r.day,
    entries: [
      { account_id: r.from_account_id, amount_cents: -r.amount_cents },
      ...(r.applied.interest_cents > 0
        ? [{ account_id: interestReceivable.id, amount_cents: r.applied.interest_cents }]
        : []),
      ...(to_receivable > 0 ? [{ account_id: r.receivable_account_id, amount_cents: to_receivable }] : []),
    ],
  });
  if (posted.ok) return posted;
  return refusal("conflict", refusalMessage(posted.code), { field: "from", code: posted.code });
}

/** The notice's sentence of where a payment went: "$50.00 from Checking went to LN-000001: …". */
export function paymentBreakdown(amount_cents: number, from_name: string, number: string, applied: PaymentApplication) {
  return `${formatCents(amount_cents)} from ${from_name} went to ${number}: ${paymentParts(applied)}.`;
}

// ---------------------------------------------------------------------------------------------
// Autopay

export type AutopayAnswer = { ok: true; on: boolean } | Refusal;

/** What differs between turning a loan's autopay on or off and a line's. */
export interface AutopayTarget {
  /** The member's own loan or line, locked for update, or null. */
  lock: (tx: Parameters<Parameters<Db["transaction"]>[0]>[0]) => Promise<{
    id: number;
    status: string;
    autopay_account_id: number | null;
  } | null>;
  save: (tx: DbOrTx, id: number, from_account_id: number | null) => Promise<unknown>;
  not_found: string;
  /** The refusal when the loan or line is no longer active. */
  inactive: string;
  /** The audit's action prefix and subject: "loan" / "loan", "line" / "credit_line". */
  action: string;
  subject_type: string;
  /** The form field the account refusal is shown beside. */
  field: string;
}

/** Turns autopay on from one of the member's own checking or savings accounts, or off (null). */
export async function setAutopayOn(
  db: Db,
  member: Actor,
  target: AutopayTarget,
  from_account_id: number | null,
  origin: AuditOrigin,
  now: Date,
): Promise<AutopayAnswer> {
  if (from_account_id !== null && !(await memberOwnAccount(db, member.id, from_account_id)))
    return refusal("bad_input", CHOOSE_OWN_ACCOUNT, { field: target.field });
  return db.transaction(async (tx) => {
    const credit = await target.lock(tx);
    if (!credit) return refusal("not_found", target.not_found);
    if (credit.status !== "active") return refusal("conflict", target.inactive);
    await target.save(tx, credit.id, from_account_id);
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: `${target.action}.${from_account_id === null ? "autopay_off" : "autopay_on"}`,
      subject_type: target.subject_type,
      subject_id: credit.id,
      member_id: member.id,
      before: { autopay_account_id: credit.autopay_account_id },
      after: { autopay_account_id: from_account_id },
      ...origin,
      at: now,
    });
    return { ok: true as const, on: from_account_id !== null };
  });
}
