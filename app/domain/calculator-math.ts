/**
 * Loan and savings arithmetic for the public calculators (docs/product.md#calculators). Pure: no
 * I/O, no clock.
 *
 * Money is integer cents (docs/product.md#integer-cents). Rates are integer parts per million of a
 * year (6.5% = 65_000 ppm), so a rate typed with up to four decimals is held exactly. Each month's
 * interest is rounded to the cent, half up, with integer arithmetic; the level payment comes from
 * the annuity formula (a float power) and is rounded to the nearest cent. The last payment pays
 * off whatever balance is left, so it may differ from the others by a few cents and the principal
 * repaid always sums exactly to the amount borrowed.
 */

import { PPM_PER_PERCENT, percentToPpm } from "./percent";

const PPM_PER_UNIT = 1_000_000;
const MONTHS_PER_YEAR = 12;

export const LOAN_AMOUNT_MIN_CENTS = 100_00;
export const LOAN_AMOUNT_MAX_CENTS = 10_000_000_00;
export const LOAN_APR_MAX_PPM = 50 * PPM_PER_PERCENT;
export const LOAN_TERM_MONTHS_MAX = 480;
export const SAVINGS_DEPOSIT_MAX_CENTS = 10_000_000_00;
export const SAVINGS_MONTHLY_MAX_CENTS = 1_000_000_00;
export const SAVINGS_APY_MAX_PPM = 25 * PPM_PER_PERCENT;
export const SAVINGS_YEARS_MAX = 50;

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`loan-math invariant: ${message}`);
}

/** numerator / denominator rounded to the nearest integer, halves away from zero (both >= 0). */
function divideRoundHalfUp(numerator: number, denominator: number): number {
  assert(Number.isSafeInteger(numerator) && numerator >= 0, "numerator is a non-negative safe integer");
  assert(Number.isSafeInteger(denominator) && denominator > 0, "denominator is a positive safe integer");
  const quotient = Math.floor(numerator / denominator);
  const remainder = numerator - quotient * denominator;
  return remainder * 2 >= denominator ? quotient + 1 : quotient;
}

/** "6.5", "6.5%", " 0 ", "7." -> ppm (65_000, 0, 70_000); null for anything else. At most four decimals. */
export function parsePercentToPpm(input: string): number | null {
  // What a person types: spaces, a percent sign and a trailing point are forgiven.
  return percentToPpm(input.trim().replace(/\s*%$/, "").replace(/\.$/, ""));
}

/** 65_000 -> "6.5%"; 0 -> "0%". */
export function formatPpmAsPercent(rate_ppm: number): string {
  const whole = Math.floor(rate_ppm / PPM_PER_PERCENT);
  const fraction = String(rate_ppm % PPM_PER_PERCENT)
    .padStart(4, "0")
    .replace(/0+$/, "");
  return `${whole}${fraction ? `.${fraction}` : ""}%`;
}

// ---------------------------------------------------------------------------------------------
// Loan amortization

export interface LoanInput {
  principal_cents: number;
  apr_ppm: number;
  term_months: number;
}

export interface LoanPayment {
  /** 1-based. */
  month: number;
  payment_cents: number;
  principal_cents: number;
  interest_cents: number;
  balance_cents: number;
}

export interface LoanYear {
  /** 1-based. */
  year: number;
  principal_cents: number;
  interest_cents: number;
  balance_cents: number;
}

export interface LoanSchedule {
  /** The level monthly payment (every payment but possibly the last). */
  monthly_payment_cents: number;
  /** The last payment, which clears the balance exactly. */
  final_payment_cents: number;
  total_interest_cents: number;
  total_paid_cents: number;
  payments: LoanPayment[];
  years: LoanYear[];
}

/** The level monthly payment for a fully amortizing loan, rounded to the nearest cent. */
export function monthlyPaymentCents({ principal_cents, apr_ppm, term_months }: LoanInput): number {
  assertLoanInput({ principal_cents, apr_ppm, term_months });
  if (apr_ppm === 0) return divideRoundHalfUp(principal_cents, term_months);
  const monthly_rate = apr_ppm / PPM_PER_UNIT / MONTHS_PER_YEAR;
  const payment = (principal_cents * monthly_rate) / (1 - Math.pow(1 + monthly_rate, -term_months));
  return Math.round(payment);
}

/**
 * The whole amortization schedule. Each month: interest = balance x APR / 12, rounded half up to
 * the cent; principal = payment - interest; the last month repays the remaining balance, so the
 * principal repaid sums exactly to the amount borrowed. Throws for a loan whose payment would not
 * repay principal: check {@link amortizes} first.
 */
export function amortize(input: LoanInput): LoanSchedule {
  const schedule = buildSchedule(input);
  assert(schedule, "every payment repays some principal (check amortizes() first)");
  return schedule;
}

/**
 * Whether the loan can be shown as level monthly payments: every payment repays principal, and
 * the last one is not a balloon (at most 10% or $1 above the others). Cent rounding of the
 * payment grows with the balance at the loan's own rate, so a tiny loan at a high rate over
 * decades fails; ordinary loans are off by cents.
 */
export function amortizes(input: LoanInput): boolean {
  const schedule = buildSchedule(input);
  if (!schedule) return false;
  const balloon_cents = schedule.final_payment_cents - schedule.monthly_payment_cents;
  return balloon_cents <= Math.max(Math.floor(schedule.monthly_payment_cents / 10), 100);
}

