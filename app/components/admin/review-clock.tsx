import type { ReviewDeadline } from "~/domain/review-deadlines";
import { ageLabel } from "~/domain/review-deadlines";
import { DisputeClock } from "./dispute-clock";

/**
 * A compliance queue item's deadline (docs/product.md#review-deadlines), drawn as the disputes'
 * clock is: how it stands (overdue in red, in words too) and the due date, how long it has
 * waited, and the policy beside it.
 */
export function ReviewClock({ deadline }: { deadline: ReviewDeadline }) {
  return (
    <DisputeClock
      deadline={{
        due_on: deadline.due_on,
        state: deadline.state,
        rule: deadline.rule,
        what: deadline.age_days === 0 ? "Arrived today" : `Waiting ${ageLabel(deadline.age_days)}`,
      }}
    />
  );
}
