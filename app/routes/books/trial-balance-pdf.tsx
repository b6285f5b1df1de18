import type { Route } from "./+types/trial-balance-pdf";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { dateFromUrl, trialBalancePdfFor } from "./books.server";

/** /admin/books/trial-balance.pdf?date= (docs/product.md#books): staff and accountants. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = await requireBooksReader(request, context.get(requestInfoContext));
  const asked = dateFromUrl(request);
  if (!asked.ok)
    return new Response(asked.message, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const pdf = await trialBalancePdfFor(asked.date, user.name);
  return new Response(new Uint8Array(pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="trial-balance-${asked.date}.pdf"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
