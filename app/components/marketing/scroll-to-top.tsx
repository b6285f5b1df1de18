import { useEffect, useState } from "react";
import { ArrowUp } from "~/components/site/icons";

/** The button appears after 300 px of scrolling (docs/product.md#home). */
const THRESHOLD_PX = 300;

/**
 * A "back to top" button: a JavaScript enhancement, so the server renders nothing and the button
 * appears only once the visitor has scrolled. Focus moves to the top of the page with the scroll
 * so keyboard users do not lose their place when the button disappears.
 */
export function ScrollToTop() {
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    let frame = 0;
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setVisible(window.scrollY > THRESHOLD_PX));
    };
    update();
    window.addEventListener("scroll", update, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("scroll", update);
    };
  }, []);

  if (!visible) return null;

  const toTop = () => {
    const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    window.scrollTo({ top: 0, behavior: reduce ? "auto" : "smooth" });
    document.getElementById("main")?.focus({ preventScroll: true });
  };

  return (
    <button
      type="button"
      onClick={toTop}
      aria-label="Back to top"
      className="fixed bottom-6 right-6 z-30 inline-flex size-12 items-center justify-center rounded-full bg-brand-700 text-white shadow-lg ring-1 ring-white/20 transition hover:bg-brand-800"
    >
      <ArrowUp className="size-5" aria-hidden="true" />
    </button>
  );
}
