import type { Route } from "./+types/loan-statement-pdf";
import { requireMember } from "~/server/auth/session.server";
import { refusalStatus } from "~/server/http/form.server";
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
  if (!result.ok)
    return new Response(`${result.message}\n`, {
      status: refusalStatus(result.kind),
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  return new Response(new Uint8Array(result.pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${result.file_name}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
