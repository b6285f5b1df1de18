import type { Route } from "./+types/statements-export";
import { requireMember } from "~/server/auth/session.server";
import { statementExport } from "./statements.server";

/**
 * One account's transactions for a date range as CSV, OFX, QFX or QBO (docs/product.md#statements):
 * `?account=&from=&to=&format=`. Another member's account is 404; a bad range or format 400, with
 * each field's message as text.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const answer = await statementExport(user.id, new URL(request.url).searchParams, new Date());
  if (!answer.ok) {
    const lines = Object.entries(answer.problems).map(([field, message]) => `${field}: ${message}`);
    return new Response(`The export was not made.\n${lines.join("\n")}\n`, {
      status: answer.status,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  }
  return new Response(answer.body, {
    headers: {
      "Content-Type": answer.media_type,
      "Content-Disposition": `attachment; filename="${answer.file_name}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
