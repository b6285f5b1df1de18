import { defineJob } from "./job";
import { releaseAvailableDeposits } from "~/server/deposits/availability.server";
import { releaseAvailablePulls } from "~/server/linked-accounts/money-in.server";
import { pruneExpired } from "./prune.server";
import { retryOutboxDeliveries } from "./outbox-retry.server";
import { deliverPushes, pushKeys } from "~/server/notifications/push.server";
import { deliverSms, smsProvider } from "~/server/notifications/sms.server";
import { runMonthlyStatements } from "~/server/statements/monthly-run.server";
import { payDueBillPayments } from "~/server/bill-pay/due-payments.server";
import { runDueScheduledTransfers } from "~/server/payments/scheduled-transfers-job.server";
import { payMonthlyDividends } from "~/server/dividends/dividends.server";
import { issueDueTaxForms } from "~/server/dividends/tax-forms.server";
import { upkeepEmbeddedDatabase } from "~/server/db/upkeep.server";
import { releaseUnsettledCardPurchases } from "~/server/cards/authorization.server";
import { renewExpiringCards } from "~/server/cards/cards.server";
import { CARD_AUTHORIZATION_HOLD_DAYS, CARD_RENEWAL_DAYS } from "~/domain/cards";
import { runDisputeClocks } from "~/server/disputes/clocks.server";
import { rescreenMembers } from "~/server/sanctions/rescreen.server";
import { sendChangeInTermsNotices } from "~/server/electronic-delivery/change-in-terms.server";
import { flagComplianceDeadlines } from "./compliance-deadlines.server";
import { runLoanServicing } from "~/server/loans/servicing.server";
import { runLineServicing } from "~/server/loans/line-servicing.server";

/**
 * Every job the app runs (docs/contributing.md#add-a-job says how to add one; docs/operations.md
 * "Scheduled jobs" says what runs when).
 */
export const outboxDeliveryJob = defineJob({
  name: "outbox-delivery",
  title: "Outbox delivery retries",
  description:
    "Sends again the emails whose delivery by the mail server failed or never finished (with SMTP configured only).",
  schedule: "*/5 * * * *",
  max_attempts: 3,
  backoff: { first_ms: 60_000, max_ms: 10 * 60_000 },
  run: ({ db, now }) => retryOutboxDeliveries(db, now),
});

export const pushDeliveryJob = defineJob({
  name: "push-delivery",
  title: "Push notifications",
  description:
    "Sends the members' notifications to the devices they allowed (Web Push, with the VAPID keys configured only); a device its push service says is gone is removed.",
  schedule: "* * * * *",
  max_attempts: 3,
  backoff: { first_ms: 60_000, max_ms: 5 * 60_000 },
  configured: () => pushKeys() !== null,
  run: ({ db, now }) => deliverPushes(db, now),
});

export const smsDeliveryJob = defineJob({
  name: "sms-delivery",
  title: "Text messages",
  description:
    "Sends the text messages waiting in the SMS outbox (verification codes again after a failure, and the notifications members chose to get by text) through the configured SMS provider, each at most once; a refusal is tried again 1, 2, 4 and 8 minutes later.",
  schedule: "* * * * *",
  max_attempts: 3,
  backoff: { first_ms: 60_000, max_ms: 5 * 60_000 },
  configured: () => smsProvider() !== null,
  run: ({ db, now }) => deliverSms(db, now),
});

export const pruneExpiredJob = defineJob({
  name: "prune-expired",
  title: "Remove expired sign-in codes and limits",
  description:
    "Removes sign-in codes, sessions, challenges, payment codes, rate-limit counters and lockouts that ended over a day ago. Never money, never the audit log.",
  schedule: "17 * * * *",
  max_attempts: 3,
  backoff: { first_ms: 5 * 60_000, max_ms: 30 * 60_000 },
  // Staff may be asked what was removed and when: every run is in the audit log with its counts.
  audit_every_run: true,
  run: ({ db, now }) => pruneExpired(db, now),
});

export const monthlyStatementsJob = defineJob({
  name: "monthly-statements",
  title: "Monthly statements",
  description:
    "On the first business day of each month, makes every account's statement for the month just ended, then every loan's that had a balance or activity in it, and tells the member. A later run makes only those still missing. Every run also makes the statement of each line of credit's billing cycle closed since the last.",
  // Every weekday at 6:00: the first run on or after the month's first business day does the work.
  schedule: "0 6 * * 1-5",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  run: ({ db, now }) => runMonthlyStatements(db, now),
});

