import type { useNavigation } from "react-router";

/** What the page receives of the server's rows: the same fields, dates as the ISO text they travel as. */
export type AsSent<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };

/** Whether the form of one item (its id in the hidden field `field`) with this intent is being sent. */
export function itemBusy(
  navigation: ReturnType<typeof useNavigation>,
  intent: string,
  field: string,
  id: number,
): boolean {
  const form = navigation.formData;
  return navigation.state !== "idle" && form?.get("intent") === intent && form.get(field) === String(id);
}

/**
 * The items of one queue on /admin/queues: "Nothing is waiting." when there are none, otherwise
 * the items the page loaded (the oldest first) and, when more are waiting than it loaded, a line
 * saying how many of how many are shown, so staff never take the list for the whole queue.
 */
export function WaitingList({ count, shown, children }: { count: number; shown: number; children: React.ReactNode }) {
  if (shown === 0) return <p className="px-5 py-8 text-center text-sm text-slate-700">Nothing is waiting.</p>;
  return (
    <>
      {count > shown ? (
        <p className="px-5 pt-3 text-sm text-slate-700">
          The oldest {shown} of {count} are shown.
        </p>
      ) : null}
      <ul className="divide-y divide-slate-100">{children}</ul>
    </>
  );
}
