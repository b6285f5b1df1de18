import type { DbOrTx } from "~/server/db/client.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { daysBetween } from "~/domain/loans/schedule";
import { accrualRun, type AccrualRun, type AccruedFigures } from "~/domain/loans/servicing";
import { owedOn, type CreditFigures } from "./repayment.server";

/**
 * A booked loan's and a line of credit's interest accrual posted to the books: one rule
 * (`accrualRun`, actual days / 365, whole cents, the fraction carried: ~/domain/loans/servicing)
 * and one posting (kind `loan_interest`: the interest receivable debited, loan interest income
 * credited). Each caller keeps what is its own: a loan writes its event row, a line puts its rate
 * changes in effect day by day, and each saves the figures after the run on its own row.
 */

/** The figures of a loan or a line that its interest accrues on. */
export interface AccruingCredit extends CreditFigures, AccruedFigures {
  id: number;
  status: string;
  rate_ppm: number;
}

/** Whose interest it is: "loan" or "line", its number as members read it, who posts it. */
export interface InterestOf {
  kind: "loan" | "line";
  number: string;
  initiator: string;
}

export type PostedAccrual = AccrualRun & { transaction_id: number | null };

/**
 * Accrues `credit`'s interest for the days from its last accrual to the day before `to` (in the
 * caller's transaction, under the row's lock) and posts it when it is a cent or more. Once per
 * loan or line per day: the ledger key is theirs and the day's. Null when it is not active or
 * there is no day to accrue; otherwise the run, whose `after` figures the caller saves.
 */
export async function postInterestAccrual(
  tx: DbOrTx,
  credit: AccruingCredit,
  to: string,
  of: InterestOf,
): Promise<PostedAccrual | null> {
  // The days are counted before the books are read, so a run with none reads nothing.
  if (credit.status !== "active" || daysBetween(credit.interest_accrued_to, to) <= 0) return null;
  const owed = await owedOn(tx, credit);
  const run = accrualRun(credit, owed.principal_cents, credit.rate_ppm, to);
  if (!run) return null;
  if (run.interest_cents === 0) return { ...run, transaction_id: null };
  const receivable = await institutionAccount(tx, "interest_receivable");
  const income = await institutionAccount(tx, "interest_income");
  const posted = await postTransfer(tx, {
    idempotency_key: `${of.kind}:${credit.id}:interest:${to}`,
    initiator: of.initiator,
    kind: "loan_interest",
    created_by: `${of.kind}-servicing`,
    memo: `${of.number}: interest ${credit.interest_accrued_to} to the day before ${to}`,
    effective_date: to,
    entries: [
      { account_id: receivable.id, amount_cents: -run.interest_cents },
      { account_id: income.id, amount_cents: run.interest_cents },
    ],
  });
  if (!posted.ok) throw new Error(`${of.kind} ${credit.id}: interest could not be posted (${posted.code})`);
  return { ...run, transaction_id: posted.transaction.id };
}
