/**
 * The year-end information return for dividends (docs/product.md#tax-forms): a credit union's
 * dividends on share accounts are reported as interest on Form 1099-INT, box 1 (IRS Instructions for
 * Forms 1099-INT and 1099-OID). Pure: no I/O, no clock.
 */

import type { TinType } from "./taxpayer-id";

/** A member is sent a 1099-INT when the year's dividends reach $10 (26 U.S.C. 6049; 26 CFR 1.6049-4). */
export const FORM_1099_INT_THRESHOLD_CENTS = 10_00;

/** The form a member is due for the year's dividends, or null below the threshold. */
export function dueFor1099Int(dividends_cents: number): boolean {
  if (!Number.isSafeInteger(dividends_cents)) throw new Error(`not a number of cents: ${dividends_cents}`);
  return dividends_cents >= FORM_1099_INT_THRESHOLD_CENTS;
}

/**
 * Whether the member is flagged for backup withholding (26 U.S.C. 3406(a)(1)(A)): no US taxpayer
 * number on file (none, or only a foreign document's). Mutual does not collect the W-9
 * certification yet, so a number on file is the whole test; nothing is withheld (docs/product.md).
 */
export function backupWithholdingFlag(tin_type: TinType | null): boolean {
  return tin_type !== "ssn" && tin_type !== "itin";
}

/** The tax year whose forms are due in January of `business_date`'s year: the year before it. */
export function taxYearDueOn(business_date: string): number {
  return Number(business_date.slice(0, 4)) - 1;
}

/** The months of a tax year as the dividend runs name them: "2026-01" to "2026-12". */
export function taxYearMonths(year: number): { first: string; last: string } {
  return { first: `${year}-01`, last: `${year}-12` };
}

/** A four-digit tax year from a path or query ("2026"), or null. */
export function parseTaxYear(text: string | null | undefined): number | null {
  if (!text || !/^\d{4}$/.test(text)) return null;
  const year = Number(text);
  return year >= 2000 && year <= 2999 ? year : null;
}
