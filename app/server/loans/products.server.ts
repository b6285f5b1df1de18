import { institution } from "~/config/institution.server";
import type { LoanProductProfile } from "~/config/institution";
import { parseLoanRatePercent, type LoanProductTerms } from "~/domain/loans/products";
import { percentToPpm } from "~/domain/percent";

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
    // A line of credit has no term (the profile refuses one): 0.
    term_months_min: profile.term_months_min ?? 0,
    term_months_max: profile.term_months_max ?? 0,
    amount_min_cents: profile.amount_min_cents,
    amount_max_cents: profile.amount_max_cents,
    payment_frequency: profile.payment_frequency,
    grace_days: profile.grace_days,
    late_fee_cents: profile.late_fee_cents,
    minimum_payment:
      profile.minimum_payment_percent !== undefined && profile.minimum_payment_floor_cents !== undefined
        ? {
            percent_ppm: percentToPpm(profile.minimum_payment_percent)!,
            floor_cents: profile.minimum_payment_floor_cents,
          }
        : null,
    ...(profile.pledge_percent !== undefined ? { pledge_percent: profile.pledge_percent } : {}),
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
 * Whether members may apply online (docs/product.md#loans): the profile offers a loan. Applying,
 * deciding, booking and servicing (interest, payments, autopay, late fees) are all built, so a
 * loan is offered whenever the profile has one; a profile without loan products offers none and
 * every loan page answers 404.
 */
export function loanApplicationsOpen(): boolean {
  return institution().loan_products.length > 0;
}
