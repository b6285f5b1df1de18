import type { Route } from "./+types/member-document";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { memberIdDocument } from "./member-document.server";

/**
 * An applicant's ID document, for staff only (docs/product.md#member-details): the stored file with
 * its checked content type, shown inline (images, PDF) with a download name, never cached, and
 * every view audited. `?answer=<id>` serves the document sent with an answer to an information
 * request.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const answer = Number(new URL(request.url).searchParams.get("answer") ?? "");
  const member_id = params.memberId;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(member_id)) throw new Response("Not found", { status: 404 });
  const document = await memberIdDocument({
    member_id,
    info_request_id: Number.isSafeInteger(answer) && answer > 0 ? answer : null,
    staff,
    origin,
  });
  if (!document)
    throw new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return new Response(new Uint8Array(document.bytes), {
    headers: {
      "Content-Type": document.mime,
      "Content-Length": String(document.bytes.length),
      "Content-Disposition": `inline; filename="${document.filename}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
