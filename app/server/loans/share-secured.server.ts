import { and, asc, eq, type SQL } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, sharePledges, type SharePledgeRow } from "~/server/db/schema";
import { placeHold, releaseHold, type LedgerAnswer } from "~/server/ledger/ledger.server";
import { notify } from "~/server/notifications/notifications.server";
import { logger } from "~/server/logger.server";
import { refusal, refusalMessage, type Refusal } from "~/domain/refusals";
import { formatCents } from "~/domain/money";
import { pledgeHoldAfterPayment, securityInterestText, shareSecuredMaximumCents } from "~/domain/loans/share-secured";
import { loanNumber, type LoanProductTerms } from "~/domain/loans/products";

/**
 * Share-secured loans (docs/product.md#share-secured-loans): the member pledges one of their own
 * open savings accounts when applying; at booking a hold (a pending ledger transaction of kind
 * `share_pledge`, debiting the savings and crediting the loan's receivable, never settled) takes
 * the amount borrowed out of its available balance; after each payment the hold is lowered to the
 * principal still owed (app/domain/loans/share-secured.ts); at payoff it is released. A hold keeps
 * the account from being closed (closing needs nothing held) and a withdrawal beyond the available
 * balance is refused by the ledger, as for any hold.
 */

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

const INITIATOR = "system:loan-servicing";

export const CHOOSE_PLEDGE = "Choose the savings account to pledge.";

export interface PledgeableAccount {
  id: number;
  name: string;
  account_number: string;
  available_cents: number;
}

/** The member's open savings accounts with what is available in each (the balance less what is held). */
export async function pledgeableAccounts(db: DbOrTx, member_id: string): Promise<PledgeableAccount[]> {
  const rows = await db
    .select({
      id: ledgerAccounts.id,
      name: ledgerAccounts.name,
      account_number: ledgerAccounts.account_number,
      posted_cents: ledgerAccounts.posted_cents,
      held_cents: ledgerAccounts.held_cents,
    })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.member_id, member_id),
        eq(ledgerAccounts.type, "savings"),
        eq(ledgerAccounts.status, "active"),
      ),
    )
    .orderBy(asc(ledgerAccounts.id));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    account_number: r.account_number,
    available_cents: Number(r.posted_cents) - Number(r.held_cents),
  }));
}

/**
 * Whether `amount_cents` may be borrowed against the member's savings `account_id` under the
 * product: null when it may, else the refusal next to its field.
 */
export async function pledgeProblem(
  db: DbOrTx,
  member_id: string,
  product: LoanProductTerms,
  account_id: number | null,
  amount_cents: number,
): Promise<Refusal | null> {
  const account = account_id ? (await pledgeableAccounts(db, member_id)).find((a) => a.id === account_id) : null;
  if (!account) return refusal("bad_input", CHOOSE_PLEDGE, { field: "pledged_account" });
  const max = shareSecuredMaximumCents(account.available_cents, product);
  if (amount_cents > max)
    return refusal(
      "bad_input",
      max < product.amount_min_cents
        ? `${account.name} has ${formatCents(account.available_cents)} available: too little to borrow the minimum of ${formatCents(product.amount_min_cents)} against.`
        : `At most ${formatCents(max)} may be borrowed against ${account.name} (${product.pledge_percent}% of its ${formatCents(account.available_cents)} available).`,
      { field: "amount" },
    );
  return null;
}

/** Records the pledge with the application, in the application's own database transaction. */
export async function recordPledge(
  tx: Tx,
  input: { application_id: number; member_id: string; account_id: number; at: Date },
): Promise<void> {
  await tx.insert(sharePledges).values({
    application_id: input.application_id,
    member_id: input.member_id,
    account_id: input.account_id,
    created_at: input.at,
  });
}

export interface PledgeView {
  account_id: number;
  account_name: string;
  account_number: string;
  status: SharePledgeRow["status"];
  held_cents: number;
  /** The security interest as the Truth in Lending disclosure names it. */
  security_interest: string;
}

async function pledgeWhere(db: DbOrTx, where: SQL | undefined): Promise<PledgeView | null> {
  const [row] = await db
    .select({ pledge: sharePledges, name: ledgerAccounts.name, account_number: ledgerAccounts.account_number })
    .from(sharePledges)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, sharePledges.account_id))
    .where(where);
  if (!row) return null;
  return {
    account_id: row.pledge.account_id,
    account_name: row.name,
    account_number: row.account_number,
    status: row.pledge.status,
    held_cents: Number(row.pledge.held_cents),
    security_interest: securityInterestText(row),
  };
}

/** The savings pledged with an application; null when it is not share-secured. */
export function applicationPledge(db: DbOrTx, application_id: number): Promise<PledgeView | null> {
  return pledgeWhere(db, eq(sharePledges.application_id, application_id));
}

/**
 * The savings pledged for a booked loan and what is held in it now; null when it is not
 * share-secured (or, given a member, not theirs).
 */
