import type { Route } from "./+types/payment-receipt-pdf";
import { requireMember } from "~/server/auth/session.server";
import { receiptPdf } from "./payments.server";

/**
 * An international wire's remittance transfer receipt as a PDF (docs/product.md#remittance-transfers),
 * made from the wire's stored figures each time. Another member's wire, an ACH payment or a
 * made-up number is 404 with a message as text.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = /^[1-9]\d{0,15}$/.test(params.paymentId) ? Number(params.paymentId) : 0;
  const found = id ? await receiptPdf(user, id) : null;
  if (!found)
    return new Response("We could not find that transfer.\n", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "private, no-store" },
    });
  return new Response(new Uint8Array(found.pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${found.file_name}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
