import { and, eq, ne, sql, type SQL } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { externalPayments } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { placeHold, today } from "~/server/ledger/ledger.server";
import { assert } from "~/domain/ledger-rules";
import { institutionAccount, memberAccounts, type AccountView } from "~/server/ledger/accounts.server";
import { notify } from "~/server/notifications/notifications.server";
import { formatCents } from "~/domain/money";
import { accountLabel, maskExternal, referenceNumber } from "~/domain/account-display";
import { findCurrency, formatCurrencyAmount, usdCentsForForeignAmount } from "~/domain/currencies";
import { findCountry } from "~/domain/countries";
import { remittanceFigures, type RemittanceFigures } from "~/domain/remittance";
import type { InternationalTransfer, ToUsBankTransfer } from "~/domain/transfers";
import { outgoingPaymentsPaused } from "./controls.server";
import { currencyRate } from "./rates.server";
import { stepUpMissing, verifyStepUp, type StepUpProof } from "./step-up.server";
import { fileScreening, screenParties } from "~/server/sanctions/screening.server";
import { emailRemittanceReceipt } from "./remittance.server";
import { sealDestination } from "./payment-destination.server";

import {
  initiator,
  refuse,
  codeRefused,
  fromLedgerRefusal,
  ownAccount,
  inTransaction,
  keyReused,
  LEDGER_KIND,
  stepUpTransfer,
  earlierTransfer,
  done,
  limitsFor,
  overTransferLimit,
  overDailyLimit,
  type Member,
  type TransferRefusal,
  type TransferRequest,
  type TransferResult,
} from "./transfers.server";

