import { Cell, Pie, PieChart, ResponsiveContainer, Tooltip } from "recharts";
import { formatCents } from "~/domain/money";
import { useHydrated } from "~/components/ui/use-hydrated";

/** Category colours: theme-independent but distinct; the legend carries names and amounts as text. */
export const CATEGORY_COLOURS = [
  "#0b2545",
  "#0f766e",
  "#b45309",
  "#7c3aed",
  "#be123c",
  "#0369a1",
  "#4d7c0f",
  "#64748b",
  "#a16207",
  "#1d4ed8",
];

export interface CategoryAmount {
  category: string;
  amount_cents: number;
}

/**
 * Spending by category, last 30 days (docs/product.md#dashboard): a donut drawn in the browser
 * (decorative for assistive technology), beside a list with every figure as text, which is what
 * screen readers read and what shows before JavaScript.
 */
export function SpendingChart({ categories, total_cents }: { categories: CategoryAmount[]; total_cents: number }) {
  const hydrated = useHydrated();
  if (categories.length === 0) {
    return <p className="py-10 text-center text-sm text-slate-600">No spending in the last 30 days.</p>;
  }
  return (
    // A container query, not a viewport one: in the dashboard's narrow side column (1024-1440 px
    // wide screens) the donut sits above the list so the amounts keep their full width.
    <div className="@container">
      <div className="grid items-center gap-6 @md:grid-cols-[11rem_minmax(0,1fr)]">
        <div className="relative mx-auto size-44" aria-hidden="true" inert>
          {hydrated ? (
            <ResponsiveContainer width="100%" height="100%">
              <PieChart accessibilityLayer={false} tabIndex={-1}>
                <Pie
                  data={categories}
                  dataKey="amount_cents"
                  nameKey="category"
                  innerRadius="68%"
                  outerRadius="100%"
                  paddingAngle={1.5}
                  stroke="none"
                  isAnimationActive={false}
                >
                  {categories.map((c, i) => (
                    <Cell key={c.category} fill={CATEGORY_COLOURS[i % CATEGORY_COLOURS.length]} />
                  ))}
                </Pie>
                <Tooltip formatter={(value) => formatCents(Number(value))} />
              </PieChart>
            </ResponsiveContainer>
          ) : (
            <div className="size-full rounded-full border-[14px] border-slate-100" />
          )}
          <div className="pointer-events-none absolute inset-0 flex flex-col items-center justify-center">
            <span className="text-xs text-slate-600">Total</span>
            <span
              className={`${formatCents(total_cents).length > 10 ? "text-sm" : "text-base"} font-semibold tabular-nums text-slate-900`}
            >
              {formatCents(total_cents)}
            </span>
          </div>
        </div>
        <ul className="space-y-2" aria-label="Spending by category, last 30 days">
          {categories.map((c, i) => {
            const percent = total_cents > 0 ? Math.round((c.amount_cents / total_cents) * 100) : 0;
            return (
              <li key={c.category} className="flex items-center gap-3 text-sm">
                <span
                  className="size-3 shrink-0 rounded-sm"
                  style={{ backgroundColor: CATEGORY_COLOURS[i % CATEGORY_COLOURS.length] }}
                  aria-hidden="true"
                />
                <span className="min-w-0 flex-1 break-words text-slate-800">{c.category}</span>
                <span className="w-10 shrink-0 text-right text-xs tabular-nums text-slate-600">{percent}%</span>
                <span className="min-w-24 shrink-0 text-right font-semibold whitespace-nowrap tabular-nums text-slate-900">
                  {formatCents(c.amount_cents)}
                </span>
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}
