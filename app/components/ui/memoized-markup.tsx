import { createContext, createElement, useContext, type HTMLAttributes, type ReactNode } from "react";

/**
 * The server's store of rendered markup (server/markup-memo.server.tsx): the HTML of `content`
 * for `key` once it has been rendered, undefined until then.
 */
export type MarkupMemo = (key: string, content: ReactNode) => string | undefined;

const MarkupMemoContext = createContext<MarkupMemo | undefined>(undefined);
export const MarkupMemoProvider = MarkupMemoContext.Provider;

type MemoizedMarkupProps = HTMLAttributes<HTMLElement> & {
  as: "div" | "footer";
  /** Everything the content depends on, written out: the same key must always mean the same markup. */
  memoKey: string;
  children: ReactNode;
};

/**
 * An element whose content the server renders once per key and then sends as stored HTML
 * (bench/README.md, "Home page", fourth look; decision 0007). The browser renders the content
 * as usual and hydrates it against that HTML, which is exactly what React would have written, so
 * links, handlers and client navigation work as before.
 *
 * Only for content that is the same for every request with the same key: no request, session,
 * location or time in it beyond what the key names, no `useId`, no state that changes the first
 * render. The browser test "memoized markup" checks every public page's HTML before and after.
 */
export function MemoizedMarkup({ as, memoKey, children, ...props }: MemoizedMarkupProps) {
  const memo = useContext(MarkupMemoContext);
  const html = memo?.(memoKey, children);
  return html === undefined ? createElement(as, props, children) : createElement(as, { ...props, dangerouslySetInnerHTML: { __html: html } });
}