export function loanPledge(db: DbOrTx, loan_id: number, member_id?: string): Promise<PledgeView | null> {
  return pledgeWhere(
    db,
    member_id
      ? and(eq(sharePledges.loan_id, loan_id), eq(sharePledges.member_id, member_id))
      : eq(sharePledges.loan_id, loan_id),
  );
}

/**
 * At booking, in the booking's transaction: holds the amount borrowed in the pledged savings. A
 * refusal (the savings no longer have that much available, or the account is frozen or closed)
 * refuses the booking. Answers null when the application pledged nothing.
 */
export async function holdPledge(
  tx: Tx,
  input: { application_id: number; loan_id: number; receivable_account_id: number; amount_cents: number; day: string },
): Promise<{ ok: true } | Refusal | null> {
  const [pledge] = await tx
    .select()
    .from(sharePledges)
    .where(eq(sharePledges.application_id, input.application_id))
    .for("update");
  if (!pledge) return null;
  const held = await placeHold(tx, {
    idempotency_key: `share-pledge:${input.application_id}:booking`,
    initiator: INITIATOR,
    kind: "share_pledge",
    created_by: "loan-servicing",
    memo: `Pledged for share-secured loan ${loanNumber(input.loan_id)}`,
    effective_date: input.day,
    entries: [
      { account_id: pledge.account_id, amount_cents: -input.amount_cents },
      { account_id: input.receivable_account_id, amount_cents: input.amount_cents },
    ],
  });
  if (!held.ok)
    return refusal(
      "conflict",
      `Your pledged savings no longer cover the loan: ${refusalMessage(held.code)}. Please contact us.`,
    );
  await tx
    .update(sharePledges)
    .set({
      status: "held",
      loan_id: input.loan_id,
      hold_transaction_id: held.transaction.id,
      held_cents: input.amount_cents,
    })
    .where(eq(sharePledges.id, pledge.id));
  return { ok: true };
}

/**
 * After a payment, in the payment's transaction (the loan row locked): lowers the hold to the
 * principal still owed, or releases it when the loan is paid off. The hold is replaced (the old
 * one released, the smaller one placed) under the key of the payment, so a repeat does nothing.
 * While the pledged account is frozen the hold stays as it is until a later payment (a new hold
 * cannot be placed on it); a payoff releases it whatever the account's state.
 */
export async function holdFollowsPrincipal(
  tx: Tx,
  input: {
    loan_id: number;
    member_id: string;
    receivable_account_id: number;
    principal_owed_cents: number;
    paid_off: boolean;
    payment_id: number;
    day: string;
    now: Date;
  },
): Promise<void> {
  const [pledge] = await tx.select().from(sharePledges).where(eq(sharePledges.loan_id, input.loan_id)).for("update");
  if (!pledge || pledge.status !== "held") return;
  const current = Number(pledge.held_cents);
  const next = pledgeHoldAfterPayment(current, input.principal_owed_cents, input.paid_off);
  if (next === current && !input.paid_off) return;
  if (!input.paid_off && next > 0) {
    const [account] = await tx
      .select({ status: ledgerAccounts.status })
      .from(ledgerAccounts)
      .where(eq(ledgerAccounts.id, pledge.account_id));
    if (account?.status !== "active") return;
  }
  if (pledge.hold_transaction_id !== null)
    must(
      await releaseHold(tx, {
        transaction_id: pledge.hold_transaction_id,
        idempotency_key: `share-pledge-release:${pledge.hold_transaction_id}`,
        resolved_by: INITIATOR,
      }),
      input.loan_id,
    );
  let hold_transaction_id: number | null = null;
  if (next > 0) {
    const placed = must(
      await placeHold(tx, {
        idempotency_key: `share-pledge:${input.loan_id}:payment:${input.payment_id}`,
        initiator: INITIATOR,
        kind: "share_pledge",
        created_by: "loan-servicing",
        memo: `Pledged for share-secured loan ${loanNumber(input.loan_id)}`,
        effective_date: input.day,
        entries: [
          { account_id: pledge.account_id, amount_cents: -next },
          { account_id: input.receivable_account_id, amount_cents: next },
        ],
      }),
      input.loan_id,
    );
    hold_transaction_id = placed.transaction.id;
  }
  await tx
    .update(sharePledges)
    .set(
      input.paid_off
        ? { status: "released", held_cents: 0, hold_transaction_id: null, released_on: input.day }
        : { held_cents: next, hold_transaction_id },
    )
    .where(eq(sharePledges.id, pledge.id));
  if (input.paid_off)
    await notify(tx, {
      member_id: input.member_id,
      kind: "loan_update",
      title: "Your pledged savings are released",
      body: `${loanNumber(input.loan_id)} is paid off, so the ${formatCents(current)} held in your savings is available again.`,
      at: input.now,
    });
}

function must(answer: LedgerAnswer, loan_id: number) {
  if (!answer.ok) {
    logger.error({ loan_id, code: answer.code }, "a share-secured loan's hold could not be changed");
    throw new Error(`loan ${loan_id}: the pledge hold could not be changed (${answer.code})`);
  }
  return answer;
}
