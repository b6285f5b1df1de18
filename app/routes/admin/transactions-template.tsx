import type { Route } from "./+types/transactions-template";
import { requestInfoContext } from "~/context";
import { requireMoneyStaff } from "~/server/postings/access.server";
import { postingsTemplateCsv } from "~/server/postings/csv.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";

/**
 * Download Template (docs/product.md#add-transactions): the CSV header and one example row, dated
 * today, for staff who may move money.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireMoneyStaff(request, context.get(requestInfoContext));
  return new Response(postingsTemplateCsv(businessDate(institution().time_zone)), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": 'attachment; filename="transactions-template.csv"',
      "Cache-Control": "no-store",
    },
  });
}
