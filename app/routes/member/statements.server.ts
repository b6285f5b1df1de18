import { withDatabase } from "~/server/db/db.server";
import { memberStatementAccounts, memberStatementPdf } from "~/server/statements/member-statements.server";
import { memberExport } from "~/server/statements/export.server";

/**
 * What /dashboard/statements, a statement's PDF and the exports call (their view-model): each
 * opens the database itself and is scoped to the member whose id it is given.
 */
export const statementAccounts = withDatabase(memberStatementAccounts);
export const statementPdf = withDatabase(memberStatementPdf);
export const statementExport = withDatabase(memberExport);
