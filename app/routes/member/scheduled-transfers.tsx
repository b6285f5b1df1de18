import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft, CalendarClock, Repeat } from "lucide-react";
import type { Route } from "./+types/scheduled-transfers";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { logger } from "~/server/logger.server";
import {
  cancelOwnTransfer,
  editOwnTransfer,
  loadScheduledTransfers,
  skipOwnTransfer,
} from "./scheduled-transfers.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { centsAsDecimal, formatCents } from "~/domain/money";
import { describeSeries } from "~/domain/schedule";
import { businessDate } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";
import {
  TRANSFER_NOUN,
  editScheduledTransferSchema,
  scheduledTransferIdSchema,
  SCHEDULE_MESSAGES,
} from "~/domain/scheduled-transfers";
import { amountCentsField, formErrorMessage } from "~/domain/transfers";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, TextField } from "~/components/ui";
import { StatusBadge, formatDate } from "~/components/member/amount";

/**
 * /dashboard/scheduled-transfers (docs/product.md#scheduled-transfers): the member's Between
 * Accounts, To Another Member and To US Bank transfers set up for later or repeating: the next date, amount,
 * from and to, how often and how many are left, and what each run did. The member may edit the
 * amount and next date, skip the next one, or cancel (after confirming). Only the member's own
 * are listed or changed: another member's answers "not found".
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Scheduled transfers", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  return loadScheduledTransfers(user);
}

const INTENTS = ["skip", "cancel", "edit"] as const;

type Answer = { ok: boolean; message: string; series_id?: number };

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (!intent) return data<Answer>({ ok: false, message: UNKNOWN_INTENT_MESSAGE }, { status: 400 });
  const info = context.get(requestInfoContext);
  const origin = { request_id: info.request_id, ip: info.ip };
  try {
    if (intent === "edit") {
      const today = businessDate(institution().time_zone);
      const parsed = editScheduledTransferSchema(today, amountCentsField(SCHEDULE_MESSAGES.missing)).safeParse(
        Object.fromEntries(form),
      );
      if (!parsed.success) return data<Answer>({ ok: false, message: formErrorMessage(parsed.error) }, { status: 400 });
      const { amount, ...rest } = parsed.data;
      const result = await editOwnTransfer(user, { ...rest, amount_cents: amount }, origin);
      if (!result.ok)
        return data<Answer>(
          { ok: false, message: result.message, series_id: rest.series_id },
          { status: refusalStatus(result.kind) },
        );
      return {
        ok: true,
        message: `Changed: the next transfer is ${formatCents(amount)} on ${formatDate(result.next_date)}.`,
      };
    }
    const parsed = scheduledTransferIdSchema.safeParse(Object.fromEntries(form));
    if (!parsed.success) return data<Answer>({ ok: false, message: SCHEDULE_MESSAGES.series }, { status: 404 });
    const { series_id } = parsed.data;
    const result =
      intent === "skip"
        ? await skipOwnTransfer(user, series_id, origin)
        : await cancelOwnTransfer(user, series_id, origin);
    if (!result.ok)
      return data<Answer>({ ok: false, message: result.message, series_id }, { status: refusalStatus(result.kind) });
    if (intent === "cancel") return { ok: true, message: "Cancelled. No further transfer will be sent." };
    return {
      ok: true,
      message: result.next_date
        ? `Skipped. The next transfer is on ${formatDate(result.next_date)}.`
        : "Skipped. That was the last one: nothing more will be sent.",
    };
  } catch (error) {
    logger.error({ err: error, intent }, "scheduled transfer change failed");
    return data<Answer>({ ok: false, message: "That did not work. Please try again." }, { status: 500 });
  }
}

const STATUS_LABELS = {
  active: { badge: "pending", label: "Scheduled" },
  ended: { badge: "posted", label: "Completed" },
  stopped: { badge: "failed", label: "Stopped after a failure" },
  cancelled: { badge: "reversed", label: "Cancelled" },
} as const;

const RUN_LABELS = {
  running: { badge: "pending", label: "Sending" },
  sent: { badge: "posted", label: "Sent" },
  failed: { badge: "failed", label: "Not sent" },
  skipped: { badge: "reversed", label: "Skipped" },
} as const;

type View = Route.ComponentProps["loaderData"]["transfers"][number];

const KIND_LABEL: Record<View["kind"], string> = {
  internal: "Between accounts",
  member: "To another member",
  ach: "To a US bank",
};

function howOften(t: View): string {
  if (t.frequency === "once") return "Once";
  return describeSeries({ ...t, frequency: t.frequency }, formatDate, TRANSFER_NOUN);
}

export default function ScheduledTransfers({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as Answer | undefined;
  const active = loaderData.transfers.filter((t) => t.status === "active");
  const past = loaderData.transfers.filter((t) => t.status !== "active");
  return (
    <div className="mx-auto max-w-4xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard?transfer=internal#transfer"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Transfer Money
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Scheduled transfers</h1>
      <p className="mt-1 text-sm text-slate-700">
        Transfers between your accounts, to other members and to other US banks that you set up for a later date or to
        repeat. Each one is sent on its date if the money is there; if it cannot be sent we tell you why.
      </p>
      {answer ? (
        <FormMessage className="mt-4" tone={answer.ok ? "success" : "error"}>
          {answer.message}
        </FormMessage>
      ) : null}
      <section aria-labelledby="upcoming-heading" className="mt-6">
        <h2 id="upcoming-heading" className="text-lg font-semibold text-brand-900">
          Coming up
        </h2>
        {active.length === 0 ? (
          <p className="mt-3 rounded-2xl border border-slate-200 bg-white p-8 text-center text-sm text-slate-700">
            Nothing is scheduled. Choose "On a date" or "Repeat" under When in{" "}
            <Link to="/dashboard?transfer=internal#transfer" className="font-semibold text-accent-700 underline">
              Transfer Money
            </Link>
            .
          </p>
        ) : (
          <ul className="mt-3 space-y-4" aria-label="Scheduled transfers coming up">
            {active.map((t) => (
              <TransferCard key={t.id} t={t} today={loaderData.today} />
            ))}
          </ul>
        )}
      </section>
      {past.length > 0 ? (
        <section aria-labelledby="past-heading" className="mt-8">
          <h2 id="past-heading" className="text-lg font-semibold text-brand-900">
            Finished and cancelled
          </h2>
          <ul className="mt-3 space-y-4" aria-label="Finished and cancelled scheduled transfers">
            {past.map((t) => (
              <TransferCard key={t.id} t={t} today={loaderData.today} />
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}

function TransferCard({ t, today }: { t: View; today: string }) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formData?.get("series_id") === String(t.id);
  const changeable = t.status === "active" && t.next_date !== null && t.next_date > today;
  const status = STATUS_LABELS[t.status];
  return (
    <li
      className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      data-testid="scheduled-transfer"
      aria-labelledby={`scheduled-${t.id}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 id={`scheduled-${t.id}`} className="font-semibold text-slate-900">
            {KIND_LABEL[t.kind]}: {t.to_label}
          </h3>
          <p className="text-sm text-slate-700">
            From {t.from_label} · “{t.reference}”
          </p>
        </div>
        <p className="text-lg font-semibold text-slate-900 tabular-nums">{formatCents(t.amount_cents)}</p>
      </div>
      <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-slate-600">Next</dt>
          <dd className="font-semibold text-slate-900">{t.next_date ? formatDate(t.next_date) : "—"}</dd>
        </div>
        <div>
          <dt className="text-slate-600">How often</dt>
          <dd className="flex items-center gap-1 font-semibold text-slate-900">
            {t.frequency === "once" ? (
              <CalendarClock className="size-4 shrink-0" aria-hidden="true" />
            ) : (
              <Repeat className="size-4 shrink-0" aria-hidden="true" />
            )}
            {howOften(t)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600">Left</dt>
          <dd className="font-semibold text-slate-900 tabular-nums">{t.remaining}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Status</dt>
          <dd>
            <StatusBadge status={status.badge} label={status.label} />
          </dd>
        </div>
      </dl>
      {t.frequency !== "once" ? (
        <p className="mt-2 text-xs text-slate-600">
          If one cannot be sent: {t.on_failure === "stop" ? "the series stops" : "the later ones are still sent"}.
        </p>
      ) : null}
      {t.runs.length > 0 ? (
        <details className="mt-3 text-sm">
          <summary className="min-h-11 cursor-pointer py-2 font-semibold text-accent-700">
            History ({t.runs.length})
          </summary>
          <ul className="mt-1 divide-y divide-slate-100" aria-label={`History of the transfer to ${t.to_label}`}>
            {t.runs.map((r) => (
              <li key={r.sequence} className="flex flex-wrap items-center justify-between gap-2 py-2">
                <span>
                  {formatDate(r.run_date)} · {formatCents(r.amount_cents)}
                  {r.failure_reason ? <span className="block text-red-800">{r.failure_reason}</span> : null}
                </span>
                <StatusBadge status={RUN_LABELS[r.status].badge} label={RUN_LABELS[r.status].label} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {changeable ? (
        <div className="mt-3 flex flex-wrap gap-3 border-t border-slate-100 pt-3">
          {t.frequency !== "once" ? (
            <Form method="post">
              <input type="hidden" name="series_id" value={t.id} />
              <Button
                type="submit"
                name="intent"
                value="skip"
                variant="secondary"
                isPending={busy && navigation.formData?.get("intent") === "skip"}
                pendingLabel="Skipping…"
                aria-label={`Skip next: the transfer of ${formatDate(t.next_date!)} to ${t.to_label}`}
              >
                Skip next
              </Button>
            </Form>
          ) : null}
          <details className="w-full">
            <summary className="min-h-11 cursor-pointer py-2 font-semibold text-accent-700">Edit</summary>
            {/* Keyed by what it shows: after a skip or an edit the fields start again from the series
                as it is now (kept, they offered the skipped date, and saving sent that transfer after all). */}
            <Form
              key={`${t.next_date}:${t.amount_cents}`}
              method="post"
              className="mt-2 grid gap-3 sm:grid-cols-3 sm:items-end"
            >
              <input type="hidden" name="series_id" value={t.id} />
              <TextField
                name="amount"
                label="Amount"
                prefix="$"
                inputMode="decimal"
                defaultValue={centsAsDecimal(t.amount_cents)}
                isRequired
              />
              <TextField
                name="next_date"
                label="Next date"
                type="date"
                defaultValue={t.next_date ?? ""}
                description="A business day, tomorrow at the earliest."
                isRequired
              />
              <Button type="submit" name="intent" value="edit" isPending={busy} pendingLabel="Saving…">
                Save changes
              </Button>
            </Form>
          </details>
          <details className="w-full">
            <summary className="min-h-11 cursor-pointer py-2 font-semibold text-red-800">Cancel…</summary>
            <Form method="post" className="mt-2 rounded-xl bg-red-50 p-3">
              <p className="text-sm text-red-950">
                Cancel {t.frequency === "once" ? "this transfer" : "every transfer left in this series"}? Transfers
                already sent stay sent.
              </p>
              <input type="hidden" name="series_id" value={t.id} />
              <Button
                type="submit"
                name="intent"
                value="cancel"
                variant="danger"
                className="mt-2"
                isPending={busy && navigation.formData?.get("intent") === "cancel"}
                pendingLabel="Cancelling…"
              >
                Yes, cancel it
              </Button>
            </Form>
          </details>
        </div>
      ) : null}
    </li>
  );
}
