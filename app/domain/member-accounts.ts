import type { Refusal, RefusalCode } from "./refusals";
import { z } from "zod";
import { isValidAccountNumber } from "./account-number";
import { parseDollarsToCents, formatCents } from "./money";
import { plainText } from "./plain-text";
import { isValidRoutingNumber } from "./routing-number";
import { idempotencyKeyField } from "./transfers";

/**
 * The staff forms on a member's accounts (docs/product.md#member-accounts-staff): account edit,
 * balance adjustment, holds, reversals and their approvals. Pure, so the server and the browser
 * check with the same rules and words; the server decides.
 */

/** The largest amount staff may type: far above any member balance, far below the ledger's cap. */
export const STAFF_AMOUNT_CENTS_MAX = 10_000_000_000; // $100,000,000.00
export const REASON_CHARS_MAX = 500;

export const ACCOUNT_NUMBER_MESSAGE = "Account number must be 10 digits and not start with 0";
export const ACCOUNT_NUMBER_TAKEN_MESSAGE = "This account number is already in use";
export const ROUTING_NUMBER_MESSAGE = "Routing number must be 9 digits with a valid checksum";
export const REASON_MESSAGE = "Please give the reason";
export const AMOUNT_MESSAGE = "Please enter a valid amount";
export const AMOUNT_DECIMALS_MESSAGE = "Please enter an amount with at most two decimals";
export const AMOUNT_TOO_LARGE_MESSAGE = `Please enter an amount up to ${formatCents(STAFF_AMOUNT_CENTS_MAX)}`;
export const TARGET_BALANCE_MESSAGE = "Please enter the new balance (0 or more, at most two decimals)";
export const ACCOUNT_UPDATE_FAILED = "Failed to update account";
/** A balance adjustment the ledger refused (not enough available money, a frozen account). */
export const ADJUSTMENT_FAILED = "Failed to adjust the balance";
export const ACCOUNT_NOT_FOUND = "Account not found";
export const TRANSACTION_REVERSED = "Transaction reversed and balance updated successfully";
export const TRANSACTION_RELEASED = "Pending transaction released: the held money is available again";
export const TRANSACTION_REVERSE_FAILED = "Error reversing transaction";
export const TRANSACTION_NOT_FOUND = "Transaction not found";
export const TRANSACTION_POSTED = "Pending transaction posted: the balance is updated";
export const TRANSACTION_POST_FAILED = "Error posting transaction";

/**
 * A pending row staff added with Add Transactions (kind import, a staff initiator): staff Post it
 * when it completes, or Release it. Nothing else pending is posted by hand: a payment, a bill
 * payment, a card purchase or a deposit settles through its own flow, and a staff hold is a hold.
 */
export function isPendingStaffPosting(t: { kind: string; status: string; initiator: string }): boolean {
  return t.status === "pending" && t.kind === "import" && t.initiator.startsWith("staff:");
}
export const REVERSE_ALL_FAILED = "Error reversing transactions";
export const REVERSE_ALL_EMAIL_MESSAGE = "Type the member's email address exactly to confirm";

/**
 * Pending transactions that belong to something else in the app, which settles or releases them
 * itself: a staff Release here would leave that thing waiting on money that is no longer held (a
 * bill payment the nightly run could not pay, a deposit the queue could not decide). Staff are
 * told where it is resolved instead (docs/product.md#member-accounts-staff).
 */
export const PENDING_OWNERS = {
  payment: "a payment waiting in the payments queue: cancel it there",
  bill_payment:
    "a bill payment the member scheduled: the member can cancel it in Bill Pay before its date (a frozen account stops it too)",
  card_purchase: "a card purchase waiting for the card network: settle or release it on Post card transaction",
  mobile_deposit: "a mobile deposit waiting for review: approve or reject it in the deposit queue",
  credit_review:
    "an incoming ACH credit held for review: release or return it in Incoming credits to review on Payment queues",
} as const;
export type PendingOwner = keyof typeof PENDING_OWNERS;

export function reversedAllMessage(count: number): string {
  return `Successfully reversed ${count} transactions`;
}

export const ACCOUNT_STATUSES = ["active", "frozen", "closed"] as const;
export type AccountStatusChoice = (typeof ACCOUNT_STATUSES)[number];
export const ACCOUNT_STATUS_LABELS: Record<AccountStatusChoice, string> = {
  active: "Active",
  frozen: "Frozen",
  closed: "Closed",
};

/** Ledger status -> the words staff and members read (docs/product.md#money-rules). */
export const TRANSACTION_STATUS_LABELS = {
  pending: "Pending",
  posted: "Completed",
  failed: "Failed",
  reversed: "Reversed",
} as const;

/** Spaces (as the number is shown grouped 3-3-4) are ignored. */
export function normaliseAccountNumber(value: string): string {
  return value.replace(/\s+/g, "");
}

const id = (message: string) =>
  z
    .string({ error: message })
    .trim()
    .regex(/^[1-9]\d{0,15}$/, message)
    .transform(Number);

const reason = plainText({ missing: REASON_MESSAGE }).pipe(
  z
    .string()
    .min(1, REASON_MESSAGE)
    .max(REASON_CHARS_MAX, `Please keep the reason under ${REASON_CHARS_MAX} characters`),
);

