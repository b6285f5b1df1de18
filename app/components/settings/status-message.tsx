import { useEffect, useRef, useState } from "react";
import { STATUS_MESSAGE_CLEAR_MS } from "~/domain/settings";
import { FormMessage } from "~/components/ui";

/**
 * A settings status message (docs/product.md#settings): success in green, "Failed…" and refusals in
 * red, with an icon and words so tone never depends on colour. With JavaScript it clears after
 * 3,000 ms (docs/product.md#limits); each new result (a new object) shows again.
 */
export function StatusMessage({
  result,
  className,
  focusOnShow = false,
}: {
  result: { ok: boolean; message: string; detail?: string } | null | undefined;
  className?: string;
  /** Move focus to the message when it appears (when the control that was used has gone). */
  focusOnShow?: boolean;
}) {
  const [hidden, setHidden] = useState<object | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!result || !result.message) return;
    if (focusOnShow) ref.current?.focus();
    const timer = window.setTimeout(() => setHidden(result), STATUS_MESSAGE_CLEAR_MS);
    return () => window.clearTimeout(timer);
  }, [result, focusOnShow]);
  if (!result || !result.message || hidden === result) return <div aria-live="polite" className="sr-only" />;
  return (
    <FormMessage ref={ref} tone={result.ok ? "success" : "error"} className={className}>
      <p className="font-semibold">{result.message}</p>
      {result.detail ? <p className="mt-1">{result.detail}</p> : null}
    </FormMessage>
  );
}
