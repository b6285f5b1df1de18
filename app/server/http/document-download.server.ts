import type { Refusal } from "~/domain/refusals";
import { refusalStatus } from "./form.server";

/** A kept document found for the person asking, or the refusal that says why not. */
export type DocumentAnswer = { ok: true; pdf: Buffer; file_name: string } | Refusal;

const PRIVATE = { "Cache-Control": "private, no-store", "X-Content-Type-Options": "nosniff" };

/**
 * A statement PDF as an HTTP answer (docs/product.md#statements, #loan-statements,
 * #line-statements): the file as an attachment under its name, or the refusal's message as plain
 * text with the status of its kind; neither kept by a cache nor read as another type.
 */
export function documentDownload(answer: DocumentAnswer): Response {
  if (!answer.ok)
    return new Response(`${answer.message}\n`, {
      status: refusalStatus(answer.kind),
      headers: { "Content-Type": "text/plain; charset=utf-8", ...PRIVATE },
    });
  return new Response(new Uint8Array(answer.pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${answer.file_name}"`,
      ...PRIVATE,
    },
  });
}
