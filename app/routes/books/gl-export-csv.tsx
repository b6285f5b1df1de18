import type { Route } from "./+types/gl-export-csv";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { dateFromUrl, glExportFor } from "./books.server";

/**
 * /admin/books/gl-export.csv?date= (docs/product.md#books): the day's general-ledger totals with
 * the profile's account codes, for the credit union's accounting system. Staff and accountants;
 * 409 with the reason when the profile lacks codes (none is invented).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireBooksReader(request, context.get(requestInfoContext));
  const text = (message: string, status: number) =>
    new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const asked = dateFromUrl(request);
  if (!asked.ok) return text(asked.message, 400);
  const made = await glExportFor(asked.date);
  if (!made.ok) return text(made.message, 409);
  return new Response(made.csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="gl-${asked.date}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
