import { Form, useNavigation } from "react-router";
import { Button, Select } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { QUEUE_TITLES } from "~/domain/queues";
import { CREDIT_RETURN_CODES } from "~/domain/ach-credit-policy";
import { useInstitutionDates } from "~/components/institution-dates";
import { QueueSection } from "~/components/admin/queues";
import { WaitingList, itemBusy, type AsSent } from "./waiting-list";
import { ReviewClock } from "./review-clock";
import type { CreditReviewRow } from "~/server/rails/inbound-review.server";

/**
 * Incoming credits to review on /admin/queues (docs/product.md#incoming-credits-to-review): credits
 * of an inbound ACH file that met a monitoring rule, posted with their money held. Release makes
 * the money available; Return sends the credit back as R17 or R23 in the next return file.
 * Plain forms: everything works without JavaScript.
 */

export type CreditReviewListRow = AsSent<CreditReviewRow>;
export interface CreditReviewFieldError {
  review_id: number;
  message: string;
}

const RETURN_OPTIONS = [
  { value: "", label: "Choose why it goes back" },
  ...Object.entries(CREDIT_RETURN_CODES).map(([value, label]) => ({ value, label })),
];

export function CreditReviews({
  count,
  rows,
  error,
}: {
  count: number;
  rows: CreditReviewListRow[];
  error?: CreditReviewFieldError | null;
}) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  return (
    <QueueSection id="credit-reviews" title={QUEUE_TITLES.credit_reviews} count={count}>
      {rows.length > 0 ? (
        <p className="px-4 pt-3 text-sm text-slate-700 sm:px-5">
          Each credit met a monitoring rule. It has posted, but its money is held: the member sees a deposit on hold,
          never why. Release it when it is what the member expects; return it when it was sent by fraud (R17) or the
          member refuses it (R23).
        </p>
      ) : null}
      <WaitingList count={count} shown={rows.length}>
        {rows.map((r) => {
          const message = error?.review_id === r.id ? error.message : undefined;
          const what = `the credit of ${formatCents(r.amount_cents)} from ${r.company_name} to ${r.account}`;
          return (
            <li
              key={r.id}
              className="grid gap-x-6 gap-y-3 px-4 py-4 sm:px-5 lg:grid-cols-[minmax(0,1.3fr)_minmax(0,1.6fr)_auto_minmax(0,1fr)] lg:items-start"
              data-testid="credit-review"
            >
              <div className="min-w-0">
                <p className="font-semibold text-slate-900">
                  {r.company_name} {r.entry_description}{" "}
                  <span className="font-normal text-slate-700">to {r.individual_name || "(no name)"}</span>
                </p>
                <p className="text-sm break-words text-slate-700">
                  {r.sec_code} credit · {r.account} · trace <span className="font-mono text-xs">{r.trace_number}</span>
                </p>
                <p className="text-sm break-words text-slate-700">
                  {r.file_name} line {r.line} · <time dateTime={r.received_at}>{formatDateTime(r.received_at)}</time>
                </p>
                <div className="mt-2">
                  <ReviewClock deadline={r.deadline} />
                </div>
              </div>
              <ul className="min-w-0 space-y-1 text-sm text-slate-900" aria-label="Why it is held">
                {r.reasons.map((reason) => (
                  <li key={reason.rule}>
                    <span className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900">
                      {RULE_LABELS[reason.rule] ?? reason.rule}
                    </span>{" "}
                    {reason.detail}
                  </li>
                ))}
              </ul>
              <p className="text-base font-semibold text-slate-900 tabular-nums lg:text-right">
                {formatCents(r.amount_cents)}
              </p>
              <div className="flex flex-col gap-3">
                <Form method="post">
                  <input type="hidden" name="review_id" value={r.id} />
                  <Button
                    type="submit"
                    name="intent"
                    value="ach_credit_release"
                    variant="secondary"
                    className="w-full"
                    aria-label={`Release ${what}`}
                    isPending={itemBusy(navigation, "ach_credit_release", "review_id", r.id)}
                    pendingLabel="Releasing…"
                  >
                    Release
                  </Button>
                </Form>
                <Form method="post" className="flex flex-col gap-2">
                  <input type="hidden" name="review_id" value={r.id} />
                  <Select
                    id={`credit-review-${r.id}-code`}
                    name="return_code"
                    label="Return reason"
                    options={RETURN_OPTIONS}
                    defaultValue=""
                    error={message}
                  />
                  <Button
                    type="submit"
                    name="intent"
                    value="ach_credit_return"
                    variant="secondary"
                    className="w-full"
                    aria-label={`Return ${what}`}
                    isPending={itemBusy(navigation, "ach_credit_return", "review_id", r.id)}
                    pendingLabel="Returning…"
                  >
                    Return
                  </Button>
                </Form>
              </div>
            </li>
          );
        })}
      </WaitingList>
    </QueueSection>
  );
}

const RULE_LABELS: Record<string, string> = {
  name_mismatch: "Name",
  new_account: "New account",
  velocity: "Many originators",
  recent_change: "Recent change",
  recently_unfrozen: "Recently unfrozen",
};
