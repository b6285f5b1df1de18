import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { MemoryRouter } from "react-router";
import type { MarkupMemo } from "~/components/ui/memoized-markup";
import { logger } from "./logger.server";

/** Keys come from the institution profile and the year, so there are a handful; never grow without bound. */
const MAX_ENTRIES = 64;

/**
 * The markup store behind <MemoizedMarkup> (components/ui/memoized-markup.tsx), one per server
 * process. The first request for a key renders its content as part of the page, as always; right
 * after it, outside any request, the content is rendered on its own (in a memory router, for its
 * links) and stored, and later requests send that HTML instead of rendering it again. A content
 * that fails to render on its own is logged and keeps being rendered with its page.
 */
export function createMarkupMemo(): MarkupMemo {
  const stored = new Map<string, string>();
  const attempted = new Set<string>();
  return (key: string, content: ReactNode) => {
    const html = stored.get(key);
    if (html !== undefined || attempted.has(key) || attempted.size >= MAX_ENTRIES) return html;
    attempted.add(key);
    setImmediate(() => {
      try {
        stored.set(key, renderToString(<MemoryRouter>{content}</MemoryRouter>));
        logger.debug({ key: key.slice(0, 80) }, "memoized markup stored");
      } catch (error) {
        logger.error({ err: error, key: key.slice(0, 80) }, "memoized markup could not be rendered on its own; it stays rendered with its page");
      }
    });
    return undefined;
  };
}
