import { Form, useNavigation } from "react-router";
import { Check } from "lucide-react";
import { Button, TextField } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { QUEUE_TITLES } from "~/domain/queues";
import { useInstitutionDates } from "~/components/institution-dates";
import type { ChangeItem } from "~/server/rails/inbound-noc.server";
import { QueueSection } from "./queues";
import { itemBusy, WaitingList, type AsSent } from "./waiting-list";

/**
 * "Notifications of change" on /admin/queues (docs/product.md#ach-in): what the banks that
 * received our ACH payments told us to change (account number, routing number, name...), with the
 * member and the payment each names. Apply corrects the member's transfers still waiting to go to
 * that destination; Mark as handled records what staff did instead (its note is required). One
 * naming no payment of ours is shown as unmatched. Plain forms: everything works without JavaScript.
 */
export type ChangeRow = AsSent<ChangeItem>;

/** A refused Mark as handled: its message goes next to that notification's note field. */
export interface ChangeFieldError {
  noc_id: number;
  message: string;
}

const busy = (navigation: ReturnType<typeof useNavigation>, intent: string, id: number) =>
  itemBusy(navigation, intent, "noc_id", id);

export function NotificationsOfChange({
  count,
  rows,
  error,
}: {
  count: number;
  rows: ChangeRow[];
  error?: ChangeFieldError | null;
}) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  return (
    <QueueSection id="changes" title={QUEUE_TITLES.changes} count={count}>
      <WaitingList count={count} shown={rows.length}>
        {rows.map((r) => {
          const noteId = `noc-note-${r.id}`;
          const message = error?.noc_id === r.id ? error.message : null;
          return (
            <li
              key={r.id}
              className="grid gap-x-6 gap-y-3 px-4 py-4 sm:px-5 md:grid-cols-[minmax(0,1.3fr)_minmax(0,1.5fr)]"
              data-testid="change-item"
            >
              <div className="min-w-0">
                <p className="font-semibold text-slate-900">
                  {r.matched ? (r.member_name ?? r.member_email ?? "Member") : "No payment of ours matches"}
                </p>
                {r.matched ? (
                  <p className="text-sm break-words text-slate-700">
                    {r.member_email} · paid {r.amount_cents === null ? "" : formatCents(r.amount_cents)} to {r.payee}
                  </p>
                ) : (
                  <p className="text-sm text-slate-700">
                    Look into it: the original trace number names no ACH payment we sent.
                  </p>
                )}
                <p className="text-sm break-words text-slate-700">
                  Our trace <span className="font-mono text-xs">{r.original_trace_number}</span> · {r.file_name} line{" "}
                  {r.line} · <time dateTime={r.received_at}>{formatDateTime(r.received_at)}</time>
                </p>
              </div>
              <div className="min-w-0">
                <p className="text-sm text-slate-900">
                  <span
                    className={`mr-2 rounded-full px-2 py-0.5 text-xs font-semibold ${r.matched ? "bg-sky-100 text-sky-900" : "bg-amber-100 text-amber-900"}`}
                  >
                    {r.change_code}
                  </span>
                  {r.reason}
                </p>
                <ul className="mt-1 list-disc pl-5 text-sm break-words text-slate-800">
                  {r.changes.map((c) => (
                    <li key={c}>{c}</li>
                  ))}
                </ul>
              </div>
              <div className="flex flex-wrap items-start gap-3 md:col-span-2">
                {r.applicable ? (
                  <Form method="post">
                    <input type="hidden" name="noc_id" value={r.id} />
                    <Button
                      type="submit"
                      name="intent"
                      value="ach_noc_apply"
                      aria-label={`Apply change ${r.change_code} for ${r.member_email ?? "the member"}`}
                      isPending={busy(navigation, "ach_noc_apply", r.id)}
                      pendingLabel="Applying…"
                    >
                      <Check className="size-4" aria-hidden="true" /> Apply to waiting transfers
                    </Button>
                  </Form>
                ) : null}
                <Form method="post" className="flex min-w-0 flex-1 basis-64 flex-wrap items-end gap-3">
                  <input type="hidden" name="noc_id" value={r.id} />
                  <TextField
                    id={noteId}
                    label="What was done"
                    name="note"
                    maxLength={500}
                    error={message ?? undefined}
                    className="min-w-0 flex-1 basis-56"
                  />
                  <Button
                    type="submit"
                    name="intent"
                    value="ach_noc_handled"
                    variant="secondary"
                    isPending={busy(navigation, "ach_noc_handled", r.id)}
                    pendingLabel="Saving…"
                  >
                    Mark as handled
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
