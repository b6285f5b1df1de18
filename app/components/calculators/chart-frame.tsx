import { Suspense } from "react";
import { useHydrated } from "./use-hydrated";

export interface LegendItem {
  label: string;
  /** A Tailwind background class from the theme tokens, e.g. "bg-brand-700". */
  swatchClass: string;
  /** Dashed series get a dashed swatch, so the legend does not rely on colour alone. */
  dashed?: boolean;
}

/**
 * A chart with its caption and legend. The drawing itself is decorative for assistive
 * technology (aria-hidden): the caption points to the table with the same figures. It is drawn
 * only in the browser (it measures its container); the server sends a placeholder of the same
 * size so nothing jumps.
 */
export function ChartFrame({ caption, legend, height = 288, children }: { caption: string; legend: LegendItem[]; height?: number; children: React.ReactNode }) {
  const hydrated = useHydrated();
  const placeholder = <div className="h-full w-full animate-pulse rounded-lg bg-slate-100 motion-reduce:animate-none" />;
  return (
    <figure className="rounded-xl border border-slate-200 bg-white p-3 sm:p-6">
      <figcaption className="text-sm text-slate-700">{caption}</figcaption>
      <ul className="mt-3 flex flex-wrap gap-x-5 gap-y-2 text-sm text-slate-700" aria-hidden="true">
        {legend.map((item) => (
          <li key={item.label} className="flex items-center gap-2">
            {item.dashed ? (
              <span className="flex w-5 gap-0.5">
                <span className={`h-1 w-1.5 rounded-full ${item.swatchClass}`} />
                <span className={`h-1 w-1.5 rounded-full ${item.swatchClass}`} />
                <span className={`h-1 w-1.5 rounded-full ${item.swatchClass}`} />
              </span>
            ) : (
              <span className={`h-3 w-5 rounded-sm ${item.swatchClass}`} />
            )}
            {item.label}
          </li>
        ))}
      </ul>
      <div className="mt-4 w-full" style={{ height }} aria-hidden="true">
        {hydrated ? <Suspense fallback={placeholder}>{children}</Suspense> : placeholder}
      </div>
    </figure>
  );
}
