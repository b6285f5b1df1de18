import type { Route } from "./+types/statement-pdf";
import { requireMember } from "~/server/auth/session.server";
import { refusalStatus } from "~/server/http/form.server";
import { statementPdf } from "./statements.server";

/**
 * A statement PDF (docs/product.md#statements): the member's own account and a month offered for
 * it; made once and kept, then served as made. A hand-made address for another member's account
 * is 404, a month not offered 400, each with its message as text.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const result = await statementPdf(user.id, params.accountId, params.month, new Date());
  if (!result.ok) {
    return new Response(`${result.message}\n`, {
      status: refusalStatus(result.kind),
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  }
  return new Response(new Uint8Array(result.pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${result.file_name}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
