import type { Route } from "./+types/trial-balance-csv";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { dateFromUrl, trialBalanceCsvFor } from "./books.server";

/** /admin/books/trial-balance.csv?date= (docs/product.md#books): staff and accountants. */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireBooksReader(request, context.get(requestInfoContext));
  const asked = dateFromUrl(request);
  if (!asked.ok)
    return new Response(asked.message, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return new Response(await trialBalanceCsvFor(asked.date), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="trial-balance-${asked.date}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
