import { useEffect, useState } from "react";
import { Check, Copy } from "./icons";
import { Button as AriaButton } from "react-aria-components";

/** Copies `value`; says "Copied" for 2 seconds (docs/product.md#limits), announced politely. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <>
      <AriaButton
        aria-label={copied ? `${label} copied` : `Copy ${label}`}
        onPress={() => {
          void navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
        className="inline-flex size-8 items-center justify-center rounded-md text-white/80 transition-colors hover:bg-white/15 hover:text-white focus-on-dark"
      >
        {copied ? <Check className="size-4" aria-hidden="true" /> : <Copy className="size-4" aria-hidden="true" />}
      </AriaButton>
      <span role="status" className="sr-only">
        {copied ? `${label} copied` : ""}
      </span>
      {copied ? (
        <span aria-hidden="true" className="text-xs font-semibold text-white">
          Copied
        </span>
      ) : null}
    </>
  );
}
