import type { Route } from "./+types/transactions-csv";
import { requireMember } from "~/server/auth/session.server";
import { historyCsv } from "./transactions.server";
import { historyFilterProblems } from "~/server/accounts/history.server";

/**
 * CSV export of the filtered history (docs/product.md#transaction-history): same filters as
 * /dashboard/transactions.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const url = new URL(request.url);
  // The page's export link only carries filters it accepted: this answers a hand-made address.
  const problems = historyFilterProblems(url.searchParams);
  if (problems) {
    const lines = Object.entries(problems).map(([field, message]) => `${field}: ${message}`);
    return new Response(`The export was not made. Please correct the filters:\n${lines.join("\n")}\n`, {
      status: 400,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  }
  const csv = await historyCsv(user, url);
  const date = new Date().toISOString().slice(0, 10);
  return new Response(csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="transactions-${date}.csv"`,
      "Cache-Control": "private, no-store",
    },
  });
}