/**
 * To US Bank (ACH) and International (wire) (docs/product.md#transfers): the review, the code, the
 * sanctions screening of the payee, and the hold with its `external_payments` row that waits for
 * the back office. The checks are shared by the review and the send step.
 */

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
): Promise<TransferRefusal | AccountView> {
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

/** Serializes one member's payments to other banks, so two at once cannot both pass the daily limit. */
async function lockMemberPayments(tx: DbOrTx, member_id: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`external-payments:${member_id}`}))`);
}

/** Step one of To US Bank: everything is checked before the code is sent. */
export async function reviewUsBankTransfer(
  db: Db,
  member: Member,
  form: ToUsBankTransfer,
): Promise<TransferRefusal | (UsBankReview & { summary: string })> {
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

/** Step two of To US Bank: the one-time code or a passkey (`StepUpProof`), then the hold and the queued ACH payment. */
export async function sendUsBankTransfer(
  db: Db,
  member: Member,
  form: ToUsBankTransfer,
  otp: StepUpProof,
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
  payment: Pick<
    typeof externalPayments.$inferInsert,
    "currency" | "foreign_amount_minor" | "rate" | "details" | "available_on" | "third_party_fee_minor"
  > & { cancel_until?: SQL | null };
  notification: (from: AccountView, reference: string) => { title: string; body: string };
}

/** The review of a payment to another bank (every check, before the code is sent) as what to hold and queue. */
async function planExternal(db: Db, member: Member, request: ExternalRequest): Promise<TransferRefusal | ExternalPlan> {
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
        // The account number sealed, its last four beside it (payment-destination.server.ts).
        details: sealDestination(member.id, {
          routing_number: form.routing_number,
          account_number: form.account_number,
          account_type: form.account_type,
          account_name: form.account_name,
          bank_name: bank ?? "",
          // Sent to the member's own linked account (docs/product.md#linked-accounts): which one.
          ...(form.linked_account_id !== undefined ? { linked_account_id: String(form.linked_account_id) } : {}),
        }),
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
      // The receipt states the figures the disclosure showed; the cancellation window (1005.34)
      // runs 30 minutes from the database's clock at the insert, the clock created_at uses.
      available_on: quote.disclosure.available_on,
      third_party_fee_minor: quote.disclosure.third_party_fee_minor,
      // To the millisecond: the deadline the app reads back (a JavaScript Date) is the one stored,
      // so an export or cancel at exactly that time sees the same instant PostgreSQL compares.
      cancel_until: quote.remittance_exempt ? null : sql`date_trunc('milliseconds', now() + interval '30 minutes')`,
      // The account number and IBAN sealed, their last four beside them (payment-destination.server.ts).
      details: sealDestination(member.id, {
        recipient_name: form.recipient_name,
        bank_name: form.bank_name,
        bic: form.bic,
        account_number: form.account_number,
        iban: form.iban ?? "",
        country: form.country,
      }),
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
async function sendExternal(
  db: Db,
  member: Member,
  request: ExternalRequest,
  otp: StepUpProof,
): Promise<TransferResult> {
  const earlier = await earlierTransfer(db, member, request);
  if (earlier) return earlier;
  const plan = await planExternal(db, member, request);
  if ("ok" in plan) return plan;
  if (stepUpMissing(otp)) return { ...refuse("otp_missing", "otp"), summary: plan.summary };
  const checked = await verifyStepUp(db, member, {
    proof: otp,
    transfer: stepUpTransfer(request),
    action: request.kind === "ach" ? "transfer_to_us_bank" : "international_transfer",
  });
  if (!checked.ok) return { ...codeRefused(checked), summary: plan.summary };
  return holdExternal(db, member, request, plan);
}

/**
 * One slot of a scheduled To US Bank transfer (docs/product.md#scheduled-transfers), sent by the
 * scheduled-transfers job under the slot's own key: every check of a payment sent now (the
 * review: the account, the limits, funds), the sanctions screening and the hold, without the code
 * (the member confirmed the whole series with a code at set-up). A repeat of the key answers
 * with its first result.
 */
export async function sendScheduledUsBankTransfer(
  db: Db,
  member: Member,
  form: ToUsBankTransfer,
): Promise<TransferResult> {
  const request = { kind: "ach" as const, form };
  const earlier = await earlierTransfer(db, member, request);
  if (earlier) return earlier;
  const plan = await planExternal(db, member, request);
  if ("ok" in plan) return plan;
  return holdExternal(db, member, request, plan);
}

/**
 * What follows the review and the code: the sanctions screening, then in one database transaction
 * (under the member's payments lock, checks repeated) the hold, the queued payment and the notice.
 */
async function holdExternal(
  db: Db,
  member: Member,
  request: ExternalRequest,
  plan: ExternalPlan,
): Promise<TransferResult> {
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
  /** The pre-payment disclosure (12 CFR 1005.31(b)(1)), docs/product.md#remittance-transfers. */
  disclosure: RemittanceFigures;
  /** The profile's small-provider exemption (1005.30(f)(2)): no 30-minute window then. */
  remittance_exempt: boolean;
}

export async function quoteWire(
  db: DbOrTx,
  form: Pick<InternationalTransfer, "currency" | "amount_minor_units" | "country">,
  now: Date = new Date(),
): Promise<WireQuote | TransferRefusal> {
  const currency = findCurrency(form.currency);
  const rate = currency ? await currencyRate(db, currency.code) : null;
  if (!currency || !rate) return refuse("no_rate", "currency");
  const usd_cents = usdCentsForForeignAmount(form.amount_minor_units, currency.minor_units, rate.usd_per_unit);
  if (usd_cents < 1) return refuse("invalid_amount", "amount");
  const profile = institution();
  const fee_cents = profile.limits.wire_fee_cents;
  const remittance = profile.remittance_transfers;
  const disclosure = remittanceFigures({
    amount_minor: form.amount_minor_units,
    currency: currency.code,
    usd_per_unit: rate.usd_per_unit,
    fee_cents,
    third_party_fee_minor: remittance.covered_third_party_fees_minor[currency.code] ?? 0,
    business_date: today(now),
    availability_business_days: remittance.availability_business_days,
  });
  return {
    ok: true,
    usd_cents,
    fee_cents,
    total_cents: usd_cents + fee_cents,
    disclosure,
    remittance_exempt: remittance.exempt,
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
export async function reviewWire(
  db: Db,
  member: Member,
  form: InternationalTransfer,
): Promise<WireReview | TransferRefusal> {
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
 * The last step of International: every wire needs the code emailed by `sendStepUpCode`, or a
 * passkey's answer bound to this wire (`otp`), then the USD amount and the fee are held and the wire waits in the back office queue.
 */
export async function sendWire(
  db: Db,
  member: Member,
  form: InternationalTransfer,
  otp: StepUpProof,
): Promise<TransferResult> {
  const result = await sendExternal(db, member, { kind: "wire", form }, otp);
  // The receipt (1005.31(b)(2)) by email once the member has paid; a repeat of the form sends none.
  if (result.ok && !result.replayed && result.payment_id !== undefined)
    await emailRemittanceReceipt(db, member.id, result.payment_id);
  return result;
}
