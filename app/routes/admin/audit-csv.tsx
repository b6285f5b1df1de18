import type { Route } from "./+types/audit-csv";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { exportAuditLog } from "./audit.server";
import { parseAuditFilter } from "~/domain/audit-filter";

/** /admin/audit.csv: the filtered audit log as a CSV download (staff only; the export itself is audited). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const { filter, problems } = parseAuditFilter(new URL(request.url).searchParams);
  if (problems) {
    // The page's export link only carries filters it accepted: this answers a hand-made address.
    const lines = Object.entries(problems).map(([field, message]) => `${field}: ${message}`);
    return new Response(`The export was not made. Please correct the filters:\n${lines.join("\n")}\n`, {
      status: 400,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  }
  const result = await exportAuditLog({ staff, origin, filter });
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(result.csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-log-${stamp}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
