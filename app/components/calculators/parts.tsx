import { Form } from "react-router";
import { formatCents } from "~/domain/money";
import { Button } from "~/components/ui";
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
    <dl
      className={cx(
        "grid divide-y divide-slate-100 overflow-hidden rounded-xl bg-white text-slate-900 sm:gap-px sm:divide-y-0 sm:bg-slate-200",
        columns === 3 ? "sm:grid-cols-3" : "sm:grid-cols-2",
      )}
    >
      {children}
    </dl>
  );
}

/**
 * How a total splits in two (principal and interest; deposits and dividends): a bar for the eye
 * and the same split in words, so it never depends on colour.
 */
export function ShareBar({
  label,
  first,
  second,
}: {
  label: string;
  first: { label: string; cents: number; className: string };
  second: { label: string; cents: number; className: string };
}) {
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
function ScrollTable({
  label,
  maxHeightClass,
  children,
}: {
  label: string;
  maxHeightClass?: string;
  children: React.ReactNode;
}) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className={cx("overflow-auto rounded-xl border border-slate-200", maxHeightClass)}
    >
      {children}
    </div>
  );
}

const thClass =
  "sticky top-0 bg-slate-100 px-2 py-2.5 text-right text-xs font-semibold tracking-wide whitespace-nowrap text-slate-700 uppercase first:text-left sm:px-4";
const tdClass = "tabular px-2 py-2 text-right whitespace-nowrap text-slate-800 first:text-left sm:px-4";
const tableClass = "min-w-full divide-y divide-slate-200 bg-white text-xs sm:text-sm";

/** Shown over results while the fields hold an entry that cannot be computed yet. */
export function StaleNote() {
  return (
    <p className="mb-3 inline-flex w-fit rounded-full bg-white/15 px-3 py-1 text-xs font-medium text-white">
      Showing results for your last valid entry
    </p>
  );
}

/**
 * The frame both calculators share: a titled card, the form on the left, the result on the right
 * (or a prompt to fix the fields), and the chart and tables below once there is a result.
 */
export function CalculatorCard({
  id,
  title,
  intro,
  icon,
  form,
  result,
  details,
}: {
  id: string;
  title: string;
  intro: string;
  icon: React.ReactNode;
  form: React.ReactNode;
  result: React.ReactNode | null;
  details: React.ReactNode | null;
}) {
  return (
    <section
      id={id}
      aria-labelledby={`${id}-heading`}
      className="scroll-mt-24 rounded-2xl border border-slate-200 bg-white shadow-sm"
    >
      <header className="flex items-start gap-4 border-b border-slate-100 p-5 sm:p-8">
        {icon}
        <div>
          <h2 id={`${id}-heading`} className="text-2xl font-semibold tracking-tight text-brand-800">
            {title}
          </h2>
          <p className="mt-1 text-slate-700">{intro}</p>
        </div>
      </header>

      <div className="grid gap-8 p-4 sm:p-8 lg:grid-cols-5">
        <div className="lg:col-span-2">{form}</div>
        <div className="lg:col-span-3">
          {result ?? (
            <div className="flex h-full min-h-48 items-center justify-center rounded-xl border border-dashed border-slate-300 bg-slate-50 p-6 text-center text-slate-700">
              <p>Correct the highlighted fields to see your results.</p>
            </div>
          )}
        </div>
      </div>

      {details ? <div className="space-y-6 border-t border-slate-100 p-4 sm:p-8">{details}</div> : null}
    </section>
  );
}

/**
 * A calculator's form: a GET to the calculators page (so it works without JavaScript and the
 * figures are in the URL), with the other calculator's values carried along as hidden fields.
 */
export function CalculatorForm({
  id,
  formRef,
  onSubmit,
  carry,
  children,
}: {
  id: string;
  formRef: React.Ref<HTMLFormElement>;
  onSubmit: React.FormEventHandler<HTMLFormElement>;
  carry: Record<string, string>;
  children: React.ReactNode;
}) {
  return (
    <Form
      ref={formRef}
      method="get"
      action={`/calculators#${id}`}
      preventScrollReset
      noValidate
      onSubmit={onSubmit}
      aria-labelledby={`${id}-heading`}
      className="space-y-5"
    >
      {children}
      {Object.entries(carry).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} readOnly />
      ))}
      <Button type="submit" variant="secondary" className="w-full">
        Calculate
      </Button>
    </Form>
  );
}

/**
 * A table of money figures: the first column names the row (year or payment), the rest are
 * amounts in cents; an optional total row at the foot.
 */
export function FiguresTable({
  label,
  caption,
  columns,
  rows,
  total,
  maxHeightClass,
}: {
  label: string;
  caption: string;
  columns: string[];
  rows: { key: string | number; cells: [string | number, ...number[]] }[];
  total?: number[];
  maxHeightClass?: string;
}) {
  return (
    <ScrollTable label={label} maxHeightClass={maxHeightClass}>
      <table className={tableClass}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className={thClass}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map(({ key, cells: [name, ...amounts] }) => (
            <tr key={key}>
              <th scope="row" className={`${tdClass} font-medium`}>
                {name}
              </th>
              {amounts.map((cents, i) => (
                <td key={i} className={tdClass}>
                  {formatCents(cents)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        {total ? (
          <tfoot className="border-t-2 border-slate-200 bg-slate-50 font-semibold">
            <tr>
              <th scope="row" className={tdClass}>
                Total
              </th>
              {total.map((cents, i) => (
                <td key={i} className={tdClass}>
                  {formatCents(cents)}
                </td>
              ))}
            </tr>
          </tfoot>
        ) : null}
      </table>
    </ScrollTable>
  );
}
