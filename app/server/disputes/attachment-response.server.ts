/**
 * A dispute attachment as an HTTP answer (docs/product.md#disputes): its checked type, shown inline
 * with a download name, never cached, and sandboxed (no script of a PDF runs with the site's
 * rights); a missing one is a plain 404.
 */
export function attachmentResponse(found: { bytes: Buffer; mime: string; filename: string } | null): Response {
  if (!found)
    throw new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  return new Response(new Uint8Array(found.bytes), {
    headers: {
      "Content-Type": found.mime,
      "Content-Length": String(found.bytes.length),
      "Content-Disposition": `inline; filename="${found.filename}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox; default-src 'none'; img-src 'self'; object-src 'self'",
    },
  });
}
