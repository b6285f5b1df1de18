import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  CURRENCIES,
  currencyInputStep,
  findCurrency,
  formatCurrencyAmount,
  isValidUsdPerUnitRate,
  parseCurrencyAmount,
  searchCurrencies,
  usdCentsForForeignAmount,
} from "~/domain/currencies";

describe("currency list", () => {
  it("has unique ISO codes and ISO 4217 minor units", () => {
    const codes = CURRENCIES.map((currency) => currency.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.length).toBeGreaterThan(150);
    const expected: Record<string, number> = {
      USD: 2,
      EUR: 2,
      GBP: 2,
      JPY: 0,
      KRW: 0,
      CLP: 0,
      ISK: 0,
      XOF: 0,
      BHD: 3,
      KWD: 3,
      JOD: 3,
      TND: 3,
      IQD: 3,
      HUF: 2,
      IDR: 2,
    };
    for (const [code, minor_units] of Object.entries(expected))
      expect(findCurrency(code)?.minor_units, code).toBe(minor_units);
  });
  it("leaves out funds, metals, testing codes and withdrawn currencies", () => {
    for (const code of ["XAU", "XDR", "XTS", "XXX", "USN", "CLF", "HRK", "BGN", "ANG", "ZWL", "VEF"])
      expect(findCurrency(code), code).toBeUndefined();
  });
  it("finds and searches case-insensitively", () => {
    expect(findCurrency("eur")?.name).toBe("Euro");
    expect(searchCurrencies("usd")[0]?.code).toBe("USD");
    expect(searchCurrencies("dollar").map((currency) => currency.code)).toEqual(
      expect.arrayContaining(["USD", "CAD", "AUD"]),
    );
    expect(searchCurrencies("bolivar").map((currency) => currency.code)).toEqual(["VED", "VES"]);
    expect(searchCurrencies("")).toHaveLength(CURRENCIES.length);
  });
  it("gives the amount input's step in the currency's minor units", () => {
    expect(currencyInputStep("JPY")).toBe("1");
    expect(currencyInputStep("USD")).toBe("0.01");
    expect(currencyInputStep("BHD")).toBe("0.001");
    expect(() => currencyInputStep("XXX")).toThrow();
  });
});

describe("parseCurrencyAmount and formatCurrencyAmount", () => {
  it("reads amounts in the currency's minor units", () => {
    expect(parseCurrencyAmount("1,234.56", "EUR")).toBe(123456);
    expect(parseCurrencyAmount("1234.5", "eur")).toBe(123450);
    expect(parseCurrencyAmount(" 1000 ", "JPY")).toBe(1000);
    expect(parseCurrencyAmount("1.234", "BHD")).toBe(1234);
    expect(parseCurrencyAmount("0", "USD")).toBe(0);
  });
  it("refuses more decimals than the currency has, signs, exponents, words and unknown currencies", () => {
    expect(parseCurrencyAmount("1000.5", "JPY")).toBeNull();
    expect(parseCurrencyAmount("1.001", "EUR")).toBeNull();
    expect(parseCurrencyAmount("1.2345", "BHD")).toBeNull();
    for (const bad of ["", "-1", "+1", "1e3", "1.", ".5", "abc", "1.2.3", "$1", "Infinity", "12345678901234"])
      expect(parseCurrencyAmount(bad, "EUR"), bad).toBeNull();
    expect(parseCurrencyAmount("1", "XXX")).toBeNull();
  });
  it("shows the code and the currency's decimals", () => {
    expect(formatCurrencyAmount(123456, "EUR")).toBe("EUR 1,234.56");
    expect(formatCurrencyAmount(1000, "JPY")).toBe("JPY 1,000");
    expect(formatCurrencyAmount(1, "BHD")).toBe("BHD 0.001");
    expect(formatCurrencyAmount(-5, "USD")).toBe("-USD 0.05");
    expect(formatCurrencyAmount(0, "KWD")).toBe("KWD 0.000");
    expect(formatCurrencyAmount(900719925474099312n, "USD")).toBe("USD 9,007,199,254,740,993.12");
    expect(() => formatCurrencyAmount(1.5, "USD")).toThrow(RangeError);
    expect(() => formatCurrencyAmount(1, "XXX")).toThrow();
  });
  it("round-trips every amount in every currency", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.integer({ min: 0, max: 10 ** 12 }),
        (currency, amount_minor_units) => {
          const text = formatCurrencyAmount(amount_minor_units, currency.code).slice(currency.code.length + 1);
          expect(parseCurrencyAmount(text, currency.code)).toBe(amount_minor_units);
        },
      ),
    );
  });
});