export const monthlyDividendsJob = defineJob({
  name: "monthly-dividends",
  title: "Monthly dividends",
  description:
    "On the first night of each month, pays every open savings (and, if the profile says so, checking) account the dividend of the month just ended, on its average daily balance at the profile's APY. A later run pays only those still missing, such as after a run that stopped half way.",
  // Every night at 0:30, so the month's dividends are posted before the 6:00 statement run of
  // its first business day and the statement shows them; what a run that was missed or failed
  // left unpaid is paid by a later one in the month.
  schedule: "30 0 * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  run: ({ db, now }) => payMonthlyDividends(db, now),
});

export const taxFormsJob = defineJob({
  name: "tax-forms",
  title: "Year-end tax forms (1099-INT)",
  description:
    "From the 15th of January, issues last year's Form 1099-INT to every member whose dividends reached $10, for the Statements page, and the year's figures for staff. A later run issues only those still missing.",
  // Every night at 2:00; before the 15th of January (December's dividends settled) it does nothing.
  schedule: "0 2 * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  run: ({ db, now }) => issueDueTaxForms(db, now),
});

export const billPaymentsJob = defineJob({
  name: "bill-payments",
  title: "Bill payments",
  description:
    "Pays the bill payments whose date has come: the held amount goes to the bill-pay settlement account (Paid), or the payment fails for its stated reason with the hold released and the member told. A recurring series schedules its next payment.",
  // Payments fall on business days; a run that was missed or failed pays them on the next one.
  schedule: "0 6 * * 1-5",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  run: ({ db, now }) => payDueBillPayments(db, now),
});

export const scheduledTransfersJob = defineJob({
  name: "scheduled-transfers",
  title: "Scheduled transfers",
  description:
    "Sends the scheduled and repeating transfers (Between Accounts, To Another Member, To US Bank) whose date has come, each slot once under its own key, through the same checks as a transfer sent now; a failure is told to the member (bell and email) and the series goes on or stops as they chose.",
  // Dates are business days; hourly so a missed or failed run sends them later the same day.
  schedule: "10 * * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  // Each run moves members' money: staff can see every one in the audit log.
  audit_every_run: true,
  run: ({ db, now }) => runDueScheduledTransfers(db, now),
});

export const mobileDepositAvailabilityJob = defineJob({
  name: "mobile-deposit-availability",
  title: "Mobile deposit availability",
  description:
    "Releases the holds on approved mobile deposits whose availability date has come (the institution's funds availability policy), and on money members moved in from linked accounts whose hold days have passed, and tells the member when the money is available.",
  // Dates are business days; every hour so a hold ends early in the day it is due, and a missed run catches up.
  schedule: "5 * * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  run: async ({ db, now }) => {
    const deposits = await releaseAvailableDeposits(db, now);
    // Money moved in from a linked account (docs/product.md#move-money-in): the same kind of hold, released the same way.
    const moved_in = await releaseAvailablePulls(db, now);
    return { ...deposits, moved_in: moved_in.released };
  },
});

export const unsettledCardPurchasesJob = defineJob({
  name: "unsettled-card-purchases",
  title: "Unsettled card purchases",
  description: `Releases the hold of every debit card purchase the card network has not settled ${CARD_AUTHORIZATION_HOLD_DAYS} days after it was authorized, so a purchase that never completes does not keep the member's money, and tells the member.`,
  // Nightly, after the day has turned; a missed run releases the same purchases at the next.
  schedule: "45 0 * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  // Each run moves members' money back to them: staff can see every one in the audit log.
  audit_every_run: true,
  run: ({ db, now }) => releaseUnsettledCardPurchases(db, now),
});

export const cardRenewalsJob = defineJob({
  name: "card-renewals",
  title: "Debit card renewals",
  description: `Issues a new debit card (new number and expiry, the same account and daily limit) for every card whose expiry month ends within ${CARD_RENEWAL_DAYS} days, once per card, and tells the member; the old card works until it expires.`,
  // Nightly; a missed night renews the same cards at the next.
  schedule: "15 1 * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  // Each run issues cards: staff can see every one in the audit log.
  audit_every_run: true,
  run: ({ db, now }) => renewExpiringCards(db, now),
});

export const disputeClocksJob = defineJob({
  name: "dispute-clocks",
  title: "Dispute deadlines",
  description:
    "Error resolution (Regulation E): debits each provisional credit whose 5 business days' notice has ended (no error was found), and once a business day emails staff the cases due today, the next business day or overdue.",
  // Hourly, so a reversal falls early on its date and a missed run catches up; staff are told once a day.
  schedule: "20 * * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  // Each run may take members' provisional credits back: staff can see every one in the audit log.
  audit_every_run: true,
  run: ({ db, now }) => runDisputeClocks(db, now),
});

