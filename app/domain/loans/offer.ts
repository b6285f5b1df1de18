/**
 * An offer's Truth in Lending disclosure (Regulation Z, 12 CFR 1026.17-18; docs/product.md#loans):
 * the one function the offer page, the acceptance, its PDF and its email all take the figures
 * from. The money is paid out on the day the member accepts and the first payment is due one month
 * later, on the same day of the month (the month's last day when shorter). No fee is charged, so
 * the amount financed is the amount of the loan. Pure: the day is given.
 */
import { dueDate } from "./schedule";
import { truthInLending, type TruthInLendingDisclosure } from "./truth-in-lending";

export interface LoanOffer {
  amount_cents: number;
  term_months: number;
  /** The note rate, parts per million. */
  rate_ppm: number;
  /** The business date the money is paid out (the day of acceptance). */
  disbursed_on: string;
}

export interface LoanOfferDisclosure extends TruthInLendingDisclosure {
  amount_cents: number;
  term_months: number;
  rate_ppm: number;
  disbursed_on: string;
  first_payment_on: string;
  /** A secured loan: the security interest as the box names it (12 CFR 1026.18(m)). */
  security_interest?: string;
}

export function loanOfferDisclosure(offer: LoanOffer): LoanOfferDisclosure {
  const first_payment_on = dueDate(offer.disbursed_on, 1);
  const disclosure = truthInLending({
    principal_cents: offer.amount_cents,
    rate_ppm: offer.rate_ppm,
    term_months: offer.term_months,
    disbursed_on: offer.disbursed_on,
    first_payment_on,
    prepaid_finance_charge_cents: 0,
  });
  return { ...disclosure, ...offer, first_payment_on };
}

/** A share-secured offer's disclosure names the pledged savings as its security interest. */
export function withSecurity(
  disclosure: LoanOfferDisclosure,
  pledge: { security_interest: string } | null,
): LoanOfferDisclosure {
  return pledge ? { ...disclosure, security_interest: pledge.security_interest } : disclosure;
}
