/**
 * Percents as integer parts per million (6.5% = 65_000 ppm), so a rate with up to four decimals is
 * held exactly: the dividend rates of the institution's profile and the calculators' rates.
 */

export const PPM_PER_PERCENT = 10_000;

/**
 * "6.5" -> 65_000, "0.0001" -> 1, read digit by digit so it is exact: up to three whole digits
 * and one to four decimals; null for anything else (a sign, a comma, an exponent, a "%").
 */
export function percentToPpm(text: string): number | null {
  const match = /^(\d{1,3})(?:\.(\d{1,4}))?$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * PPM_PER_PERCENT + Number((match[2] ?? "").padEnd(4, "0"));
}
