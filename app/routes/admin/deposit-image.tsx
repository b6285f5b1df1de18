import type { Route } from "./+types/deposit-image";
import { requestInfoContext } from "~/context";
import { requireMoneyStaff } from "~/server/rails/access.server";
import { readDepositImage } from "./deposit-image.server";

/**
 * /admin/queues/deposits/:depositId/:side (front or back): a mobile deposit's check photo, for
 * the staff who review deposits (those who may move money) only; members never get it back by
 * address. Served inline as the JPEG the server re-encoded, never cached. `?size=thumbnail` is the
 * queue's small picture; the full-size view is the one audited (depositImage says why).
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireMoneyStaff(request, context.get(requestInfoContext));
  const id = /^\d{1,15}$/.test(params.depositId) ? Number(params.depositId) : 0;
  const side = params.side === "front" || params.side === "back" ? params.side : null;
  const size = new URL(request.url).searchParams.get("size") === "thumbnail" ? "thumbnail" : "full";
  const content = side ? await readDepositImage(id, side, staff, origin, size) : null;
  if (!content) {
    return new Response("No such image.\n", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  return new Response(new Uint8Array(content), {
    headers: {
      "Content-Type": "image/jpeg",
      "Content-Length": String(content.length),
      "Content-Disposition": `inline; filename="deposit-${id}-${side}${size === "thumbnail" ? "-thumbnail" : ""}.jpg"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
