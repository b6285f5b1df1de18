/**
 * Loan products and applications (docs/product.md#loans, issue 33): what a credit union offers in
 * its institution profile, what a member may ask for, and what staff may offer. Pure: no I/O.
 *
 * Rates are held as parts per million (5.99% = 59_900), as the schedule takes them; amounts in
 * integer cents. The product's rate range bounds the note rate staff set; the APR the member is
 * shown is computed from the schedule by Regulation Z's appendix J (./truth-in-lending.ts).
 */
import { percentToPpm } from "../percent";
import type { MinimumPaymentRule } from "./line-of-credit";

export const LOAN_KINDS = ["personal", "auto", "share_secured", "line_of_credit"] as const;
export type LoanKind = (typeof LOAN_KINDS)[number];

/**
 * The kinds this version can take applications for: closed-end loans with a monthly schedule,
 * share-secured ones holding the pledged savings (./share-secured.ts), and the line of credit
 * (open-end credit, Regulation Z subpart B: ./line-of-credit.ts).
 */
export const OFFERED_LOAN_KINDS: readonly LoanKind[] = ["personal", "auto", "share_secured", "line_of_credit"];

/** Open-end credit: a limit to draw on and a monthly minimum, no amount and term (./line-of-credit.ts). */
export function isOpenEnd(kind: LoanKind): boolean {
  return kind === "line_of_credit";
}

export const LOAN_KIND_LABELS: Record<LoanKind, string> = {
  personal: "Personal loan",
  auto: "Auto loan",
  share_secured: "Share-secured loan",
  line_of_credit: "Line of credit",
};

/** "a personal loan", "an auto loan": a product's name as the buttons and headings say it. */
export function withArticle(name: string): string {
  const lower = name.toLowerCase();
  return `${/^[aeiou]/.test(lower) ? "an" : "a"} ${lower}`;
}

/** The highest rate a profile may set: the federal credit union ceiling is 18% (12 CFR 701.21(c)(7)). */
export const LOAN_RATE_MAX_PPM = 180_000;

/** A rate typed as a percent ("5.99"), held exactly; null when it is not one from 0 to 18. */
export function parseLoanRatePercent(text: string): number | null {
  const ppm = percentToPpm(text.trim());
  return ppm === null || ppm > LOAN_RATE_MAX_PPM ? null : ppm;
}

/** 59_900 -> "5.99%". */
export function formatRatePpm(rate_ppm: number): string {
  const whole = Math.floor(rate_ppm / 10_000);
  const fraction = String(rate_ppm % 10_000)
    .padStart(4, "0")
    .replace(/0{1,2}$/, "");
  return `${whole}.${fraction}%`;
}

/** L-000012: how the member and staff name a booked loan. */
export function loanNumber(loan_id: number): string {
  return `L-${String(loan_id).padStart(6, "0")}`;
}

/** 969 -> "9.69%" (an APR in hundredths of a percent, as the disclosure gives it). */
export function formatAprBp(apr_bp: number): string {
  return `${Math.floor(apr_bp / 100)}.${String(apr_bp % 100).padStart(2, "0")}%`;
}

/** A loan product as the profile holds it, once parsed (app/config/institution.ts). */
export interface LoanProductTerms {
  slug: string;
  kind: LoanKind;
  name: string;
  rate_min_ppm: number;
  rate_max_ppm: number;
  /** A closed-end loan's terms; 0 for a line of credit, which has none. */
  term_months_min: number;
  term_months_max: number;
  /** The amount a member may borrow; for a line of credit, the credit limit. */
  amount_min_cents: number;
  amount_max_cents: number;
  payment_frequency: "monthly";
  grace_days: number;
  late_fee_cents: number;
  /** A line of credit's minimum payment rule; null for a closed-end loan. */
  minimum_payment: MinimumPaymentRule | null;
  /** A share-secured loan: the percent of the pledged savings' available balance that may be borrowed. */
  pledge_percent?: number;
}

/** What the member may not ask for, by field; empty when the request is within the product. */
export function requestProblems(
  product: LoanProductTerms,
  request: { amount_cents: number; term_months: number },
): { field: "amount" | "term_months"; message: string }[] {
  const problems: { field: "amount" | "term_months"; message: string }[] = [];
  if (request.amount_cents < product.amount_min_cents || request.amount_cents > product.amount_max_cents)
    problems.push({
      field: "amount",
      message: `Enter an amount from ${dollars(product.amount_min_cents)} to ${dollars(product.amount_max_cents)}.`,
    });
  if (request.term_months < product.term_months_min || request.term_months > product.term_months_max)
    problems.push({
      field: "term_months",
      message: `Choose a term from ${product.term_months_min} to ${product.term_months_max} months.`,
    });
  return problems;
}

