import { SiteLink, type SitePath } from "~/components/site/site-link";
import { ArrowRight, ChartLine } from "~/components/site/icons";
import type { Institution } from "~/config/institution";
import { IconTile } from "./section";

/**
 * What the market overview (market-overview.tsx) and its lazily loaded tabs (market-tabs.tsx)
 * share: the markets, the tabs' look, the frame's source and boxes, the fallback card. In a file
 * of its own so the tabs' chunk imports it instead of the panel that loads the tabs (no cycle).
 */

export type MarketWidgetConfig = Institution["market_widget"];

export const MARKETS = [
  { id: "sp500", label: "S&P 500" },
  { id: "us100", label: "US 100" },
  { id: "eurusd", label: "EUR/USD" },
  { id: "bitcoin", label: "Bitcoin" },
] as const;
export type Market = (typeof MARKETS)[number];

/** The widget is on but its frame did not load. */
export function MarketFallback() {
  return (
    <div className="mt-6" data-testid="market-fallback">
      <div className="flex items-start gap-4">
        <IconTile icon={ChartLine} tone="brand" />
        <div>
          <p className="font-semibold text-slate-900">The market overview could not load right now.</p>
          <p className="mt-2 text-sm leading-relaxed text-slate-600">
            It shows 12-month charts for the S&amp;P 500, US 100, EUR/USD and Bitcoin from a market-data provider. We
            never show market figures of our own.
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

function FallbackLink({ to, children }: { to: SitePath; children: React.ReactNode }) {
  return (
    <SiteLink
      to={to}
      className="group flex items-center justify-between gap-2 rounded-xl bg-slate-50 px-4 py-3 text-sm font-semibold text-brand-700 ring-1 ring-inset ring-slate-200 hover:bg-brand-50 hover:text-brand-900"
    >
      {children}
      <ArrowRight className="size-4 transition-transform group-hover:translate-x-0.5" aria-hidden="true" />
    </SiteLink>
  );
}

/** The tabs' look, shared by the static markup below and the React Aria tabs (market-tabs.tsx). */
export const tabListClass = "grid grid-cols-4 gap-1 rounded-xl bg-slate-100 p-1";
export const tabClass =
  "cursor-pointer rounded-lg px-2 py-2 text-center text-xs font-semibold text-slate-700 transition-colors hover:text-brand-800 data-[selected]:bg-white data-[selected]:text-brand-800 data-[selected]:shadow-sm sm:text-sm";
export const tabPanelClass = "mt-4 rounded-xl";

export function marketFrameSource(url: string, widget: MarketWidgetConfig, market: Market) {
  const src = new URL(url);
  src.searchParams.set(widget.symbol_param, widget.symbols[market.id]);
  return { src: src.toString(), title: `${market.label}, 12-month chart from our market-data provider` };
}

/** The frame's box before it loads (also the whole panel until the tabs' code is there). */
export function FramePlaceholder({ children }: { children?: React.ReactNode }) {
  return <div className="relative h-72 overflow-hidden rounded-xl border border-slate-200 bg-slate-50">{children}</div>;
}

export function FrameLoading() {
  return (
    <p className="absolute inset-0 flex items-center justify-center text-sm text-slate-600" aria-live="polite">
      Loading the market overview…
    </p>
  );
}

export interface LiveMarketsProps {
  url: string;
  widget: MarketWidgetConfig;
}