export const sanctionsRescreenJob = defineJob({
  name: "sanctions-rescreen",
  title: "Sanctions re-screen of all members",
  description:
    "After a new sanctions list is loaded, screens every member and joint owner against it, in batches of 500; possible matches go to the screening queue. A run stopped half way goes on where it stopped.",
  // Queued at once by the back office's upload and `npm run sanctions:load`; every 5 minutes as
  // well, so a load whose run was not queued (or a run that failed) is picked up.
  schedule: "*/5 * * * *",
  max_attempts: 5,
  backoff: { first_ms: 60_000, max_ms: 10 * 60_000 },
  // Staff may be asked when members were last screened: every run is in the audit log.
  audit_every_run: true,
  run: async ({ db, now }) => {
    const run = await rescreenMembers(db, { now });
    return { ...run };
  },
});

export const complianceDeadlinesJob = defineJob({
  name: "compliance-deadlines",
  title: "Compliance deadlines",
  description:
    "Once a business day, emails staff the screening queue's items, the incoming credits to review and the suspicious activity reports not yet filed that are due today, the next business day or overdue.",
  // Hourly, so a missed run catches up; staff are told once a day (the day's run is in the audit log).
  schedule: "50 * * * 1-5",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  run: ({ db, now }) => flagComplianceDeadlines(db, now),
});

export const databaseUpkeepJob = defineJob({
  name: "database-upkeep",
  title: "Embedded database upkeep",
  description:
    "On the embedded database (PGlite), which has no autovacuum: refreshes the statistics of the tables that changed enough and reclaims their dead rows, by PostgreSQL's own autovacuum rules, so postings and pages stay as fast as the tables grow. On PostgreSQL its autovacuum does this and the job does nothing.",
  schedule: "*/5 * * * *",
  max_attempts: 3,
  backoff: { first_ms: 60_000, max_ms: 5 * 60_000 },
  run: ({ db }) => upkeepEmbeddedDatabase(db),
});

export const changeInTermsNoticesJob = defineJob({
  name: "change-in-terms-notices",
  title: "Change-in-terms notices",
  description:
    "When the profile holds a new version of a disclosure, tells every member (by email and in the app, or on the paper mail list for members without electronic delivery) once, ahead of the date it takes effect by its rule (21 days for Regulation E, 30 for Truth in Savings and funds availability). A later run tells only those not yet told.",
  schedule: "40 * * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  run: ({ db, now }) => sendChangeInTermsNotices(db, now),
});

export const loanServicingJob = defineJob({
  name: "loan-servicing",
  title: "Loan servicing",
  description:
    "Every night, for each active loan: accrues the interest of the days since the last run (principal x rate / 365 a day, the fraction of a cent carried), makes the autopay of a due date that has come, and charges the product's late fee once for each due date still unpaid after its grace days, with the member told. For each line of credit the same, and on its cycle day closes the month's billing cycle and sets the minimum payment due. A second run the same day does nothing more.",
  // Nightly, after the day has turned; a missed night's interest is accrued by the next run.
  schedule: "50 0 * * *",
  max_attempts: 5,
  backoff: { first_ms: 5 * 60_000, max_ms: 60 * 60_000 },
  // Each run moves members' money (autopay) and charges fees: staff can see every one in the audit log.
  audit_every_run: true,
  // Then the lines of credit (docs/product.md#lines-of-credit): interest, the month's cycle and its
  // minimum, autopay of a due minimum, a late fee; their counts prefixed `line_`.
  run: async ({ db, now }) => {
    const loans = await runLoanServicing(db, now);
    const lines = await runLineServicing(db, now);
    return {
      ...loans,
      ...Object.fromEntries(Object.entries(lines).map(([name, count]) => [`line_${name}`, count])),
    };
  },
});

export const APP_JOBS = [
  outboxDeliveryJob,
  pushDeliveryJob,
  smsDeliveryJob,
  pruneExpiredJob,
  monthlyStatementsJob,
  monthlyDividendsJob,
  taxFormsJob,
  billPaymentsJob,
  scheduledTransfersJob,
  mobileDepositAvailabilityJob,
  unsettledCardPurchasesJob,
  cardRenewalsJob,
  disputeClocksJob,
  sanctionsRescreenJob,
  changeInTermsNoticesJob,
  complianceDeadlinesJob,
  loanServicingJob,
  databaseUpkeepJob,
] as const;
