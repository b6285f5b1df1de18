/** Display formats for marketing figures (all from the institution profile). */
const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function decimalsOf(value: number): number {
  if (Number.isInteger(value)) return 0;
  return Math.min(2, (String(value).split(".")[1] ?? "").length);
}

export function formatNumber(value: number, decimals = decimalsOf(value)): string {
  if (decimals === 0) return whole.format(value);
  return new Intl.NumberFormat("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(value);
}

/** 2500 -> "$2,500M"; 4.5 -> "$4.5M". */
export function formatMillions(millions: number): string {
  return `$${formatNumber(millions)}M`;
}

/** A figure with its prefix and suffix, e.g. "$", 2500, "M". */
export type Figure = { value: number; prefix?: string; suffix?: string };

export function formatFigure(figure: Figure, value = figure.value): string {
  return `${figure.prefix ?? ""}${formatNumber(value, decimalsOf(figure.value))}${figure.suffix ?? ""}`;
}
