import type { Route } from "./+types/transactions-csv";
import { historyCsv, requireMember } from "~/server/member-app/member-app.server";

/** CSV export of the filtered history (SPEC 6): same filters as /dashboard/transactions. */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const csv = await historyCsv(user, new URL(request.url));
  const date = new Date().toISOString().slice(0, 10);
  return new Response(csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="transactions-${date}.csv"`,
      "Cache-Control": "private, no-store",
    },
  });
}
