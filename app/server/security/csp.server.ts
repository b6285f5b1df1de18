import type { IncomingMessage, ServerResponse } from "node:http";
import type { Institution } from "~/config/institution";

type Directive = string | ((req: IncomingMessage, res: ServerResponse) => string);

const nonce: Directive = (_req, res) => `'nonce-${(res as unknown as { locals: { nonce: string } }).locals.nonce}'`;

/**
 * A strict Content-Security-Policy: scripts only from our origin or with this response's nonce,
 * no plugins, no framing of our pages, and frames only from the market widget's origin when the
 * institution turned it on. Style attributes stay allowed because server-rendered components
 * (React Aria positioning, charts) set them; they cannot run code.
 */
export function contentSecurityPolicy(profile: Institution, { https, dev }: { https: boolean; dev: boolean }) {
  const widgetOrigin =
    profile.market_widget.enabled && profile.market_widget.url ? new URL(profile.market_widget.url).origin : null;
  const directives: Record<string, Directive[]> = {
    "default-src": ["'self'"],
    "base-uri": ["'none'"],
    "object-src": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'"],
    "connect-src": dev ? ["'self'", "ws:", "wss:"] : ["'self'"],
    "script-src": dev ? ["'self'", "'unsafe-inline'", "'unsafe-eval'"] : ["'self'", nonce],
    "style-src-elem": dev ? ["'self'", "'unsafe-inline'"] : ["'self'", nonce],
    "style-src-attr": ["'unsafe-inline'"],
    "frame-src": widgetOrigin ? [widgetOrigin] : ["'none'"],
    "worker-src": ["'self'", "blob:"],
    "manifest-src": ["'self'"],
  };
  if (https) directives["upgrade-insecure-requests"] = [];
  return directives;
}
