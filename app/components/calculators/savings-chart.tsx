import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import type { SavingsGrowth } from "~/domain/loan-math";
import { formatCompactDollars, formatDollars, niceTicks } from "./format";

/** Deposits and dividends to date at the end of each year, stacked to the balance (lazy-loaded). */
export default function SavingsChart({ growth }: { growth: SavingsGrowth }) {
  const yTicks = niceTicks(growth.final_balance_cents);
  const data = growth.years.map((y) => ({
    year: y.year,
    deposits: y.total_deposits_cents,
    dividends: y.total_dividends_cents,
    balance: y.balance_cents,
  }));
  return (
    <BarChart
      data={data}
      responsive
      accessibilityLayer={false}
      style={{ width: "100%", height: "100%" }}
      margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
    >
      <CartesianGrid stroke="var(--color-slate-200)" vertical={false} />
      <XAxis
        dataKey="year"
        tickFormatter={(y: number) => `Yr ${y}`}
        tick={{ fill: "var(--color-slate-600)", fontSize: 12 }}
        stroke="var(--color-slate-300)"
      />
      <YAxis
        ticks={yTicks}
        domain={[0, yTicks[yTicks.length - 1]!]}
        tickFormatter={(c: number) => formatCompactDollars(c)}
        tick={{ fill: "var(--color-slate-600)", fontSize: 12 }}
        stroke="var(--color-slate-300)"
        width={64}
      />
      <Tooltip
        isAnimationActive={false}
        cursor={{ fill: "var(--color-slate-100)" }}
        content={({ active, payload }) => {
          const point = active ? (payload?.[0]?.payload as (typeof data)[number] | undefined) : undefined;
          if (!point) return null;
          return (
            <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm shadow-lg">
              <p className="font-semibold text-slate-900">End of year {point.year}</p>
              <p className="tabular text-slate-700">Balance {formatDollars(point.balance)}</p>
              <p className="tabular text-slate-700">Deposits {formatDollars(point.deposits)}</p>
              <p className="tabular text-slate-700">Dividends {formatDollars(point.dividends)}</p>
            </div>
          );
        }}
      />
      <Bar
        dataKey="deposits"
        name="Deposits"
        stackId="balance"
        fill="var(--color-brand-700)"
        isAnimationActive={false}
      />
      <Bar
        dataKey="dividends"
        name="Dividends"
        stackId="balance"
        fill="var(--color-accent-600)"
        radius={[3, 3, 0, 0]}
        isAnimationActive={false}
      />
    </BarChart>
  );
}
