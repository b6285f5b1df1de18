import { institution } from "~/config/institution.server";

/**
 * A page complete in itself (no database, no scripts, no stylesheet to fetch), in the
 * institution's colours: for answers given before or without React Router, such as the database
 * being unreachable or a request refused by the request guards.
 */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface StandalonePage {
  status: number;
  title: string;
  heading: string;
  /** Paragraphs as HTML: escape anything that came from outside with escapeHtml. */
  paragraphs_html: string[];
  request_id: string;
  /** The CSP nonce of this response, for the inline style. */
  nonce: string;
  /** The one way on: a same-site path and its label. */
  link: { href: string; label: string };
}

export function standalonePageHtml(page: StandalonePage): string {
  const profile = institution();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.title)} | ${escapeHtml(profile.name)}</title>
<style nonce="${escapeHtml(page.nonce)}">
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1e293b;background:#f8fafc}
main{max-width:36rem;margin:0 auto;padding:6rem 1.5rem;text-align:center}
p.status{font-size:.875rem;font-weight:600;color:${escapeHtml(profile.brand.accent)}}
h1{margin:.5rem 0 0;font-size:1.875rem;font-weight:600;color:${escapeHtml(profile.brand.primary)}}
p{line-height:1.6}
a{color:${escapeHtml(profile.brand.primary)};font-weight:500}
a.button{display:inline-block;margin-top:2rem;padding:.75rem 1.25rem;border-radius:.5rem;background:${escapeHtml(profile.brand.primary)};color:#fff;font-weight:500;text-decoration:none}
.reference{font-size:.875rem;color:#475569}
</style>
</head>
<body>
<main id="main">
<p class="status">Error ${page.status}</p>
<h1>${escapeHtml(page.heading)}</h1>
${page.paragraphs_html.map((p) => `<p>${p}</p>`).join("\n")}
<p class="reference">Reference: ${escapeHtml(page.request_id)}</p>
<p>Need help now? Call <a href="tel:${escapeHtml(profile.support_phone.replace(/[^\d+]/g, ""))}">${escapeHtml(profile.support_phone)}</a>.</p>
<a class="button" href="${escapeHtml(page.link.href)}">${escapeHtml(page.link.label)}</a>
</main>
</body>
</html>`;
}