/** What staff may not offer, by field: the amount and term within the product, the rate within its range. */
export function offerProblems(
  product: LoanProductTerms,
  offer: { amount_cents: number; term_months: number; rate_ppm: number },
): { field: "amount" | "term_months" | "rate"; message: string }[] {
  const problems: { field: "amount" | "term_months" | "rate"; message: string }[] = [
    ...requestProblems(product, offer),
  ];
  if (offer.rate_ppm < product.rate_min_ppm || offer.rate_ppm > product.rate_max_ppm)
    problems.push({
      field: "rate",
      message: `The rate must be from ${formatRatePpm(product.rate_min_ppm)} to ${formatRatePpm(product.rate_max_ppm)} (the product's range).`,
    });
  return problems;
}

function dollars(cents: number): string {
  return `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: cents % 100 ? 2 : 0 })}`;
}

/**
 * The principal reasons for an adverse action a credit union may state (Regulation B, 12 CFR
 * 1002.9(b)(2) and the sample form C-1's list). Staff pick at least one; the notice names each.
 * "Other" carries the staff member's own words, which must be specific.
 */
export const ADVERSE_ACTION_REASONS = {
  credit_application_incomplete: "Credit application incomplete",
  insufficient_credit_references: "Insufficient number of credit references provided",
  unable_to_verify_credit_references: "Unable to verify credit references",
  temporary_or_irregular_employment: "Temporary or irregular employment",
  unable_to_verify_employment: "Unable to verify employment",
  length_of_employment: "Length of employment",
  income_insufficient: "Income insufficient for amount of credit requested",
  excessive_obligations: "Excessive obligations in relation to income",
  unable_to_verify_income: "Unable to verify income",
  length_of_residence: "Length of residence",
  no_credit_file: "No credit file",
  limited_credit_experience: "Limited credit experience",
  poor_credit_performance: "Poor credit performance with us",
  delinquent_credit_obligations: "Delinquent past or present credit obligations with others",
  collection_action_or_judgment: "Collection action or judgment",
  bankruptcy: "Bankruptcy",
  value_or_type_of_collateral: "Value or type of collateral not sufficient",
  other: "Other",
} as const;
export type AdverseActionReason = keyof typeof ADVERSE_ACTION_REASONS;
export const ADVERSE_ACTION_REASON_KEYS = Object.keys(ADVERSE_ACTION_REASONS) as AdverseActionReason[];

/** Form C-1 lists up to four principal reasons; more than four would not be "principal" (comment 9(b)(2)-1). */
export const ADVERSE_ACTION_REASONS_MAX = 4;

/**
 * The Equal Credit Opportunity Act notice every adverse action notice carries (12 CFR 1002.9(b)(1)),
 * with the federal agency that administers compliance for a federally insured credit union.
 */
export const ECOA_NOTICE =
  "The Federal Equal Credit Opportunity Act prohibits creditors from discriminating against credit applicants on the basis of race, color, religion, national origin, sex (including sexual orientation and gender identity), marital status, age (provided the applicant has the capacity to enter into a binding contract); because all or part of the applicant's income derives from any public assistance program; or because the applicant has in good faith exercised any right under the Consumer Credit Protection Act. The Federal agency that administers compliance with this law concerning this creditor is the National Credit Union Administration, Office of Consumer Financial Protection, 1775 Duke Street, Alexandria, VA 22314.";

/** The reasons as the notice lists them: each label, "Other" replaced by the staff member's words. */
export function adverseActionReasonLines(reasons: readonly AdverseActionReason[], other_text: string | null): string[] {
  return reasons.map((r) => (r === "other" ? (other_text ?? "").trim() : ADVERSE_ACTION_REASONS[r]));
}

/** An offer stands this many calendar days; after that it lapses and the member may apply again. */
export const OFFER_VALID_DAYS = 30;

export const LOAN_APPLICATION_STATUSES = [
  "submitted",
  "approved",
  "countered",
  "declined",
  "accepted",
  "lapsed",
] as const;
export type LoanApplicationStatus = (typeof LOAN_APPLICATION_STATUSES)[number];

export const LOAN_APPLICATION_STATUS_LABELS: Record<LoanApplicationStatus, string> = {
  submitted: "Under review",
  approved: "Approved: offer ready",
  countered: "Offer with different terms",
  declined: "Declined",
  accepted: "Accepted",
  lapsed: "Offer expired",
};

/** Whether the member's offer may still be accepted on `today` (a business date). */
export function offerOpen(status: LoanApplicationStatus, offer_expires_on: string | null, today: string): boolean {
  return (status === "approved" || status === "countered") && offer_expires_on !== null && today <= offer_expires_on;
}
