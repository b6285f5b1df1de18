import { formatCents } from "~/domain/money";

/** "$25k", "$1.2M": short amounts for chart axes only (tables and figures show exact cents). */
export function formatCompactDollars(amount_cents: number): string {
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: "USD",
    notation: "compact",
    maximumFractionDigits: 1,
  }).format(amount_cents / 100);
}

/** Whole dollars with cents only when there are some, for chart tooltips. */
export function formatDollars(amount_cents: number): string {
  return formatCents(amount_cents);
}

/** 60 -> "5 years"; 18 -> "1 year 6 months"; 1 -> "1 month". */
export function formatMonths(months: number): string {
  const years = Math.floor(months / 12);
  const rest = months % 12;
  const parts = [
    years ? `${years} ${years === 1 ? "year" : "years"}` : "",
    rest ? `${rest} ${rest === 1 ? "month" : "months"}` : "",
  ];
  return parts.filter(Boolean).join(" ");
}

/**
 * Round axis ticks from 0 to at least `max_cents`: 4 to 6 steps of 1, 2, 2.5 or 5 times a power
 * of ten dollars, so the axis reads $0, $5K, $10K... rather than $6.5K steps.
 */
export function niceTicks(max_cents: number): number[] {
  if (max_cents <= 0) return [0];
  const rough = max_cents / 5;
  const power = Math.pow(10, Math.floor(Math.log10(rough)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough)!;
  const ticks: number[] = [];
  for (let t = 0; t < max_cents + step && ticks.length <= 7; t += step) ticks.push(Math.round(t));
  return ticks;
}
