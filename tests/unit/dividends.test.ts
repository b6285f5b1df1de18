import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseInstitution } from "~/config/institution.server";
import { demoInstitution } from "~/config/demo-institution";
import {
  apyEarnedHundredths,
  dailyBalanceSum,
  daysInMonth,
  dividendCents,
  formatApy,
  formatHundredthsPercent,
  monthDividend,
  parseApyPercent,
} from "~/domain/dividends";

const APY_3_50 = 35_000; // 3.50% in parts per million

/**
 * The exact answer's rounding, checked without computing the irrational factor: q is the dividend
 * rounded half up iff q - 1/2 <= (sum / days) x ((1 + r)^(days/365) - 1) < q + 1/2, r = ppm / 10^6.
 * Moving terms around, with A = 10^6 + ppm and B = 10^6, and raising both sides to the 365th power:
 *   B^days x (2 sum + (2q - 1) days)^365 <= A^days x (2 sum)^365 < B^days x (2 sum + (2q + 1) days)^365.
 */
function isExactRounding(sum: bigint, days: number, ppm: number, q: number): boolean {
  const A = 1_000_000n + BigInt(ppm);
  const B = 1_000_000n;
  const d = BigInt(days);
  const middle = A ** d * (2n * sum) ** 365n;
  const below = B ** d * (2n * sum + (2n * BigInt(q) - 1n) * d) ** 365n;
  const above = B ** d * (2n * sum + (2n * BigInt(q) + 1n) * d) ** 365n;
  return below <= middle && middle < above;
}

describe("the APY in the profile", () => {
  it("reads a percent with up to four decimals, exactly, up to 25%", () => {
    expect(parseApyPercent("3.50")).toBe(35_000);
    expect(parseApyPercent("0")).toBe(0);
    expect(parseApyPercent("0.0001")).toBe(1);
    expect(parseApyPercent("25")).toBe(250_000);
    for (const bad of ["25.0001", "350", "-1", "3,5", "3.12345", "abc", ""])
      expect(parseApyPercent(bad), bad).toBeNull();
  });
  it("shows it with two decimals at least, as disclosures do", () => {
    expect(formatApy(35_000)).toBe("3.50%");
    expect(formatApy(0)).toBe("0.00%");
    expect(formatApy(12_345)).toBe("1.2345%");
    expect(formatApy(10_010)).toBe("1.001%");
    expect(formatApy(250_000)).toBe("25.00%");
  });
});

describe("average daily balance", () => {
  it("counts each day's change from its day to the month's last", () => {
    // November 2026 has 30 days. $1,000.00 all month, $3,000.00 in on the 16th: days 1-15 end at
    // $1,000.00 and days 16-30 at $4,000.00, so the sum is 15 x 100,000 + 15 x 400,000 cents.
    const sum = dailyBalanceSum("2026-11", 100_000, [{ effective_date: "2026-11-16", net_cents: 300_000 }]);
    expect(sum).toBe(7_500_000n);
    // Money in on the last day counts for that one day; on the first, for all 31 of October.
    expect(dailyBalanceSum("2026-10", 0, [{ effective_date: "2026-10-31", net_cents: 3_100 }])).toBe(3_100n);
    expect(dailyBalanceSum("2026-10", 0, [{ effective_date: "2026-10-01", net_cents: 100 }])).toBe(3_100n);
  });
  it("knows the length of each month, February in a leap year too", () => {
    expect(daysInMonth("2026-02")).toBe(28);
    expect(daysInMonth("2028-02")).toBe(29);
    expect(daysInMonth("2026-04")).toBe(30);
    expect(daysInMonth("2026-12")).toBe(31);
  });
  it("refuses a change outside the month", () => {
    expect(() => dailyBalanceSum("2026-11", 0, [{ effective_date: "2026-12-01", net_cents: 1 }])).toThrow(/outside/);
  });
});

