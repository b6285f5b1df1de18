import { useEffect, useState } from "react";
import { Tab, TabList, TabPanel, Tabs } from "react-aria-components";
import {
  FrameLoading,
  FramePlaceholder,
  MARKETS,
  MarketFallback,
  marketFrameSource,
  tabClass,
  tabListClass,
  tabPanelClass,
  type LiveMarketsProps,
} from "./market-parts";

/** How long the third-party frame may take before we show the fallback instead. */
const LOAD_TIMEOUT_MS = 10_000;

/**
 * The market tabs with React Aria (arrow keys, Home/End, focus ring on keyboard focus) and the
 * sandboxed frames. Its own chunk, loaded by market-overview.tsx only when the widget is on.
 */
export function MarketTabs({ url, widget }: LiveMarketsProps) {
  return (
    <Tabs className="mt-6" defaultSelectedKey="sp500">
      <TabList aria-label="Market" className={tabListClass}>
        {MARKETS.map((market) => (
          <Tab key={market.id} id={market.id} className={tabClass}>
            {market.label}
          </Tab>
        ))}
      </TabList>
      {MARKETS.map((market) => (
        <TabPanel key={market.id} id={market.id} className={tabPanelClass}>
          <WidgetFrame {...marketFrameSource(url, widget, market)} />
        </TabPanel>
      ))}
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
  if (state === "failed") return <MarketFallback />;
  return (
    <FramePlaceholder>
      {state !== "loaded" ? <FrameLoading /> : null}
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
    </FramePlaceholder>
  );
}
