import { z } from "zod";
import { formatCents, parseDollarsToCents } from "./money";
import {
  LOAN_AMOUNT_MAX_CENTS,
  LOAN_AMOUNT_MIN_CENTS,
  LOAN_APR_MAX_PPM,
  LOAN_TERM_MONTHS_MAX,
  SAVINGS_APY_MAX_PPM,
  SAVINGS_DEPOSIT_MAX_CENTS,
  SAVINGS_MONTHLY_MAX_CENTS,
  SAVINGS_YEARS_MAX,
  amortizes,
  formatPpmAsPercent,
  parsePercentToPpm,
  type LoanInput,
  type SavingsInput,
} from "./calculator-math";

/**
 * The public calculators (docs/product.md#calculators): their arithmetic (./calculator-math,
 * re-exported here) and the schemas of their fields. The arithmetic has a module of its own so
 * that the calculators page computes and draws without loading Zod.
 */
export * from "./calculator-math";

// ---------------------------------------------------------------------------------------------
// Form input: the same schemas check the query string on the server and the fields in the browser.

const money = (label: string, min_cents: number, max_cents: number) =>
  z
    .string({ error: `Enter ${label}.` })
    .trim()
    .min(1, `Enter ${label}.`)
    .transform((text, ctx) => {
      const cents = parseDollarsToCents(text);
      if (cents === null) {
        ctx.addIssue({ code: "custom", message: `Enter ${label} in dollars, like 1,250.00.` });
        return z.NEVER;
      }
      if (cents < min_cents || cents > max_cents) {
        ctx.addIssue({
          code: "custom",
          message: `Enter ${label} from ${formatCents(min_cents)} to ${formatCents(max_cents)}.`,
        });
        return z.NEVER;
      }
      return cents;
    });

const rate = (label: string, max_ppm: number) =>
  z
    .string({ error: `Enter ${label}.` })
    .trim()
    .min(1, `Enter ${label}.`)
    .transform((text, ctx) => {
      const ppm = parsePercentToPpm(text);
      if (ppm === null || ppm > max_ppm) {
        ctx.addIssue({ code: "custom", message: `Enter ${label} from 0 to ${formatPpmAsPercent(max_ppm)}, like 6.5.` });
        return z.NEVER;
      }
      return ppm;
    });

const wholeNumber = (label: string, min: number, max: number, rangeMessage: string) =>
  z
    .string({ error: `Enter ${label}.` })
    .trim()
    .min(1, `Enter ${label}.`)
    .transform((text, ctx) => {
      const value = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
      if (!(value >= min && value <= max)) {
        ctx.addIssue({ code: "custom", message: rangeMessage });
        return z.NEVER;
      }
      return value;
    });

/** Loan calculator fields as typed: `amount` (dollars), `apr` (percent), `term` (months). */
export const LoanFormSchema = z
  .object({
    amount: money("a loan amount", LOAN_AMOUNT_MIN_CENTS, LOAN_AMOUNT_MAX_CENTS),
    apr: rate("an interest rate (APR)", LOAN_APR_MAX_PPM),
    term: wholeNumber(
      "a term",
      1,
      LOAN_TERM_MONTHS_MAX,
      `Enter a term in whole months, from 1 to ${LOAN_TERM_MONTHS_MAX}.`,
    ),
  })
  .transform((v): LoanInput => ({ principal_cents: v.amount, apr_ppm: v.apr, term_months: v.term }))
  .superRefine((loan, ctx) => {
    if (!amortizes(loan)) {
      ctx.addIssue({
        code: "custom",
        path: ["term"],
        message: `At this rate, ${loan.term_months} monthly payments would go almost all to interest and could not repay the loan evenly. Choose a shorter term or a lower rate.`,
      });
    }
  });

/** Savings calculator fields as typed: `deposit`, `monthly` (dollars), `apy` (percent), `years`. */
export const SavingsFormSchema = z
  .object({
    deposit: money("an initial deposit", 0, SAVINGS_DEPOSIT_MAX_CENTS),
    monthly: money("a monthly deposit", 0, SAVINGS_MONTHLY_MAX_CENTS),
    apy: rate("a dividend rate (APY)", SAVINGS_APY_MAX_PPM),
    years: wholeNumber(
      "a number of years",
      1,
      SAVINGS_YEARS_MAX,
      `Enter a whole number of years, from 1 to ${SAVINGS_YEARS_MAX}.`,
    ),
  })
  .transform((v): SavingsInput => ({
    initial_deposit_cents: v.deposit,
    monthly_deposit_cents: v.monthly,
    apy_ppm: v.apy,
    years: v.years,
  }));

export type LoanFormValues = Record<keyof z.input<typeof LoanFormSchema>, string>;
export type SavingsFormValues = Record<keyof z.input<typeof SavingsFormSchema>, string>;

export const LOAN_FORM_DEFAULTS: LoanFormValues = { amount: "25,000", apr: "6.5", term: "60" };
export const SAVINGS_FORM_DEFAULTS: SavingsFormValues = { deposit: "5,000", monthly: "200", apy: "3.5", years: "10" };
