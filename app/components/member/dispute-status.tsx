import type { DisputeStatus } from "~/domain/disputes";
import { StatusBadge } from "./amount";

/** A case's status as a badge: amber while open, green when corrected, grey when no error was found. */
const BADGE: Record<DisputeStatus, string> = {
  open: "pending",
  provisionally_credited: "pending",
  reversal_scheduled: "failed",
  resolved_error: "posted",
  resolved_no_error: "reversed",
};

export function DisputeStatusBadge({ status, label }: { status: DisputeStatus; label: string }) {
  return <StatusBadge status={BADGE[status]} label={label} />;
}
