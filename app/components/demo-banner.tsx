/** Shown on every page in demo mode so nobody mistakes the demo for a real bank. */
export function DemoBanner() {
  return (
    <div role="note" className="bg-amber-100 px-4 py-2 text-center text-sm font-medium text-amber-950">
      Demo — not a real bank. Nothing here moves real money.
    </div>
  );
}

/**
 * Shown on every page of a restore drill's copy (MUTUAL_DRILL=1), so staff checking a restored
 * copy never take it for the live bank (docs/operations.md#the-restore-drill).
 */
export function DrillBanner() {
  return (
    <div role="note" className="bg-red-800 px-4 py-2 text-center text-sm font-semibold text-white">
      Restore drill copy — not the live bank. No email is sent and no scheduled job runs.
    </div>
  );
}
