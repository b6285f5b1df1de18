import type { ClockState } from "~/domain/disputes";
import { CLOCK_STATE_LABELS } from "~/domain/disputes";
import { formatBusinessDate } from "~/domain/calendar-date";
import { cx } from "~/components/ui/field-styles";

const STYLES: Record<ClockState, string> = {
  overdue: "bg-red-50 text-red-800 ring-red-300",
  due_today: "bg-amber-50 text-amber-950 ring-amber-300",
  due_soon: "bg-amber-50 text-amber-950 ring-amber-200",
  on_track: "bg-slate-50 text-slate-800 ring-slate-200",
};

/** A case's next deadline: the date, how it stands (overdue in red, in words too) and the rule beside it. */
export function DisputeClock({
  deadline,
}: {
  deadline: { due_on: string; what: string; rule: string; state: ClockState } | null;
}) {
  if (!deadline) return <span className="text-sm text-slate-600">No deadline: resolved</span>;
  return (
    <span className={cx("inline-block rounded-lg px-2.5 py-1.5 text-xs ring-1", STYLES[deadline.state])}>
      <span className="block font-semibold">
        {CLOCK_STATE_LABELS[deadline.state]} · {formatBusinessDate(deadline.due_on)}
      </span>
      <span className="block">{deadline.what}</span>
      <span className="block opacity-80">{deadline.rule}</span>
    </span>
  );
}
