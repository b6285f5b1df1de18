/** Shown on every page in demo mode so nobody mistakes the demo for a real bank. */
export function DemoBanner() {
  return (
    <div role="note" className="bg-amber-100 px-4 py-2 text-center text-sm font-medium text-amber-950">
      Demo — not a real bank. Nothing here moves real money.
    </div>
  );
}
