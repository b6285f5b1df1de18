import type { Route } from "./+types/tax-form-pdf";
import { requireMember } from "~/server/auth/session.server";
import { parseTaxYear } from "~/domain/tax-forms";
import { taxFormDownload } from "./statements.server";

const TEXT_HEADERS = {
  "Content-Type": "text/plain; charset=utf-8",
  "Cache-Control": "private, no-store",
  "X-Content-Type-Options": "nosniff",
};

/**
 * The member's Form 1099-INT of a year as a PDF (docs/product.md#tax-forms): their own only. A year
 * they have no form for (another member's included: nothing says whose) is 404, a year that is not
 * one 400, each with its message as text.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const tax_year = parseTaxYear(params.year);
  if (tax_year === null) return new Response("Not a tax year.\n", { status: 400, headers: TEXT_HEADERS });
  const found = await taxFormDownload(user.id, tax_year);
  if (!found) return new Response("You have no tax form for that year.\n", { status: 404, headers: TEXT_HEADERS });
  return new Response(new Uint8Array(found.pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${found.file_name}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
