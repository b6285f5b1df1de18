/**
 * Money is integer cents everywhere (docs/product.md#integer-cents). These helpers are the only
 * place cents become text and text becomes cents.
 */
/** `123456` -> `$1,234.56`; `-5` -> `-$0.05`. */
export function formatCents(amount_cents: number | bigint): string {
  const cents = typeof amount_cents === "bigint" ? amount_cents : BigInt(amount_cents);
  if (typeof amount_cents === "number" && !Number.isSafeInteger(amount_cents)) {
    throw new RangeError(`formatCents needs whole cents, got ${amount_cents}`);
  }
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const dollars = abs / 100n;
  const rest = abs % 100n;
  // Grouped by hand on the bigint's digits: converting to a float first would lose cents past 2^53.
  const grouped = dollars.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const text = `$${grouped}.${rest.toString().padStart(2, "0")}`;
  return negative ? `-${text}` : text;
}

/**
 * Cents as a plain decimal for files and form fields (CSV, OFX, an amount field's value): no
 * dollar sign, no grouping, two decimals, a leading minus when negative. `123456` -> `1234.56`;
 * `-5` -> `-0.05`. On the bigint's digits, never through a float. `parseDollarsToCents` reads a
 * non-negative one back.
 */
export function centsAsDecimal(amount_cents: number | bigint): string {
  if (typeof amount_cents === "number" && !Number.isSafeInteger(amount_cents)) {
    throw new RangeError(`centsAsDecimal needs whole cents, got ${amount_cents}`);
  }
  const cents = BigInt(amount_cents);
  const digits = (cents < 0n ? -cents : cents).toString().padStart(3, "0");
  return `${cents < 0n ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * Parses what a person typed as dollars ("1,234.5", "$10", "0.01") into cents. Returns null for
 * anything that is not a plain non-negative amount with at most two decimals: a fractional cent
 * is refused, never rounded.
 */
export function parseDollarsToCents(input: string): number | null {
  const text = input.trim().replace(/^\$/, "").replace(/,/g, "");
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return null;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return Number.isSafeInteger(cents) ? cents : null;
}
