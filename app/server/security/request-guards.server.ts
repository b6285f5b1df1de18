import type { NextFunction, Request, Response } from "express";
import { standalonePageHtml } from "~/server/http/standalone-page.server";
import { hasControlCharacters } from "~/domain/plain-text";

/** Largest body of an ordinary form post; upload routes raise it for themselves. */
export const FORM_BODY_MAX_BYTES = 64 * 1024;
/** Largest body of a post that carries files (two 10 MB images plus the form). */
export const UPLOAD_BODY_MAX_BYTES = 21 * 1024 * 1024;
const URL_MAX_CHARS = 4096;
/**
 * Longest path segment, decoded, that any route serves: the ids we issue (people, accounts, cards,
 * files) are at most 64 characters and page names far shorter.
 */
export const PATH_SEGMENT_MAX_CHARS = 128;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

function refuse(res: Response, status: number, message: string) {
  res.status(status).type("text/plain").send(`${message} Reference: ${res.locals.request_id}`);
}

/** "21 MB", "64 KB": the limit as people read it. */
function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.floor(bytes / (1024 * 1024))} MB` : `${Math.floor(bytes / 1024)} KB`;
}

/**
 * A body over the limit. A browser's own form post (a page request: it accepts HTML and is not a
 * React Router `.data` request) gets a page in the site's look that says the limit and links back
 * to the form, since without JavaScript the form's own message never runs; anything else keeps
 * the short plain answer.
 */
function tooLarge(req: Request, res: Response, max: number, files: boolean) {
  if (!wantsPage(req)) return refuse(res, 413, "The request is larger than we accept.");
  // Back to the form: the page it was sent from when that is on this site, else the home page.
  let back = "/";
  try {
    const referer = new URL(req.get("referer") ?? "");
    // A path starting "//" would be read by the browser as another host.
    if (referer.host === req.get("host") && !referer.pathname.startsWith("//"))
      back = referer.pathname + referer.search;
  } catch {
    // no or unreadable Referer: the home page
  }
  const html = standalonePageHtml({
    status: 413,
    title: "Too large to send",
    heading: files ? "That file is too large" : "That form is too large",
    paragraphs_html: [
      files
        ? `We accept at most ${sizeText(max)} in one form. Please choose a smaller file, or take the photo again at a lower resolution, and send the form again.`
        : `We accept at most ${sizeText(max)} in one form. Please shorten what you wrote and send the form again.`,
      "Nothing was saved.",
    ],
    request_id: String(res.locals.request_id),
    nonce: String(res.locals.nonce ?? ""),
    link: { href: back, label: "Back to the form" },
  });
  res.status(413).type("text/html").set("Cache-Control", "no-store").send(html);
}

/**
 * Whether a path segment cannot be anyone's id or page name: an escape that does not decode
 * (`%ZZ`, a cut-off or overlong UTF-8 sequence), a control character once decoded (NUL above all:
 * PostgreSQL refuses it in text, so a NUL id reaching a query failed there as a 500), or longer
 * than any we serve. React Router hands a segment that does not decode to the route as it is,
 * and every route with a dynamic segment (`:memberId`, `:fileId`, `:slug`...) would otherwise
 * need its own check: this one guard answers them all with a 404, whatever the method.
 */
export function badPathSegment(segment: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return true;
  }
  return decoded.length > PATH_SEGMENT_MAX_CHARS || hasControlCharacters(decoded);
}

/** A page request (a browser's, not React Router's `.data` fetch): it is answered with a page. */
function wantsPage(req: Request): boolean {
  return req.accepts(["text/plain", "text/html"]) === "text/html" && !req.path.endsWith(".data");
}

/** No such page: a short page for a browser, the plain answer for anything else. */
function notFound(req: Request, res: Response) {
  if (!wantsPage(req)) return refuse(res, 404, "There is nothing at this address.");
  const html = standalonePageHtml({
    status: 404,
    title: "Page not found",
    heading: "We could not find that page",
    paragraphs_html: ["The address may be mistyped, or the page may have moved."],
    request_id: String(res.locals.request_id),
    nonce: String(res.locals.nonce ?? ""),
    link: { href: "/", label: "Go to the home page" },
  });
  res.status(404).type("text/html").send(html);
}

/**
 * Cheap checks that turn bad requests into clear 4xx answers before any page code runs:
 * absurd URLs, path segments that are no id (a 404, `badPathSegment`), methods we do not serve, posts from another site (CSRF), posts that are not
 * forms, bodies without a declared length or larger than we accept.
 */
export function requestGuards() {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.originalUrl.length > URL_MAX_CHARS) return refuse(res, 414, "That address is too long.");
    // Before the method's checks: a post to an address that cannot exist is a 404 too.
    if (req.path.split("/").some(badPathSegment)) return notFound(req, res);
    if (SAFE_METHODS.has(req.method)) return next();
    if (!["POST", "PUT", "PATCH", "DELETE"].includes(req.method))
      return refuse(res, 405, "That method is not allowed here.");

    // CSRF: a browser always says where a post comes from (Origin, or Sec-Fetch-Site). A post
    // from another site, or one that says nothing, is refused. See docs/decisions/0002-csrf.md.
    const origin = req.get("origin");
    const fetchSite = req.get("sec-fetch-site");
    const host = req.get("host");
    if (origin) {
      let originHost: string | null;
      try {
        originHost = new URL(origin).host;
      } catch {
        originHost = null;
      }
      if (originHost !== host) return refuse(res, 403, "This form was sent from another site and was refused.");
    } else if (fetchSite !== "same-origin") {
      return refuse(res, 403, "This form could not be verified as coming from this site and was refused.");
    }

    const type = (req.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!FORM_TYPES.includes(type)) return refuse(res, 415, "Only form submissions are accepted here.");

    const lengthHeader = req.get("content-length");
    if (lengthHeader === undefined) return refuse(res, 411, "The request must state its length.");
    const length = Number(lengthHeader);
    const max = type === "multipart/form-data" ? UPLOAD_BODY_MAX_BYTES : FORM_BODY_MAX_BYTES;
    if (!Number.isSafeInteger(length) || length < 0) return refuse(res, 400, "The request length is not valid.");
    if (length > max) return tooLarge(req, res, max, type === "multipart/form-data");
    next();
  };
}