describe("usdCentsForForeignAmount", () => {
  it("converts exactly, rounding half up to the cent", () => {
    expect(usdCentsForForeignAmount(10_000, 2, "1.08375")).toBe(10_838); // EUR 100.00 -> $108.375 -> $108.38
    expect(usdCentsForForeignAmount(1_000, 0, "0.0067")).toBe(670); // JPY 1,000 -> $6.70
    expect(usdCentsForForeignAmount(1_000, 3, "2.65957")).toBe(266); // BHD 1.000 -> $2.65957 -> $2.66
    expect(usdCentsForForeignAmount(1, 2, "0.5")).toBe(1); // half a cent rounds up
    expect(usdCentsForForeignAmount(1, 2, "0.49999")).toBe(0);
    expect(usdCentsForForeignAmount(12_345, 2, "1")).toBe(12_345);
    expect(usdCentsForForeignAmount(0, 2, "1.2")).toBe(0);
    expect(usdCentsForForeignAmount(10n ** 12n, 2, "1.1")).toBe(1.1e12);
  });
  it("gets right what floating point gets wrong", () => {
    // 1.00 at 1.005 is exactly 100.5 cents; in floats 1.005 * 100 is 100.49999999999999.
    expect(Math.round(1.005 * 100)).toBe(100);
    expect(usdCentsForForeignAmount(100, 2, "1.005")).toBe(101);
  });
  it("refuses what it cannot convert exactly", () => {
    expect(() => usdCentsForForeignAmount(-1, 2, "1")).toThrow(RangeError);
    expect(() => usdCentsForForeignAmount(1.5, 2, "1")).toThrow(RangeError);
    expect(() => usdCentsForForeignAmount(1, 5, "1")).toThrow(RangeError);
    expect(() => usdCentsForForeignAmount(1, -1, "1")).toThrow(RangeError);
    for (const rate of ["", "0", "0.000", "-1", "1e3", "1,5", ".5", "1.", "abc", " 1"]) {
      expect(() => usdCentsForForeignAmount(1, 2, rate), rate).toThrow(RangeError);
      expect(isValidUsdPerUnitRate(rate), rate).toBe(false);
    }
    expect(() => usdCentsForForeignAmount(Number.MAX_SAFE_INTEGER, 0, "1000")).toThrow(RangeError);
  });

  /** A rate as a decimal string from an integer numerator and a number of decimals. */
  const rateText = (numerator: bigint, decimals: number) => {
    const digits = numerator.toString().padStart(decimals + 1, "0");
    return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
  };
  // Up to 10^9 minor units at rates up to 100,000 with up to 9 decimals: stays within safe cents
  // except at the very top with no decimals, which `fitsSafely` leaves out.
  const amount = fc.bigInt({ min: 0n, max: 10n ** 9n });
  const exponent = fc.integer({ min: 0, max: 4 });
  const rate = fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 5n }), fc.integer({ min: 0, max: 9 }));
  const fitsSafely = (amount_minor_units: bigint, minor_units_exponent: number, numerator: bigint, decimals: number) =>
    (amount_minor_units * numerator * 100n) / 10n ** BigInt(minor_units_exponent + decimals) <
    BigInt(Number.MAX_SAFE_INTEGER);

  it("is exact: within half a cent of the true value, ties rounded up", () => {
    fc.assert(
      fc.property(amount, exponent, rate, (amount_minor_units, minor_units_exponent, [numerator, decimals]) => {
        fc.pre(fitsSafely(amount_minor_units, minor_units_exponent, numerator, decimals));
        const cents = BigInt(
          usdCentsForForeignAmount(amount_minor_units, minor_units_exponent, rateText(numerator, decimals)),
        );
        // True value: amount * numerator * 100 / 10^(exponent + decimals); compare without dividing.
        const exact_numerator = amount_minor_units * numerator * 100n;
        const denominator = 10n ** BigInt(minor_units_exponent + decimals);
        const error_doubled = 2n * (cents * denominator - exact_numerator);
        // Half up: the result is above the true value by at most half a cent (a tie), below it by less.
        expect(error_doubled > -denominator && error_doubled <= denominator).toBe(true);
      }),
    );
  });
  it("is monotonic in the amount and in the rate", () => {
    fc.assert(
      fc.property(
        amount,
        amount,
        exponent,
        rate,
        fc.bigInt({ min: 0n, max: 10n ** 3n }),
        (a, b, minor_units_exponent, [numerator, decimals], extra) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          fc.pre(fitsSafely(high, minor_units_exponent, numerator + extra, decimals));
          const rate_low = rateText(numerator, decimals);
          const rate_high = rateText(numerator + extra, decimals);
          expect(usdCentsForForeignAmount(low, minor_units_exponent, rate_low)).toBeLessThanOrEqual(
            usdCentsForForeignAmount(high, minor_units_exponent, rate_low),
          );
          expect(usdCentsForForeignAmount(low, minor_units_exponent, rate_low)).toBeLessThanOrEqual(
            usdCentsForForeignAmount(low, minor_units_exponent, rate_high),
          );
        },
      ),
    );
  });
  it("ignores trailing zeros of the rate and is the identity for USD at 1", () => {
    fc.assert(
      fc.property(amount, exponent, rate, (amount_minor_units, minor_units_exponent, [numerator, decimals]) => {
        fc.pre(fitsSafely(amount_minor_units, minor_units_exponent, numerator, decimals));
        const text = rateText(numerator, decimals);
        const padded = decimals === 0 ? `${text}.000` : `${text}000`;
        expect(usdCentsForForeignAmount(amount_minor_units, minor_units_exponent, padded)).toBe(
          usdCentsForForeignAmount(amount_minor_units, minor_units_exponent, text),
        );
        expect(usdCentsForForeignAmount(amount_minor_units, 2, "1.00")).toBe(Number(amount_minor_units));
      }),
    );
  });
});
