import type { Route } from "./+types/loan-disclosure-pdf";
import { requireMember } from "~/server/auth/session.server";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { loadDisclosurePdf } from "./loans.server";

/**
 * The Truth in Lending disclosure the member accepted, as kept (docs/product.md#loans). Another
 * member's, one not accepted or a made-up number is 404 with a message as text.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = /^[1-9]\d{0,15}$/.test(params.applicationId) ? Number(params.applicationId) : 0;
  const pdf = loanApplicationsOpen() && id ? await loadDisclosurePdf(user, id) : null;
  if (!pdf)
    return new Response("We could not find that disclosure.\n", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "private, no-store" },
    });
  return new Response(new Uint8Array(pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="loan-disclosure-${id}.pdf"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
