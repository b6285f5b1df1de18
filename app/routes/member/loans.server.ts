import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import { applyForLoan } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { memberApplication, memberApplications, memberDisclosurePdf } from "~/server/loans/application-views.server";
import { payLoan, setAutopay } from "~/server/loans/servicing.server";
import { loanPayingAccounts, memberLoanDetail, memberLoans } from "~/server/loans/loan-views.server";
import { memberLoanStatementPdf, memberLoanStatements } from "~/server/statements/loan-statements.server";
import { loanPledge, pledgeableAccounts } from "~/server/loans/share-secured.server";

/**
 * What the member's Loans pages call (docs/product.md#loans): each opens the database itself, and
 * every read is of the member's own applications only.
 */
export const loadMemberApplications = withDatabase((database, user: SessionUser) =>
  memberApplications(database, user.id),
);

export const loadMemberLoans = withDatabase((database, user: SessionUser) => memberLoans(database, user.id));

export const loadMemberApplication = withDatabase((database, user: SessionUser, application_id: number) =>
  memberApplication(database, user.id, application_id),
);

export const loadDisclosurePdf = withDatabase((database, user: SessionUser, application_id: number) =>
  memberDisclosurePdf(database, user.id, application_id),
);

export const submitApplication = withDatabase(applyForLoan);
export const acceptLoanOffer = withDatabase(acceptOffer);

export const loadLoanDetail = withDatabase((database, user: SessionUser, loan_id: number, pay_on?: string) =>
  memberLoanDetail(database, user.id, loan_id, new Date(), pay_on),
);
export const loadPayingAccounts = withDatabase((database, user: SessionUser) => loanPayingAccounts(database, user.id));
export const payMemberLoan = withDatabase(payLoan);
export const setLoanAutopay = withDatabase(setAutopay);

/** The member's loans with their statement months (docs/product.md#loan-statements). */
export const loadLoanStatements = withDatabase((database, user: SessionUser) =>
  memberLoanStatements(database, user.id, new Date()),
);
/** On the primary: a month's statement is kept at its first download if the monthly run has not made it. */
export const loanStatementPdf = withDatabase(memberLoanStatementPdf);

export const loadPledgeableAccounts = withDatabase((database, user: SessionUser) =>
  pledgeableAccounts(database, user.id),
);

/** The savings pledged for one of the member's own loans. */
export const loadLoanPledge = withDatabase((database, user: SessionUser, loan_id: number) =>
  loanPledge(database, loan_id, user.id),
);