/** Dollars typed by staff -> cents: positive, whole cents, at most STAFF_AMOUNT_CENTS_MAX. */
export function amountProblem(text: string, options: { zero_allowed?: boolean } = {}): string | null {
  const trimmed = text.trim();
  if (/^\$?[\d,]*\.\d{3,}$/.test(trimmed)) return AMOUNT_DECIMALS_MESSAGE;
  const cents = parseDollarsToCents(trimmed);
  if (cents === null && /^\$?[\d,]{14,}(\.\d{1,2})?$/.test(trimmed)) return AMOUNT_TOO_LARGE_MESSAGE;
  if (cents === null) return options.zero_allowed ? TARGET_BALANCE_MESSAGE : AMOUNT_MESSAGE;
  if (cents === 0 && !options.zero_allowed) return AMOUNT_MESSAGE;
  if (cents > STAFF_AMOUNT_CENTS_MAX) return AMOUNT_TOO_LARGE_MESSAGE;
  return null;
}

function dollars(options: { zero_allowed?: boolean } = {}) {
  return z
    .string({ error: options.zero_allowed ? TARGET_BALANCE_MESSAGE : AMOUNT_MESSAGE })
    .superRefine((text, ctx) => {
      const problem = amountProblem(text, options);
      if (problem) ctx.addIssue({ code: "custom", message: problem, abort: true });
    })
    .transform((text) => parseDollarsToCents(text)!);
}

export const AccountEditSchema = z
  .object({
    account_id: id(ACCOUNT_NOT_FOUND),
    account_number: z
      .string({ error: ACCOUNT_NUMBER_MESSAGE })
      .transform(normaliseAccountNumber)
      .refine(isValidAccountNumber, ACCOUNT_NUMBER_MESSAGE),
    routing_number: z
      .string({ error: ROUTING_NUMBER_MESSAGE })
      .transform(normaliseAccountNumber)
      .refine(isValidRoutingNumber, ROUTING_NUMBER_MESSAGE),
    status: z.enum(ACCOUNT_STATUSES, "Please choose a status"),
    status_reason: plainText()
      .pipe(z.string().max(REASON_CHARS_MAX, `Please keep the reason under ${REASON_CHARS_MAX} characters`))
      .optional()
      .default(""),
  })
  .superRefine((value, ctx) => {
    if (value.status !== "active" && value.status_reason.length === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["status_reason"],
        message: `Please give the reason the account is ${value.status}`,
      });
    }
  });
export type AccountEdit = z.infer<typeof AccountEditSchema>;

export const AdjustBalanceSchema = z.object({
  account_id: id(ACCOUNT_NOT_FOUND),
  target_balance: dollars({ zero_allowed: true }),
  reason,
});

export const PlaceHoldSchema = z.object({
  account_id: id(ACCOUNT_NOT_FOUND),
  amount: dollars(),
  reason,
  /** Made when the form is shown: a second press of the same form places one hold, not two. */
  request_key: idempotencyKeyField("This form could not be processed. Please reload the page and try again."),
});

export const ReleaseHoldSchema = z.object({ transaction_id: id(TRANSACTION_NOT_FOUND), reason });
export const ReverseSchema = z.object({ transaction_id: id(TRANSACTION_NOT_FOUND) });
/** Post a pending staff posting: the same one field as Reverse. */
export const PostPendingSchema = ReverseSchema;
export const ReverseAllSchema = z.object({
  confirm_email: z
    .string({ error: REVERSE_ALL_EMAIL_MESSAGE })
    .trim()
    .min(1, REVERSE_ALL_EMAIL_MESSAGE)
    .max(320, REVERSE_ALL_EMAIL_MESSAGE),
});
export const ADJUSTMENT_PAGE_STALE_MESSAGE =
  "This page is out of date. Please reload it and look at the adjustment again.";
export const ApproveAdjustmentSchema = z.object({
  adjustment_id: id("Adjustment not found"),
  /**
   * The account's balance the approver's screen showed: approving posts only if it still is.
   * Without it (a request not made by the page) nothing is compared.
   */
  seen_balance_cents: z
    .string({ error: ADJUSTMENT_PAGE_STALE_MESSAGE })
    .trim()
    .regex(/^-?\d{1,15}$/, ADJUSTMENT_PAGE_STALE_MESSAGE)
    .transform(Number)
    .optional(),
});
export const DeclineAdjustmentSchema = z.object({ adjustment_id: id("Adjustment not found"), reason });

/** An Add Transactions request waiting for a second approval (docs/product.md#payment-queues). */
export const POSTING_REQUEST_NOT_FOUND = "This request was not found.";
export const ApprovePostingRequestSchema = z.object({ request_id: id(POSTING_REQUEST_NOT_FOUND) });
export const DeclinePostingRequestSchema = z.object({ request_id: id(POSTING_REQUEST_NOT_FOUND), reason });

/** A staff money action's refusal, with the reasons a caller may branch on. */
export type StaffRefusal = Refusal<
  | RefusalCode
  | "maker_cannot_approve"
  | "already_decided"
  | "nothing_to_reverse"
  | "resolved_elsewhere"
  | "number_taken"
  | "no_change"
  | "balance_changed"
>;
