import type { Route } from "./+types/loan-statement-pdf";
import { requireMember } from "~/server/auth/session.server";
import { documentDownload } from "~/server/http/document-download.server";
import { refusal } from "~/domain/refusals";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { LOAN_STATEMENT_NOT_FOUND } from "~/server/statements/loan-statements.server";
import { loanStatementPdf } from "./loans.server";

/**
 * A loan's monthly statement PDF (docs/product.md#loan-statements): the member's own loan and a
 * month offered for it; made once and kept, then served as made. Another member's loan or a
 * made-up number is 404, a month not offered 400, each with its message as text.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const result = loanApplicationsOpen()
    ? await loanStatementPdf(user.id, params.loanId, params.month, new Date())
    : refusal("not_found", LOAN_STATEMENT_NOT_FOUND);
  return documentDownload(result);
}