function buildSchedule(input: LoanInput): LoanSchedule | null {
  const monthly_payment_cents = monthlyPaymentCents(input);
  const { principal_cents, apr_ppm, term_months } = input;
  const payments: LoanPayment[] = [];
  let balance_cents = principal_cents;
  let total_interest_cents = 0;
  for (let month = 1; month <= term_months && balance_cents > 0; month++) {
    const interest_cents = divideRoundHalfUp(balance_cents * apr_ppm, PPM_PER_UNIT * MONTHS_PER_YEAR);
    const last = month === term_months;
    // A payment rounded up can clear the balance a month early: never repay more than is owed.
    const principal_paid_cents = last ? balance_cents : Math.min(monthly_payment_cents - interest_cents, balance_cents);
    // Interest only falls as the balance does, so if the first month repays principal every
    // later month does too; a payment that only covers interest never would.
    if (principal_paid_cents <= 0) return null;
    balance_cents -= principal_paid_cents;
    total_interest_cents += interest_cents;
    payments.push({
      month,
      payment_cents: principal_paid_cents + interest_cents,
      principal_cents: principal_paid_cents,
      interest_cents,
      balance_cents,
    });
  }
  assert(balance_cents === 0, "the schedule repays the loan");
  assert(
    payments.reduce((sum, p) => sum + p.principal_cents, 0) === principal_cents,
    "principal repaid equals the amount borrowed",
  );
  const years: LoanYear[] = [];
  for (let start = 0; start < payments.length; start += MONTHS_PER_YEAR) {
    const slice = payments.slice(start, start + MONTHS_PER_YEAR);
    years.push({
      year: start / MONTHS_PER_YEAR + 1,
      principal_cents: slice.reduce((sum, p) => sum + p.principal_cents, 0),
      interest_cents: slice.reduce((sum, p) => sum + p.interest_cents, 0),
      balance_cents: slice[slice.length - 1]!.balance_cents,
    });
  }
  return {
    monthly_payment_cents,
    final_payment_cents: payments[payments.length - 1]!.payment_cents,
    total_interest_cents,
    total_paid_cents: principal_cents + total_interest_cents,
    payments,
    years,
  };
}

function assertLoanInput({ principal_cents, apr_ppm, term_months }: LoanInput) {
  assert(
    Number.isSafeInteger(principal_cents) && principal_cents > 0 && principal_cents <= LOAN_AMOUNT_MAX_CENTS,
    "principal within bounds",
  );
  assert(Number.isSafeInteger(apr_ppm) && apr_ppm >= 0 && apr_ppm <= LOAN_APR_MAX_PPM, "APR within bounds");
  assert(
    Number.isSafeInteger(term_months) && term_months >= 1 && term_months <= LOAN_TERM_MONTHS_MAX,
    "term within bounds",
  );
}

// ---------------------------------------------------------------------------------------------
// Savings growth

export interface SavingsInput {
  initial_deposit_cents: number;
  monthly_deposit_cents: number;
  apy_ppm: number;
  years: number;
}

export interface SavingsYear {
  /** 1-based. */
  year: number;
  deposits_cents: number;
  dividends_cents: number;
  /** Everything deposited so far, the initial deposit included. */
  total_deposits_cents: number;
  total_dividends_cents: number;
  balance_cents: number;
}

export interface SavingsGrowth {
  final_balance_cents: number;
  /** The initial deposit plus every monthly addition. */
  total_deposits_cents: number;
  total_dividends_cents: number;
  years: SavingsYear[];
}

/**
 * Savings with dividends compounded and credited monthly at the rate that yields the stated APY
 * over a year ((1 + APY)^(1/12) - 1), each credit rounded to the cent, and the monthly addition
 * made at the end of each month, after that month's dividend.
 */
export function growSavings(input: SavingsInput): SavingsGrowth {
  const { initial_deposit_cents, monthly_deposit_cents, apy_ppm, years } = input;
  assert(
    Number.isSafeInteger(initial_deposit_cents) &&
      initial_deposit_cents >= 0 &&
      initial_deposit_cents <= SAVINGS_DEPOSIT_MAX_CENTS,
    "initial deposit within bounds",
  );
  assert(
    Number.isSafeInteger(monthly_deposit_cents) &&
      monthly_deposit_cents >= 0 &&
      monthly_deposit_cents <= SAVINGS_MONTHLY_MAX_CENTS,
    "monthly deposit within bounds",
  );
  assert(Number.isSafeInteger(apy_ppm) && apy_ppm >= 0 && apy_ppm <= SAVINGS_APY_MAX_PPM, "APY within bounds");
  assert(Number.isSafeInteger(years) && years >= 1 && years <= SAVINGS_YEARS_MAX, "years within bounds");

  const monthly_rate = Math.pow(1 + apy_ppm / PPM_PER_UNIT, 1 / MONTHS_PER_YEAR) - 1;
  let balance_cents = initial_deposit_cents;
  let total_deposits_cents = initial_deposit_cents;
  let total_dividends_cents = 0;
  const rows: SavingsYear[] = [];
  for (let year = 1; year <= years; year++) {
    let deposits_cents = year === 1 ? initial_deposit_cents : 0;
    let dividends_cents = 0;
    for (let month = 0; month < MONTHS_PER_YEAR; month++) {
      const dividend_cents = Math.round(balance_cents * monthly_rate);
      balance_cents += dividend_cents + monthly_deposit_cents;
      dividends_cents += dividend_cents;
      deposits_cents += monthly_deposit_cents;
      total_deposits_cents += monthly_deposit_cents;
    }
    total_dividends_cents += dividends_cents;
    rows.push({ year, deposits_cents, dividends_cents, total_deposits_cents, total_dividends_cents, balance_cents });
  }
  assert(Number.isSafeInteger(balance_cents), "balance stays a safe integer");
  assert(balance_cents === total_deposits_cents + total_dividends_cents, "balance is deposits plus dividends");
  return { final_balance_cents: balance_cents, total_deposits_cents, total_dividends_cents, years: rows };
}