describe("the month's dividend", () => {
  it("matches worked examples computed by hand", () => {
    // $10,000.00 all of October 2026 (31 days) at 3.50% APY:
    // 1.035^(31/365) - 1 = 0.0029260375243349...; x 1,000,000 cents = 2,926.0375 cents -> $29.26.
    expect(monthDividend("2026-10", 1_000_000, [], APY_3_50)).toEqual({
      days: 31,
      average_daily_balance_cents: 1_000_000,
      dividend_cents: 2_926,
    });
    // November 2026, $1,000.00 then $3,000.00 in on the 16th: average daily balance $2,500.00.
    // 1.035^(30/365) - 1 = 0.0028315157141576...; x 250,000 cents = 707.8789 cents -> $7.08.
    expect(monthDividend("2026-11", 100_000, [{ effective_date: "2026-11-16", net_cents: 300_000 }], APY_3_50)).toEqual(
      {
        days: 30,
        average_daily_balance_cents: 250_000,
        dividend_cents: 708,
      },
    );
    // $1.00 all of October: 0.2926 cents rounds to nothing; $2.00: 0.5852 rounds up to 1 cent.
    expect(monthDividend("2026-10", 100, [], APY_3_50).dividend_cents).toBe(0);
    expect(monthDividend("2026-10", 200, [], APY_3_50).dividend_cents).toBe(1);
    // February 2026, 28 days: 1.035^(28/365) - 1 = 0.0026424988...; $10,000.00 earns 2,642.4988 -> $26.42.
    expect(monthDividend("2026-02", 1_000_000, [], APY_3_50).dividend_cents).toBe(2_642);
  });
  it("pays nothing on a zero or negative average balance, or at a zero rate", () => {
    expect(dividendCents({ balance_day_sum_cents: 0n, days: 30, apy_ppm: APY_3_50 })).toBe(0);
    expect(dividendCents({ balance_day_sum_cents: -3_000_000n, days: 30, apy_ppm: APY_3_50 })).toBe(0);
    expect(dividendCents({ balance_day_sum_cents: 30_000_000n, days: 30, apy_ppm: 0 })).toBe(0);
    // Overdrawn half the month and in credit the other half: the average decides (here below zero).
    expect(
      monthDividend("2026-11", -50_000, [{ effective_date: "2026-11-16", net_cents: 90_000 }], APY_3_50).dividend_cents,
    ).toBe(0);
  });
  it("has an exact check that tells the right cent from its neighbours", () => {
    expect(isExactRounding(31_000_000n, 31, APY_3_50, 2_926)).toBe(true);
    expect(isExactRounding(31_000_000n, 31, APY_3_50, 2_925)).toBe(false);
    expect(isExactRounding(31_000_000n, 31, APY_3_50, 2_927)).toBe(false);
  });
  it("is the exact answer rounded half up, for any balance up to $10 million, any month length and rate", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.constantFrom(28, 29, 30, 31),
        fc.integer({ min: 1, max: 250_000 }),
        (balance_cents, days, apy_ppm) => {
          const sum = BigInt(balance_cents) * BigInt(days);
          const q = dividendCents({ balance_day_sum_cents: sum, days, apy_ppm });
          expect(isExactRounding(sum, days, apy_ppm, q)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
  it("is exact for uneven daily balances too (sums that are not a multiple of the days)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 31_000_000_000n }), fc.constantFrom(28, 30, 31), (sum, days) => {
        const q = dividendCents({ balance_day_sum_cents: sum, days, apy_ppm: APY_3_50 });
        expect(isExactRounding(sum, days, APY_3_50, q)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
  it("never falls when the balance rises", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom(28, 29, 30, 31),
        (balance, more, days) => {
          const at = (b: number) =>
            dividendCents({ balance_day_sum_cents: BigInt(b) * BigInt(days), days, apy_ppm: APY_3_50 });
          expect(at(balance + more)).toBeGreaterThanOrEqual(at(balance));
        },
      ),
      { numRuns: 200 },
    );
  });
  it("twelve monthly credits on a constant balance compound to the APY (within the twelve roundings)", () => {
    const months = [
      "2025-01",
      "2025-02",
      "2025-03",
      "2025-04",
      "2025-05",
      "2025-06",
      "2025-07",
      "2025-08",
      "2025-09",
      "2025-10",
      "2025-11",
      "2025-12",
    ];
    const yearOf = (deposit_cents: number, apy_ppm: number) => {
      let balance = deposit_cents;
      for (const month of months) balance += monthDividend(month, balance, [], apy_ppm).dividend_cents;
      return balance - deposit_cents;
    };
    // Worked: $10,000.00 at 3.50% for 2025 (365 days) earns $349.99 (29.26 + 26.50 + 29.42 + 28.56
    // + 29.59 + 28.72 + 29.76 + 29.85 + 28.97 + 30.02 + 29.14 + 30.20), against $350.00 exactly.
    expect(yearOf(1_000_000, APY_3_50)).toBe(34_999);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (deposit, apy_ppm) => {
          const exact_times_1e6 = deposit * apy_ppm; // deposit x APY, in millionths of a cent
          const earned = yearOf(deposit, apy_ppm);
          // Each credit is rounded once (at most half a cent either way), and that half cent then
          // earns for the rest of the year (at most 10% here): 12 x 0.5 x 1.1 < 7 cents.
          expect(Math.abs(earned * 1_000_000 - exact_times_1e6)).toBeLessThanOrEqual(7 * 1_000_000);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("the annual percentage yield earned, as the statement shows it", () => {
  it("matches worked examples", () => {
    // $29.26 on $10,000.00 over 31 days: 1.002926^(365/31) - 1 = 3.49995% -> 3.50%.
    expect(apyEarnedHundredths(2_926, 1_000_000, 31)).toBe(350);
    // $6.98 on $2,387.10 over 31 days: (1 + 698/238,710)^(365/31) - 1 = 3.4976% -> 3.50%.
    expect(apyEarnedHundredths(698, 238_710, 31)).toBe(350);
    // One cent on $2.00: 1.005^(365/31) - 1 = 6.048% -> 6.05% (the cent's rounding shows on a tiny balance).
    expect(apyEarnedHundredths(1, 200, 31)).toBe(605);
    expect(apyEarnedHundredths(0, 100, 30)).toBe(0);
    expect(apyEarnedHundredths(0, 0, 30)).toBeNull();
    expect(apyEarnedHundredths(0, -500, 30)).toBeNull();
    expect(formatHundredthsPercent(350)).toBe("3.50%");
    expect(formatHundredthsPercent(5)).toBe("0.05%");
  });
  it("is the stated APY, to the hundredth, on any balance from $2,000 to $10 million", () => {
    // Below that the half cent of rounding moves it by 0.005% or more (a scan finds $1,326.37 the
    // largest balance that shows 3.49% or 3.51%); at $2,000 over 28 days it is at most 0.0033%.
    fc.assert(
      fc.property(
        fc.integer({ min: 200_000, max: 1_000_000_000 }),
        fc.constantFrom(28, 29, 30, 31),
        (balance, days) => {
          const dividend = dividendCents({
            balance_day_sum_cents: BigInt(balance) * BigInt(days),
            days,
            apy_ppm: APY_3_50,
          });
          expect(apyEarnedHundredths(dividend, balance, days)).toBe(350);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("institution profile: dividends", () => {
  it("the demo pays savings 3.50% APY and checking nothing, and its savings page quotes that rate", () => {
    const profile = parseInstitution(demoInstitution, "demo");
    expect(profile.dividends).toEqual({ savings_apy_percent: "3.50", checking_apy_percent: "0" });
    const savings = profile.products.find((p) => p.account_type === "savings")!;
    expect(savings.rate_label).toBe("3.50% APY");
  });
  it("pays nothing when the profile names no rate", () => {
    const { dividends: _, ...without } = demoInstitution;
    const products = demoInstitution.products.map(({ account_type: _type, ...p }) => p);
    expect(parseInstitution({ ...without, products }, "x").dividends).toEqual({
      savings_apy_percent: "0",
      checking_apy_percent: "0",
    });
  });
  it("refuses a rate that is not an exact percent from 0 to 25, naming the field", () => {
    for (const bad of ["3.5%%", "350", "3.12345", "-1", "abc"]) {
      expect(() => parseInstitution({ ...demoInstitution, dividends: { savings_apy_percent: bad } }, "x"), bad).toThrow(
        /dividends.savings_apy_percent: must be a percent/,
      );
    }
  });
  it("refuses a savings page that quotes another APY than the one savings accounts are paid", () => {
    expect(() => parseInstitution({ ...demoInstitution, dividends: { savings_apy_percent: "3.25" } }, "x")).toThrow(
      /products.1.rate_label: quotes 3.50% APY but savings accounts are paid 3.25% APY/,
    );
    // The same figure written another way ("3.5") is the same rate.
    expect(
      parseInstitution({ ...demoInstitution, dividends: { savings_apy_percent: "3.5" } }, "x").dividends
        .savings_apy_percent,
    ).toBe("3.5");
  });
});
