import type { Route } from "./+types/paper-delivery-csv";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { paperDeliveryCsv } from "./paper-delivery.server";

/** /admin/paper-delivery.csv: the paper list for the mailing (staff only; it holds addresses, so the export is audited). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const result = await paperDeliveryCsv(staff, origin);
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(result.csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="paper-delivery-${stamp}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
