import type { Route } from "./+types/electronic-delivery-sample";
import { requireMember } from "~/server/auth/session.server";
import { samplePdf } from "./electronic-delivery.server";

/**
 * The sample PDF of the consent page (docs/product.md#electronic-delivery): a short code made for
 * this member's attempt and kept on the server; typing it back shows they can open our PDFs
 * (E-SIGN, 15 U.S.C. 7001(c)(1)(C)(ii)). Shown in the browser (inline), not saved, so opening it
 * is one click.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const pdf = await samplePdf(user.id);
  return new Response(new Uint8Array(pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": 'inline; filename="sample-electronic-delivery.pdf"',
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
