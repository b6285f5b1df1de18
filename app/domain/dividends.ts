import { monthBounds, type StatementMonth } from "./statements";
import { percentToPpm } from "./percent";

/**
 * Dividends on members' deposit accounts (docs/product.md#dividends). Pure: no I/O, no clock.
 *
 * The method is the average daily balance over the dividend period (the calendar month): the
 * balance at the end of each day of the month, added up and divided by the days in the month.
 * The rate is the account type's annual percentage yield (APY) from the institution profile,
 * compounded monthly for a 365-day year, as the Truth in Savings formula
 * APY = (1 + dividend / balance)^(365 / days) - 1 requires: a month of `days` days earns
 * balance x ((1 + APY)^(days / 365) - 1). Twelve months of a 365-day year compound to exactly the
 * APY (before the rounding of each credit to the cent).
 *
 * Exact arithmetic: money stays integer cents and the rate integer parts per million (3.50% =
 * 35_000 ppm, as the calculators hold it). The factor (1 + APY)^(days / 365) is irrational, so it
 * is bracketed between two integers over 10^digits (an integer 365th root with BigInt), and the
 * dividend is rounded half up to the cent from both ends of the bracket: when they agree (for 30
 * digits they always do in practice) that is the exact answer's rounding; when they do not, the
 * bracket is narrowed with more digits. No float touches the result.
 */

export const DAYS_PER_YEAR = 365;
const PPM_PER_UNIT = 1_000_000n;
/** 25% APY: far above any deposit rate; a typo such as "350" is refused when the profile loads. */
export const DIVIDEND_APY_MAX_PPM = 250_000;
const FACTOR_DIGITS_FIRST = 30;
const FACTOR_DIGITS_MAX = 240;

/** "3.50" (a percent, at most four decimals) -> 35_000 ppm, exactly; null when not such a number or above the cap. */
export function parseApyPercent(text: string): number | null {
  const ppm = percentToPpm(text.trim());
  return ppm === null || ppm > DIVIDEND_APY_MAX_PPM ? null : ppm;
}

/** 35_000 -> "3.50%": an APY as the Truth in Savings disclosures show it, with two decimals at least. */
export function formatApy(apy_ppm: number): string {
  const whole = Math.floor(apy_ppm / 10_000);
  const fraction = String(apy_ppm % 10_000)
    .padStart(4, "0")
    .replace(/0{1,2}$/, "");
  return `${whole}.${fraction}%`;
}

/** The days of a month: 28 to 31. */
export function daysInMonth(month: StatementMonth): number {
  return Number(monthBounds(month).end.slice(8, 10));
}

/** One day's net change of an account's balance (every posted entry dated that day, summed). */
export interface DailyChange {
  /** YYYY-MM-DD, within the period. */
  effective_date: string;
  net_cents: number;
}

/**
 * The sum of the end-of-day balances over the month (cents x days; divided by the days it is the
 * average daily balance): the balance when the month began, and each day's net change counted
 * from its own day to the month's last. A BigInt, so no balance and month can overflow it.
 */
export function dailyBalanceSum(month: StatementMonth, opening_cents: number, changes: readonly DailyChange[]): bigint {
  assertCents(opening_cents, "opening balance");
  const { start, end } = monthBounds(month);
  const days = daysInMonth(month);
  let sum = BigInt(opening_cents) * BigInt(days);
  for (const change of changes) {
    assertCents(change.net_cents, "daily change");
    if (change.effective_date < start || change.effective_date > end)
      throw new Error(`dividends invariant: ${change.effective_date} is outside ${month}`);
    const day = Number(change.effective_date.slice(8, 10));
    // A change on day `day` is in the closing balance of that day and of every later day.
    sum += BigInt(change.net_cents) * BigInt(days - day + 1);
  }
  return sum;
}

export interface DividendInput {
  /** Sum of the end-of-day balances over the period (see dailyBalanceSum). */
  balance_day_sum_cents: bigint;
  days: number;
  apy_ppm: number;
}

/**
 * The period's dividend in cents: average daily balance x ((1 + APY)^(days / 365) - 1), rounded
 * half up to the cent once. A zero or negative average balance, or a zero rate, earns nothing.
 */
export function dividendCents({ balance_day_sum_cents: sum, days, apy_ppm }: DividendInput): number {
  if (!Number.isSafeInteger(days) || days < 1 || days > 31)
    throw new Error("dividends invariant: a period is 1 to 31 days");
  assertApy(apy_ppm);
  if (sum <= 0n || apy_ppm === 0) return 0;
  const divisor = BigInt(days);
  for (let digits = FACTOR_DIGITS_FIRST; digits <= FACTOR_DIGITS_MAX; digits *= 2) {
    const scale = 10n ** BigInt(digits);
    // scale x (factor - 1) lies in [low, low + 1).
    const low = growthScaled(apy_ppm, days, digits) - scale;
    const fromBelow = roundHalfUp(sum * low, divisor * scale);
    const fromAbove = roundHalfUp(sum * (low + 1n), divisor * scale);
    if (fromBelow === fromAbove) return Number(fromBelow);
  }
  throw new Error("dividends invariant: the rate factor did not settle the cent");
}

