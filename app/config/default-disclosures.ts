/**
 * The disclosures a profile starts with (docs/product.md#disclosures): short plain-language texts
 * a credit union replaces with its own through `disclosures` in its profile. Each has a version;
 * changing a version sends members a change-in-terms notice.
 */
export const defaultDisclosures = {
  esign: {
    title: "Consent to electronic delivery (E-SIGN)",
    version: "2026-12-01",
    effective_on: "2026-12-01",
    body:
      "### What this covers\n\nYour monthly account statements, notices about your accounts (including changes in terms and notices about transfers and disputes) and the disclosures we must give you (account agreement, Truth in Savings schedule, funds availability policy, electronic transfers disclosure, privacy notice).\n\n" +
      "### What you need\n\nA device with a current web browser (the last two versions of Chrome, Edge, Firefox or Safari), an internet connection, a program that opens PDF files (browsers do), an email address we can reach, and room to save or print the files you want to keep.\n\n" +
      "### Paper copies and withdrawing\n\nYou may ask for a paper copy of any statement or notice by calling or writing to us. You may withdraw your consent at any time in Account Settings (or by calling us): from then on we mail statements, notices and disclosures to your address on file. Keep your email address and mailing address up to date in Profile Settings.",
  },
  account_agreement: {
    title: "Membership and account agreement",
    version: "2026-01-01",
    effective_on: "2026-01-01",
    body: "The terms of your share (savings) and checking accounts: who owns the account, deposits and withdrawals, overdrafts, statements, and how we may change these terms.",
  },
  truth_in_savings: {
    title: "Truth in Savings rate and fee schedule",
    version: "2026-01-01",
    effective_on: "2026-01-01",
    body: "The dividend rates and annual percentage yields of each account, how dividends are compounded and credited, minimum balances, and every fee we charge.",
  },
  funds_availability: {
    title: "Funds availability policy",
    version: "2026-01-01",
    effective_on: "2026-01-01",
    body: "When money you deposit is available: cash and electronic deposits the next business day, the first part of a check deposit the next business day and the rest within the times the schedule states, and when we may hold longer and why.",
  },
  reg_e: {
    title: "Electronic fund transfers disclosure (Regulation E)",
    version: "2026-01-01",
    effective_on: "2026-01-01",
    body: "Your rights and responsibilities for electronic transfers: the types of transfers, their limits and fees, your liability for unauthorized transfers, and how to report an error.",
  },
  privacy: {
    title: "Privacy notice",
    version: "2026-01-01",
    effective_on: "2026-01-01",
    body: "What personal information we collect, how we use and share it, and the choices you have.",
  },
} as const;
