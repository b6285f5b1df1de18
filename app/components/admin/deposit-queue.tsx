import { Form, useNavigation } from "react-router";
import { AlertTriangle, Check, X } from "lucide-react";
import { Button, Select, TextField } from "~/components/ui";
import { HOLD_EXCEPTION_RULES, STAFF_HOLD_EXCEPTIONS, type StaffHoldException } from "~/domain/funds-availability";
import { formatCents } from "~/domain/money";
import { QUEUE_TITLES } from "~/domain/queues";
import { useInstitutionDates } from "~/components/institution-dates";
import type { QueuedDeposit } from "~/server/deposits/deposit-lists.server";
import { QueueSection } from "./queues";
import { itemBusy, WaitingList, type AsSent } from "./waiting-list";

/**
 * "Mobile deposits" on /admin/queues (docs/product.md#mobile-deposit): each deposit waiting for
 * review with thumbnails of both sides of the check (each opens the full-size photo, whose view
 * is audited), Approve, and Reject with the reason the member is told. A deposit of the same check as an earlier one is flagged.
 */
export type DepositRow = AsSent<QueuedDeposit>;

/** A refused approve or reject of one deposit: its message goes next to that deposit's field. */
export interface DepositFieldError {
  deposit_id: number;
  /** reason (reject), hold_exception or hold_reason (approve). */
  field?: string;
  message: string;
}

const HOLD_EXCEPTION_SHORT: Record<StaffHoldException, string> = {
  redeposited: "Redeposited check",
  reasonable_cause: "Reasonable cause",
};

/** The holds staff may choose on approval (Regulation CC 229.13(c), (e)); a new account and a large deposit apply by rule. */
const HOLD_OPTIONS = [
  { value: "", label: "None: the availability schedule" },
  ...STAFF_HOLD_EXCEPTIONS.map((e) => ({
    value: e,
    // Short enough for the column's select; the rule names the section.
    label: `${HOLD_EXCEPTION_SHORT[e]} (${HOLD_EXCEPTION_RULES[e].replace("12 CFR ", "")})`,
  })),
];

const busy = (navigation: ReturnType<typeof useNavigation>, intent: string, id: number) =>
  itemBusy(navigation, intent, "deposit_id", id);

export function DepositQueue({
  count,
  rows,
  error,
}: {
  count: number;
  rows: DepositRow[];
  error?: DepositFieldError | null;
}) {
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  return (
    <QueueSection id="deposits" title={QUEUE_TITLES.deposits} count={count}>
      <WaitingList count={count} shown={rows.length}>
        {rows.map((d) => {
          const reasonId = `deposit-${d.id}-reason`;
          const mine = error?.deposit_id === d.id ? error : null;
          const message = mine && (mine.field ?? "reason") === "reason" ? mine.message : null;
          return (
            <li
              key={d.id}
              className="grid gap-4 px-4 py-4 sm:px-5 lg:grid-cols-[minmax(0,1fr)_auto_minmax(0,18rem)]"
              data-testid="queued-deposit"
              aria-labelledby={`deposit-${d.id}-title`}
            >
              <div className="min-w-0">
                <p id={`deposit-${d.id}-title`} className="font-semibold text-slate-900">
                  Deposit {d.id}: {formatCents(d.amount_cents)}
                </p>
                <p className="text-sm text-slate-700">
                  {d.member_name} · <span className="break-all">{d.member_email}</span>
                </p>
                <p className="text-sm text-slate-700">
                  To {d.account}
                  {d.account_active ? null : (
                    <span className="ml-2 rounded-full bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-900">
                      Account not active
                    </span>
                  )}
                </p>
                <p className="text-sm text-slate-700">
                  <time dateTime={d.created_at}>{formatDateTime(d.created_at)}</time>
                </p>
                {d.duplicate_of_id !== null ? (
                  <p
                    className="mt-2 inline-flex items-center gap-1.5 rounded-lg bg-amber-50 px-2.5 py-1 text-sm font-semibold text-amber-900 ring-1 ring-amber-200 ring-inset"
                    data-testid="duplicate-flag"
                  >
                    <AlertTriangle className="size-4" aria-hidden="true" /> Same check as deposit {d.duplicate_of_id}{" "}
                    (amount, account and photo)
                  </p>
                ) : null}
              </div>
              <div className="grid grid-cols-2 gap-3 self-start lg:flex">
                {(["front", "back"] as const).map((side) => (
                  <a
                    key={side}
                    href={`/admin/queues/deposits/${d.id}/${side}`}
                    target="_blank"
                    rel="noreferrer"
                    className="block rounded-lg border border-slate-200 p-1 hover:border-accent-600"
                  >
                    <img
                      src={`/admin/queues/deposits/${d.id}/${side}?size=thumbnail`}
                      alt={`${side === "front" ? "Front" : "Back"} of the check, deposit ${d.id}`}
                      loading="lazy"
                      className="h-28 w-full rounded bg-slate-50 object-contain lg:w-48"
                    />
                    <span className="block pt-1 text-center text-xs font-semibold text-slate-700">
                      {side === "front" ? "Front" : "Back"}
                    </span>
                  </a>
                ))}
              </div>
              <div className="flex flex-col gap-3">
                <Form method="post" className="flex flex-col gap-2">
                  <input type="hidden" name="deposit_id" value={d.id} />
                  <Select
                    id={`deposit-${d.id}-hold`}
                    name="hold_exception"
                    label="Hold longer"
                    options={HOLD_OPTIONS}
                    defaultValue=""
                    description="A new account or a day's checks over the large-deposit amount are held by rule; the member gets the hold notice."
                    error={mine?.field === "hold_exception" ? mine.message : undefined}
                  />
                  <TextField
                    id={`deposit-${d.id}-hold-reason`}
                    label="Why it may not be paid (for a reasonable-cause hold)"
                    name="hold_reason"
                    maxLength={300}
                    error={mine?.field === "hold_reason" ? mine.message : undefined}
                  />
                  <Button
                    type="submit"
                    name="intent"
                    value="approve_deposit"
                    className="w-full"
                    aria-label={`Approve deposit ${d.id} of ${formatCents(d.amount_cents)}`}
                    isPending={busy(navigation, "approve_deposit", d.id)}
                    pendingLabel="Approving…"
                  >
                    <Check className="size-4" aria-hidden="true" /> Approve
                  </Button>
                </Form>
                <Form method="post" className="flex flex-col gap-2">
                  <input type="hidden" name="deposit_id" value={d.id} />
                  <TextField
                    id={reasonId}
                    label="Reason to reject"
                    name="reason"
                    maxLength={300}
                    error={message ?? undefined}
                  />
                  <Button
                    type="submit"
                    name="intent"
                    value="reject_deposit"
                    variant="secondary"
                    aria-label={`Reject deposit ${d.id}`}
                    isPending={busy(navigation, "reject_deposit", d.id)}
                    pendingLabel="Rejecting…"
                  >
                    <X className="size-4" aria-hidden="true" /> Reject
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
