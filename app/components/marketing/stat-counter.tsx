import { useEffect, useRef, useState } from "react";
import { formatFigure, type Figure } from "./format";
import { cardClass } from "./section";

/** One tick every 20 ms (docs/product.md#about); 100 ticks make a two-second count. */
const TICK_MS = 20;
const TICKS = 100;

export type Stat = Figure & { id: string; label: string };

const easeOut = (t: number) => 1 - (1 - t) ** 3;

/**
 * Figures that count up from zero when they come into view. The server renders the final
 * values, so the page is complete without JavaScript and for screen readers; the count is only
 * visual (aria-hidden while it runs, with the final value beside it for assistive technology),
 * and it does not run at all when the visitor prefers reduced motion.
 */
export function StatCounter({ stats }: { stats: Stat[] }) {
  const ref = useRef<HTMLDListElement>(null);
  // null: show the final values (server render, reduced motion, animation finished).
  const [tick, setTick] = useState<number | null>(null);

  useEffect(() => {
    const element = ref.current;
    if (!element || window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    let timer: number | undefined;
    const start = () => {
      let count = 0;
      setTick(0);
      timer = window.setInterval(() => {
        count += 1;
        if (count >= TICKS) {
          window.clearInterval(timer);
          setTick(null);
        } else {
          setTick(count);
        }
      }, TICK_MS);
    };
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          start();
        }
      },
      { threshold: 0.25 },
    );
    observer.observe(element);
    return () => {
      observer.disconnect();
      window.clearInterval(timer);
    };
  }, []);

  const animating = tick !== null;
  return (
    <dl ref={ref} className="grid grid-cols-2 gap-4 sm:gap-6 lg:grid-cols-4">
      {stats.map((stat) => {
        const final = formatFigure(stat);
        const shown = animating ? formatFigure(stat, stat.value * easeOut(tick / TICKS)) : final;
        return (
          <div key={stat.id} className={`flex flex-col-reverse p-4 text-center sm:p-8 ${cardClass}`}>
            <dt className="mt-2 text-sm font-medium text-slate-600 sm:text-base">{stat.label}</dt>
            <dd className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-4xl" data-stat={stat.id}>
              <span className="tabular" aria-hidden={animating || undefined}>
                {shown}
              </span>
              {animating ? <span className="sr-only">{final}</span> : null}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
