import { memberLoanChoices } from "~/server/loans/loan-views.server";
import { memberLoanStatements } from "~/server/statements/loan-statements.server";
import { withDatabase, withReadDatabase } from "~/server/db/db.server";
import { memberStatementAccounts, memberStatementPdf } from "~/server/statements/member-statements.server";
import { exportFormats, memberExport } from "~/server/statements/export.server";
import { memberTaxForms, taxFormPdf } from "~/server/dividends/tax-forms.server";
import { emailLineStatement, emailLoanStatement, emailStatement } from "~/server/statements/email.server";
import {
  memberLineChoices,
  memberLineStatementPdf,
  memberLineStatements,
} from "~/server/statements/line-statements.server";

/**
 * What /dashboard/statements, a statement's PDF and the exports call (their view-model): each
 * opens the database itself and is scoped to the member whose id it is given.
 */
export const statementAccounts = withReadDatabase(memberStatementAccounts);
/** On the primary: the month just ended is kept at its first download (and its dividend paid first). */
export const statementPdf = withDatabase(memberStatementPdf);
export const statementExport = withReadDatabase(memberExport);
/** "Email it to me": the PDF to the member's registered address (at most five an hour). */
export const statementEmail = withDatabase(emailStatement);
/** "Email it to me" for a loan's statement: the same limit (docs/product.md#loan-statements). */
export const loanStatementEmail = withDatabase(emailLoanStatement);
export const taxForms = withReadDatabase(memberTaxForms);
export const taxFormDownload = withReadDatabase(taxFormPdf);
/** The export's file types this credit union offers (QFX and QBO need its Intuit bank id). */
export { exportFormats };
/** The member's loans, offered in the export as credit lines (docs/product.md#loan-servicing). */
export const statementLoans = withReadDatabase(memberLoanChoices);
/** The member's loans with the months each has a statement for (docs/product.md#loan-statements). */
export const statementLoanMonths = withReadDatabase(memberLoanStatements);
/** The member's lines of credit, offered in the export as credit lines (docs/product.md#line-statements). */
export const statementLines = withReadDatabase(memberLineChoices);
/** The member's lines of credit with their closed cycles' statements (docs/product.md#line-statements). */
export const statementLineCycles = withReadDatabase(memberLineStatements);
/** On the primary: a cycle's statement is kept at its first download if the monthly run has not made it. */
export const lineStatementPdf = withDatabase(memberLineStatementPdf);
/** "Email it to me" for a line's statement: the same limit (docs/product.md#line-statements). */
export const lineStatementEmail = withDatabase(emailLineStatement);
