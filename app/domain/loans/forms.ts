import { z } from "zod";
import { plainText } from "../plain-text";
import { parseDollarsToCents } from "../money";
import { ADVERSE_ACTION_REASON_KEYS, ADVERSE_ACTION_REASONS_MAX, parseLoanRatePercent } from "./products";

/**
 * The loan forms' fields (docs/product.md#loans): what the browser checks as the person types and
 * the server checks again. Whether an amount and term are within the product is the service's
 * rule (requestProblems), answered next to the same fields.
 */
const dollars = (missing: string, message: string) =>
  z
    .string({ error: missing })
    .trim()
    .min(1, missing)
    .refine((text) => {
      const cents = parseDollarsToCents(text);
      return cents !== null && cents > 0;
    }, message)
    .transform((text) => parseDollarsToCents(text)!);

const months = (message: string) => z.coerce.number({ error: message }).int(message).min(1, message).max(480, message);

export const LOAN_PURPOSE_MAX_CHARS = 500;
export const LOAN_EMPLOYER_MAX_CHARS = 120;

export const LoanApplicationSchema = z.object({
  amount: dollars("Enter the amount you want to borrow.", "Enter an amount in dollars, like 5000 or 5,000.00."),
  term_months: months("Choose how many months to repay over."),
  purpose: plainText({
    missing: "Tell us what the loan is for.",
    message: "Please use only letters, numbers, spaces and punctuation.",
    multiline: true,
  })
    .min(3, "Tell us what the loan is for.")
    .max(LOAN_PURPOSE_MAX_CHARS, `Please keep it to ${LOAN_PURPOSE_MAX_CHARS} characters.`),
  annual_income: dollars("Enter your yearly income before taxes.", "Enter your yearly income in dollars, like 52000."),
  employer: plainText({
    missing: 'Enter your employer, or "Self-employed" or "Retired".',
    message: "Please use only letters, numbers, spaces and punctuation.",
  })
    .min(2, 'Enter your employer, or "Self-employed" or "Retired".')
    .max(LOAN_EMPLOYER_MAX_CHARS, `Please keep it to ${LOAN_EMPLOYER_MAX_CHARS} characters.`),
  /** A share-secured loan's pledged savings account; whether one is needed and whose it is, the service says. */
  pledged_account: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v && /^[1-9]\d{0,15}$/.test(v) ? Number(v) : null)),
});
export type LoanApplicationForm = z.infer<typeof LoanApplicationSchema>;

const rate = z
  .string({ error: "Enter the interest rate, like 8.99." })
  .trim()
  .refine((text) => parseLoanRatePercent(text) !== null, "Enter the interest rate as a percent, like 8.99.")
  .transform((text) => parseLoanRatePercent(text)!);

/** Staff's decision, by its outcome. */
export const LoanDecisionSchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("approve"), rate, term_months: months("Enter the term in months.") }),
  z.object({
    outcome: z.literal("counter"),
    amount: dollars("Enter the amount offered.", "Enter an amount in dollars, like 3000."),
    rate,
    term_months: months("Enter the term in months."),
  }),
  z.object({
    outcome: z.literal("decline"),
    reasons: z
      .array(z.enum(ADVERSE_ACTION_REASON_KEYS as [string, ...string[]]), { error: "Choose at least one reason." })
      .min(1, "Choose at least one reason.")
      .max(ADVERSE_ACTION_REASONS_MAX, `Choose the principal reasons: at most ${ADVERSE_ACTION_REASONS_MAX}.`),
    other_text: z.string().trim().max(200, "Please keep it to 200 characters.").optional(),
  }),
]);

/** How much a member pays on a loan (docs/product.md#loan-servicing). */
export const LOAN_PAYMENT_CHOICES = ["next_due", "payoff", "amount"] as const;

const accountId = (missing: string) =>
  z
    .string({ error: missing })
    .trim()
    .regex(/^[1-9]\d{0,15}$/, missing)
    .transform(Number);

/** A one-time payment: from which account, and the next payment due, the payoff, or an amount. */
export const LoanPaymentSchema = z
  .object({
    from: accountId("Choose the account to pay from."),
    pay: z.enum(LOAN_PAYMENT_CHOICES, { error: "Choose how much to pay." }),
    amount: z.string().trim().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.pay !== "amount") return;
    const cents = parseDollarsToCents(v.amount ?? "");
    if (!v.amount) ctx.addIssue({ code: "custom", path: ["amount"], message: "Enter the amount to pay." });
    else if (cents === null || cents <= 0)
      ctx.addIssue({ code: "custom", path: ["amount"], message: "Enter an amount in dollars, like 150 or 150.00." });
  })
  .transform((v) => ({
    from: v.from,
    amount:
      v.pay === "amount" ? { kind: "amount" as const, amount_cents: parseDollarsToCents(v.amount!)! } : { kind: v.pay },
  }));

/** Autopay: the account each due date's payment is taken from, or "off". */
export const LoanAutopaySchema = z.object({
  autopay_from: z
    .string({ error: "Choose an account, or Off." })
    .trim()
    .regex(/^(off|[1-9]\d{0,15})$/, "Choose an account, or Off.")
    .transform((v) => (v === "off" ? null : Number(v))),
});

/**
 * A line of credit's application (docs/product.md#lines-of-credit): the credit limit asked for in
 * place of an amount and term; the rest as a loan's.
 */
export const LineOfCreditApplicationSchema = LoanApplicationSchema.omit({ amount: true, term_months: true }).extend({
  credit_limit: dollars("Enter the credit limit you want.", "Enter a credit limit in dollars, like 5000 or 5,000.00."),
});
export type LineOfCreditApplicationForm = z.infer<typeof LineOfCreditApplicationSchema>;

/** Staff's decision on a line of credit: approve at a rate, counter with another limit, or decline. */
export const LineOfCreditDecisionSchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("approve"), rate }),
  z.object({
    outcome: z.literal("counter"),
    amount: dollars("Enter the credit limit offered.", "Enter a credit limit in dollars, like 3000."),
    rate,
  }),
  LoanDecisionSchema.options[2],
]);

/** A draw: into which of the member's accounts, and how much. */
export const LineDrawSchema = z.object({
  to: accountId("Choose the account to put the money in."),
  amount: dollars("Enter the amount to draw.", "Enter an amount in dollars, like 500 or 500.00."),
});
