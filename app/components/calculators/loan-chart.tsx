import { Area, AreaChart, CartesianGrid, Line, Tooltip, XAxis, YAxis } from "recharts";
import type { LoanSchedule } from "~/domain/loan-math";
import { formatCompactDollars, formatDollars, niceTicks } from "./format";

interface Point {
  month: number;
  balance_cents: number;
  principal_paid_cents: number;
  interest_paid_cents: number;
}

function points(principal_cents: number, schedule: LoanSchedule): Point[] {
  const out: Point[] = [{ month: 0, balance_cents: principal_cents, principal_paid_cents: 0, interest_paid_cents: 0 }];
  let principal_paid_cents = 0;
  let interest_paid_cents = 0;
  for (const p of schedule.payments) {
    principal_paid_cents += p.principal_cents;
    interest_paid_cents += p.interest_cents;
    out.push({ month: p.month, balance_cents: p.balance_cents, principal_paid_cents, interest_paid_cents });
  }
  return out;
}

function ticks(months: number): number[] {
  const step = months <= 24 ? 6 : months <= 120 ? 12 : months <= 240 ? 36 : 60;
  const out: number[] = [];
  for (let m = 0; m <= months; m += step) out.push(m);
  return out;
}

function monthLabel(month: number, months: number): string {
  if (month === 0) return "Start";
  return months <= 24 ? `Mo ${month}` : `Yr ${Math.round(month / 12)}`;
}

/** Balance, principal repaid and interest paid over the life of the loan (lazy-loaded: Recharts is large). */
export default function LoanChart({ principal_cents, schedule }: { principal_cents: number; schedule: LoanSchedule }) {
  const data = points(principal_cents, schedule);
  const months = schedule.payments.length;
  const yTicks = niceTicks(Math.max(principal_cents, schedule.total_paid_cents - principal_cents));
  return (
    <AreaChart
      data={data}
      responsive
      accessibilityLayer={false}
      style={{ width: "100%", height: "100%" }}
      margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
    >
      <CartesianGrid stroke="var(--color-slate-200)" vertical={false} />
      <XAxis
        dataKey="month"
        type="number"
        domain={[0, months]}
        ticks={ticks(months)}
        tickFormatter={(m: number) => monthLabel(m, months)}
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
        content={({ active, payload }) => {
          const point = active ? (payload?.[0]?.payload as Point | undefined) : undefined;
          if (!point) return null;
          return (
            <div className="rounded-lg border border-slate-200 bg-white px-3 py-2 text-sm shadow-lg">
              <p className="font-semibold text-slate-900">
                {point.month === 0 ? "At the start" : `After payment ${point.month}`}
              </p>
              <p className="tabular text-slate-700">Balance {formatDollars(point.balance_cents)}</p>
              <p className="tabular text-slate-700">Principal repaid {formatDollars(point.principal_paid_cents)}</p>
              <p className="tabular text-slate-700">Interest paid {formatDollars(point.interest_paid_cents)}</p>
            </div>
          );
        }}
      />
      <Area
        type="monotone"
        dataKey="balance_cents"
        name="Balance"
        stroke="var(--color-brand-700)"
        strokeWidth={2}
        fill="var(--color-brand-100)"
        isAnimationActive={false}
      />
      <Line
        type="monotone"
        dataKey="principal_paid_cents"
        name="Principal repaid"
        stroke="var(--color-accent-600)"
        strokeWidth={2.5}
        dot={false}
        isAnimationActive={false}
      />
      <Line
        type="monotone"
        dataKey="interest_paid_cents"
        name="Interest paid"
        stroke="var(--color-brand-500)"
        strokeWidth={2.5}
        strokeDasharray="6 4"
        dot={false}
        isAnimationActive={false}
      />
    </AreaChart>
  );
}
