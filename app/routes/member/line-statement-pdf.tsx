import type { Route } from "./+types/line-statement-pdf";
import { requireMember } from "~/server/auth/session.server";
import { refusalStatus } from "~/server/http/form.server";
import { refusal } from "~/domain/refusals";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { LINE_STATEMENT_NOT_FOUND } from "~/server/statements/line-statements.server";
import { lineStatementPdf } from "./statements.server";

/**
 * A line of credit's periodic statement PDF (docs/product.md#line-statements): the member's own
 * line and one of its closed billing cycles, named by its closing date; made once and kept, then
 * served as made. Another member's line or a made-up number is 404, a date that is not one of its
 * cycles 400, each with its message as text.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const result = loanApplicationsOpen()
    ? await lineStatementPdf(user.id, params.lineId, params.closedOn, new Date())
    : refusal("not_found", LINE_STATEMENT_NOT_FOUND);
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