/**
 * What the month earns for the account: the average daily balance (rounded to the cent, for
 * the member's statement) and the dividend.
 */
export function monthDividend(
  month: StatementMonth,
  opening_cents: number,
  changes: readonly DailyChange[],
  apy_ppm: number,
) {
  const days = daysInMonth(month);
  const balance_day_sum_cents = dailyBalanceSum(month, opening_cents, changes);
  return {
    days,
    average_daily_balance_cents: Number(roundHalfUp(balance_day_sum_cents, BigInt(days))),
    dividend_cents: dividendCents({ balance_day_sum_cents, days, apy_ppm }),
  };
}

/**
 * The annual percentage yield earned that a statement shows (Truth in Savings):
 * 100 x ((1 + dividend / average daily balance)^(365 / days) - 1), in hundredths of a percent
 * (350 = 3.50%), rounded half up. Exact: the candidate from a float is checked, and moved by one
 * if need be, by comparing integer powers (no float decides it). Null without a positive balance.
 */
export function apyEarnedHundredths(
  dividend_cents: number,
  average_daily_balance_cents: number,
  days: number,
): number | null {
  if (
    !Number.isSafeInteger(dividend_cents) ||
    dividend_cents < 0 ||
    !Number.isSafeInteger(average_daily_balance_cents) ||
    days < 1 ||
    days > 31
  ) {
    throw new Error("dividends invariant: bad figures for the APY earned");
  }
  if (average_daily_balance_cents <= 0) return null;
  const balance = BigInt(average_daily_balance_cents);
  const grown = (balance + BigInt(dividend_cents)) ** BigInt(DAYS_PER_YEAR);
  const base = balance ** BigInt(DAYS_PER_YEAR);
  // k is right when (1 + (2k - 1)/20000)^days <= grown / base < (1 + (2k + 1)/20000)^days.
  const below = (k: number) => base * (20_000n + BigInt(2 * k - 1)) ** BigInt(days) <= grown * 20_000n ** BigInt(days);
  let k = Math.max(
    0,
    Math.round((Math.pow(1 + dividend_cents / average_daily_balance_cents, DAYS_PER_YEAR / days) - 1) * 10_000),
  );
  while (k > 0 && !below(k)) k--;
  while (below(k + 1)) k++;
  return k;
}

/** 350 -> "3.50%". */
export function formatHundredthsPercent(hundredths: number): string {
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, "0")}%`;
}

const growthCache = new Map<string, bigint>();

/**
 * floor(10^digits x (1 + APY)^(days / 365)): the largest X with
 * X^365 x 10^(6 days) <= 10^(365 digits) x (10^6 + APY ppm)^days, found by integer Newton steps
 * from above (a float gives the start, raised so it is above the root).
 */
export function growthScaled(apy_ppm: number, days: number, digits: number): bigint {
  const key = `${apy_ppm}:${days}:${digits}`;
  const cached = growthCache.get(key);
  if (cached !== undefined) return cached;
  const k = BigInt(DAYS_PER_YEAR);
  const base = PPM_PER_UNIT + BigInt(apy_ppm);
  const target = (10n ** (BigInt(digits) * k) * base ** BigInt(days)) / PPM_PER_UNIT ** BigInt(days);
  const estimate = Math.pow(1 + apy_ppm / 1e6, days / DAYS_PER_YEAR);
  // 1e15 significant units from the float, plus a margin far above its error, then Newton down.
  let x = (BigInt(Math.ceil(estimate * 1e15)) + 1000n) * 10n ** BigInt(digits - 15);
  for (;;) {
    const next = ((k - 1n) * x + target / x ** (k - 1n)) / k;
    if (next >= x) break;
    x = next;
  }
  if (!(x ** k <= target && (x + 1n) ** k > target)) throw new Error("dividends invariant: integer root out of bounds");
  growthCache.set(key, x);
  return x;
}

/** numerator / denominator rounded half up (both non-negative, denominator above zero). */
function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

function assertCents(value: number, what: string) {
  if (!Number.isSafeInteger(value)) throw new Error(`dividends invariant: ${what} must be whole cents`);
}

function assertApy(apy_ppm: number) {
  if (!Number.isSafeInteger(apy_ppm) || apy_ppm < 0 || apy_ppm > DIVIDEND_APY_MAX_PPM)
    throw new Error("dividends invariant: APY out of range");
}
