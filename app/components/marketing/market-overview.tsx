import { useEffect, useState } from "react";
import { Link } from "react-router";
import { Tab, TabList, TabPanel, Tabs } from "react-aria-components";
import { ArrowRight, ChartLine } from "lucide-react";
import type { Institution } from "~/config/institution";
import { IconTile, cardClass } from "./section";

export type MarketWidgetConfig = Institution["market_widget"];

const MARKETS = [
  { id: "sp500", label: "S&P 500" },
  { id: "us100", label: "US 100" },
  { id: "eurusd", label: "EUR/USD" },
  { id: "bitcoin", label: "Bitcoin" },
] as const;

/** How long the third-party frame may take before we show the fallback instead. */
const LOAD_TIMEOUT_MS = 10_000;

/**
 * The market-overview panel (SPEC 3 Home). The third-party widget appears only when the
 * institution enabled it (the CSP then allows its origin as a frame source), in a sandboxed
 * frame; otherwise, or when it cannot load, a plain card says so. No market figure is ever
 * produced by us.
 */
export function MarketOverview({ widget }: { widget: MarketWidgetConfig }) {
  const live = widget.enabled && widget.url ? widget.url : null;
  return (
    <section aria-labelledby="market-heading" className={`p-6 sm:p-8 ${cardClass}`}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="market-heading" className="text-lg font-semibold text-brand-800">
          Market overview
        </h2>
        <p className="text-sm text-slate-600">12-month range</p>
      </div>
      {live ? <LiveMarkets url={live} widget={widget} /> : <MarketFallback reason="off" />}
    </section>
  );
}

function MarketFallback({ reason }: { reason: "off" | "failed" }) {
  return (
    <div className="mt-6" data-testid="market-fallback">
      <div className="flex items-start gap-4">
        <IconTile icon={ChartLine} tone="brand" />
        <div>
          <p className="font-semibold text-slate-900">
            {reason === "off" ? "The live market overview is not enabled on this site." : "The market overview could not load right now."}
          </p>
          <p className="mt-2 text-sm leading-relaxed text-slate-600">
            When it is on, it shows 12-month charts for the S&amp;P 500, US 100, EUR/USD and Bitcoin from a market-data provider. We never
            show market figures of our own.
          </p>
        </div>
      </div>
      <div className="mt-6 grid gap-2 border-t border-slate-100 pt-6 sm:grid-cols-2">
        <FallbackLink to="/products/investment-solutions">Investment Solutions</FallbackLink>
        <FallbackLink to="/contact">Talk to an advisor</FallbackLink>
      </div>
    </div>
  );
}

function FallbackLink({ to, children }: { to: string; children: React.ReactNode }) {
  return (
    <Link to={to} className="group flex items-center justify-between gap-2 rounded-xl bg-slate-50 px-4 py-3 text-sm font-semibold text-brand-700 ring-1 ring-inset ring-slate-200 hover:bg-brand-50 hover:text-brand-900">
      {children}
      <ArrowRight className="size-4 transition-transform group-hover:translate-x-0.5" aria-hidden="true" />
    </Link>
  );
}

function LiveMarkets({ url, widget }: { url: string; widget: MarketWidgetConfig }) {
  return (
    <Tabs className="mt-6" defaultSelectedKey="sp500">
      <TabList aria-label="Market" className="grid grid-cols-4 gap-1 rounded-xl bg-slate-100 p-1">
        {MARKETS.map((market) => (
          <Tab
            key={market.id}
            id={market.id}
            className="cursor-pointer rounded-lg px-2 py-2 text-center text-xs font-semibold text-slate-700 outline-none transition-colors hover:text-brand-800 data-[focus-visible]:outline-2 data-[focus-visible]:outline-accent-600 data-[selected]:bg-white data-[selected]:text-brand-800 data-[selected]:shadow-sm sm:text-sm"
          >
            {market.label}
          </Tab>
        ))}
      </TabList>
      {MARKETS.map((market) => {
        const src = new URL(url);
        src.searchParams.set(widget.symbol_param, widget.symbols[market.id]);
        return (
          <TabPanel key={market.id} id={market.id} className="mt-4 rounded-xl outline-none data-[focus-visible]:outline-2 data-[focus-visible]:outline-accent-600">
            <WidgetFrame src={src.toString()} title={`${market.label}, 12-month chart from our market-data provider`} />
          </TabPanel>
        );
      })}
    </Tabs>
  );
}

/** Mounted after hydration, so its load event is never missed; falls back if it never loads. */
function WidgetFrame({ src, title }: { src: string; title: string }) {
  const [state, setState] = useState<"waiting" | "loading" | "loaded" | "failed">("waiting");
  useEffect(() => {
    const mount = requestAnimationFrame(() => setState("loading"));
    const timeout = window.setTimeout(() => setState((s) => (s === "loaded" ? s : "failed")), LOAD_TIMEOUT_MS);
    return () => {
      cancelAnimationFrame(mount);
      window.clearTimeout(timeout);
    };
  }, []);
  if (state === "failed") return <MarketFallback reason="failed" />;
  return (
    <div className="relative h-72 overflow-hidden rounded-xl border border-slate-200 bg-slate-50">
      {state !== "loaded" ? (
        <p className="absolute inset-0 flex items-center justify-center text-sm text-slate-600" aria-live="polite">
          Loading the market overview…
        </p>
      ) : null}
      {state !== "waiting" ? (
        <iframe
          src={src}
          title={title}
          sandbox="allow-scripts allow-same-origin"
          referrerPolicy="no-referrer"
          loading="lazy"
          onLoad={() => setState("loaded")}
          className="relative size-full"
        />
      ) : null}
    </div>
  );
}
