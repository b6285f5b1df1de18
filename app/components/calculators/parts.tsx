import { cx } from "~/components/ui/field-styles";

/** One figure in a result panel: label above, tabular number below. */
export function Stat({ label, value, className }: { label: string; value: string; className?: string }) {
  return (
    <div className={cx("flex items-baseline justify-between gap-3 bg-white px-4 py-3 sm:block", className)}>
      <dt className="text-sm whitespace-nowrap text-slate-600">{label}</dt>
      <dd className="tabular text-base font-semibold text-slate-900 sm:mt-1 sm:text-lg">{value}</dd>
    </div>
  );
}

/** A group of Stats: one list on a phone, side by side from `sm` up. */
export function StatGrid({ columns, children }: { columns: 2 | 3; children: React.ReactNode }) {
  return (
    <dl className={cx("grid divide-y divide-slate-100 overflow-hidden rounded-xl bg-white text-slate-900 sm:gap-px sm:divide-y-0 sm:bg-slate-200", columns === 3 ? "sm:grid-cols-3" : "sm:grid-cols-2")}>
      {children}
    </dl>
  );
}

/**
 * How a total splits in two (principal and interest; deposits and dividends): a bar for the eye
 * and the same split in words, so it never depends on colour.
 */
export function ShareBar({ label, first, second }: { label: string; first: { label: string; cents: number; className: string }; second: { label: string; cents: number; className: string } }) {
  const total = first.cents + second.cents;
  const firstPercent = total > 0 ? Math.round((first.cents / total) * 100) : 100;
  return (
    <div>
      <p className="text-sm text-white/80">{label}</p>
      <div className="mt-2 flex h-2.5 overflow-hidden rounded-full bg-white/20" aria-hidden="true">
        <div className={first.className} style={{ width: `${firstPercent}%` }} />
        <div className={second.className} style={{ width: `${100 - firstPercent}%` }} />
      </div>
      <p className="mt-2 flex justify-between text-sm text-white">
        <span>
          {first.label} {firstPercent}%
        </span>
        <span>
          {second.label} {100 - firstPercent}%
        </span>
      </p>
    </div>
  );
}

/**
 * A table that scrolls sideways on a narrow screen (and down, when `maxHeightClass` is given);
 * the scroll area is focusable and named so keyboard users can scroll it too.
 */
export function ScrollTable({ label, maxHeightClass, children }: { label: string; maxHeightClass?: string; children: React.ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={cx("overflow-auto rounded-xl border border-slate-200", maxHeightClass)}>
      {children}
    </div>
  );
}

export const thClass = "sticky top-0 bg-slate-100 px-2 py-2.5 text-right text-xs font-semibold tracking-wide whitespace-nowrap text-slate-700 uppercase first:text-left sm:px-4";
export const tdClass = "tabular px-2 py-2 text-right whitespace-nowrap text-slate-800 first:text-left sm:px-4";
export const tableClass = "min-w-full divide-y divide-slate-200 bg-white text-xs sm:text-sm";

/** Shown over results while the fields hold an entry that cannot be computed yet. */
export function StaleNote() {
  return <p className="mb-3 inline-flex w-fit rounded-full bg-white/15 px-3 py-1 text-xs font-medium text-white">Showing results for your last valid entry</p>;
}
