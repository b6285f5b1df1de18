import { ArrowDownLeft, ArrowUpRight } from "./icons";
import { formatCents } from "~/domain/money";
import { cx } from "~/components/ui/field-styles";

/**
 * A signed amount (docs/product.md#integer-cents): tabular numerals, right-aligned by
 * the caller, with a sign and a direction icon and word for screen readers, never colour alone.
 */
export function Amount({
  cents,
  className,
  showIcon = true,
}: {
  cents: number;
  className?: string;
  showIcon?: boolean;
}) {
  const credit = cents > 0;
  const Icon = credit ? ArrowDownLeft : ArrowUpRight;
  return (
    <span
      className={cx(
        "inline-flex items-center justify-end gap-1 font-semibold tabular-nums whitespace-nowrap",
        credit ? "text-emerald-700" : "text-slate-900",
        className,
      )}
    >
      {showIcon ? <Icon className="size-3.5 shrink-0" aria-hidden="true" /> : null}
      <span className="sr-only">{credit ? "Money in" : "Money out"}: </span>
      {credit ? "+" : ""}
      {formatCents(cents)}
    </span>
  );
}

export const STATUS_STYLES: Record<string, string> = {
  posted: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  pending: "bg-amber-50 text-amber-900 ring-amber-200",
  failed: "bg-red-50 text-red-800 ring-red-200",
  reversed: "bg-slate-100 text-slate-700 ring-slate-200",
};

export function StatusBadge({ status, label }: { status: string; label: string }) {
  return (
    <span
      className={cx(
        "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-semibold ring-1 ring-inset",
        STATUS_STYLES[status] ?? STATUS_STYLES.reversed,
      )}
    >
      {label}
    </span>
  );
}

/** A business date (YYYY-MM-DD) as "Nov 3, 2026": the same words as the member's messages (app/domain/calendar-date.ts). */
export { formatBusinessDate as formatDate } from "~/domain/calendar-date";
