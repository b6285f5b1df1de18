import { Suspense, useEffect, useRef, useState } from "react";

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
 * only in the browser (it measures its container), and only once it comes near the screen: the
 * chart library is the largest script of the site, and a phone that never scrolls to the chart
 * does not download or run it. Until then, and on the server, a placeholder of the same size, so
 * nothing jumps.
 */
export function ChartFrame({
  caption,
  legend,
  height = 288,
  children,
}: {
  caption: string;
  legend: LegendItem[];
  height?: number;
  children: React.ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const nearScreen = useNearScreen(box);
  const placeholder = (
    <div className="h-full w-full animate-pulse rounded-lg bg-slate-100 motion-reduce:animate-none" />
  );
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
      <div ref={box} className="mt-4 w-full" style={{ height }} aria-hidden="true">
        {nearScreen ? <Suspense fallback={placeholder}>{children}</Suspense> : placeholder}
      </div>
    </figure>
  );
}

/** False on the server and until `element` is within 200 px of the viewport; then true for good. */
function useNearScreen(element: React.RefObject<HTMLElement | null>): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const target = element.current;
    if (!target || near) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        setNear(true);
        observer.disconnect();
      },
      { rootMargin: "200px 0px" },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [element, near]);
  return near;
}
