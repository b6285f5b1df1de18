import { institution } from "~/config/institution.server";
import type { LoanProductProfile } from "~/config/institution";
import { parseLoanRatePercent, type LoanProductTerms } from "~/domain/loans/products";

/**
 * The loan products of the institution profile as the rules take them (docs/product.md#loans):
 * rates in parts per million. A profile without loan products offers no application.
 */
export function loanProductTerms(profile: LoanProductProfile): LoanProductTerms {
  return {
    slug: profile.slug,
    kind: profile.kind,
    name: profile.name,
    rate_min_ppm: parseLoanRatePercent(profile.rate_min_percent)!,
    rate_max_ppm: parseLoanRatePercent(profile.rate_max_percent)!,
    term_months_min: profile.term_months_min,
    term_months_max: profile.term_months_max,
    amount_min_cents: profile.amount_min_cents,
    amount_max_cents: profile.amount_max_cents,
    payment_frequency: profile.payment_frequency,
    grace_days: profile.grace_days,
    late_fee_cents: profile.late_fee_cents,
  };
}

export function loanProducts(): LoanProductTerms[] {
  return institution().loan_products.map(loanProductTerms);
}

export function loanProduct(slug: string): LoanProductTerms | null {
  return loanProducts().find((p) => p.slug === slug) ?? null;
}

/** The loan product a public product page applies for, when one names it. */
export function loanProductForPage(page_slug: string): LoanProductTerms | null {
  const found = institution().loan_products.find((p) => p.product_page === page_slug);
  return found ? loanProductTerms(found) : null;
}

/**
 * Loans are not offered yet (docs/product.md#planned-loans): applying, deciding, accepting and
 * booking work and are tested, but the dashboard does not show a loan yet and the public loan
 * pages do not link here. Until this is turned on, no member or staff page offers loans outside
 * the test runs (the unit and integration tests under Vitest, the browser tests' server with
 * E2E=1), and every loan page answers 404.
 */
const LOAN_BOOKING_BUILT = false;

/** Whether members may apply online: the profile offers a loan and the whole path works. */
export function loanApplicationsOpen(): boolean {
  const underTest = process.env.E2E === "1" || process.env.VITEST === "true";
  return (LOAN_BOOKING_BUILT || underTest) && institution().loan_products.length > 0;
}
