/** Display formats for marketing figures (all from the institution profile). */
const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function decimalsOf(value: number): number {
  if (Number.isInteger(value)) return 0;
  return Math.min(2, (String(value).split(".")[1] ?? "").length);
}

// Making an Intl.NumberFormat is far dearer than using one: one per number of decimals (0-2).
const fixed = new Map<number, Intl.NumberFormat>([[0, whole]]);
// The figures come from the institution profile and repeat on every page view: remember a few.
const written = new Map<string, string>();

export function formatNumber(value: number, decimals = decimalsOf(value)): string {
  const key = `${decimals}:${value}`;
  const known = written.get(key);
  if (known !== undefined) return known;
  let format = fixed.get(decimals);
  if (!format) {
    format = new Intl.NumberFormat("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    fixed.set(decimals, format);
  }
  const text = format.format(value);
  if (written.size < 256) written.set(key, text);
  return text;
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
