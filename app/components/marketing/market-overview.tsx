import { useEffect, useId, useState, type ComponentType } from "react";
import { useHydrated } from "~/components/ui/use-hydrated";
import { cardClass } from "./section";
import {
  FrameLoading,
  FramePlaceholder,
  MARKETS,
  tabClass,
  tabListClass,
  tabPanelClass,
  type LiveMarketsProps,
  type MarketWidgetConfig,
} from "./market-parts";

/**
 * The market-overview panel of the home hero. The third-party widget appears only when the
 * institution enabled it (the CSP then allows its origin as a frame source), in a sandboxed
 * frame; when it cannot load, a plain card says so. When it is off the hero shows the
 * institution's rates instead (rates-panel.tsx) and this panel is not drawn at all. No market
 * figure is ever produced by us.
 */
export function MarketOverview({ widget }: { widget: MarketWidgetConfig }) {
  const live = widget.enabled && widget.url ? widget.url : null;
  if (!live) return null;
  return (
    <section aria-labelledby="market-heading" className={`p-6 sm:p-8 ${cardClass}`}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="market-heading" className="text-lg font-semibold text-brand-800">
          Market overview
        </h2>
        <p className="text-sm text-slate-600">12-month range</p>
      </div>
      <LiveMarkets url={live} widget={widget} />
    </section>
  );
}

// The React Aria tabs with the frames (market-tabs.tsx): loaded after hydration, only when the
// widget is on, so the home page's JavaScript carries no tabs code by default.
let marketTabs: ComponentType<LiveMarketsProps> | null = null;
let marketTabsLoading: Promise<ComponentType<LiveMarketsProps>> | null = null;
function loadMarketTabs() {
  marketTabsLoading ??= import("./market-tabs").then((module) => (marketTabs = module.MarketTabs));
  return marketTabsLoading;
}

/**
 * The tabs as server HTML (first market selected, its frame still to load: frames mount only
 * with JavaScript), then the React Aria tabs once their code has loaded.
 */
function LiveMarkets({ url, widget }: LiveMarketsProps) {
  const hydrated = useHydrated();
  const id = useId();
  const [Tabs, setTabs] = useState<ComponentType<LiveMarketsProps> | null>(() => marketTabs);
  useEffect(() => {
    if (Tabs) return;
    let current = true;
    void loadMarketTabs().then((tabs) => {
      if (current) setTabs(() => tabs);
    });
    return () => {
      current = false;
    };
  }, [Tabs]);

  if (hydrated && Tabs) return <Tabs url={url} widget={widget} />;
  const first = MARKETS[0];
  return (
    <div className="mt-6" data-orientation="horizontal">
      <div
        role="tablist"
        aria-label="Market"
        aria-orientation="horizontal"
        data-orientation="horizontal"
        className={tabListClass}
      >
        {MARKETS.map((market) => (
          <div
            key={market.id}
            role="tab"
            id={`${id}-tab-${market.id}`}
            tabIndex={-1}
            aria-selected={market === first}
            aria-controls={market === first ? `${id}-tabpanel-${market.id}` : undefined}
            data-selected={market === first || undefined}
            className={tabClass}
          >
            {market.label}
          </div>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${id}-tabpanel-${first.id}`}
        aria-labelledby={`${id}-tab-${first.id}`}
        tabIndex={0}
        className={tabPanelClass}
      >
        <FramePlaceholder>
          <FrameLoading />
        </FramePlaceholder>
      </div>
    </div>
  );
}
