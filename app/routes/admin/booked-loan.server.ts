import { withDatabase } from "~/server/db/db.server";
import { bookedLoans, decideLoanAction, requestLoanAction, staffLoanView } from "~/server/loans/staff-actions.server";

/** What /admin/loans and /admin/loans/booked/:loanId call for booked loans (docs/product.md#booked-loans-staff). */
export const loadBookedLoans = withDatabase((database) => bookedLoans(database));
export const loadStaffLoan = withDatabase((database, loan_id: number) => staffLoanView(database, loan_id));
export const requestCorrection = withDatabase(requestLoanAction);
export const decideCorrection = withDatabase(decideLoanAction);
