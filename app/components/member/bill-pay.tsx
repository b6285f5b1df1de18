import { useEffect, useRef } from "react";
import { Form, Link, useNavigation } from "react-router";
import { ArrowLeft, CalendarClock, History, Repeat, UserPlus } from "lucide-react";
import {
  Button,
  FormMessage,
  SchemaForm,
  Select,
  TextField,
  formMessages,
  useSchemaForm,
  type FormReply,
} from "~/components/ui";
import { StatusBadge, formatDate } from "~/components/member/amount";
import { centsAsDecimal, formatCents } from "~/domain/money";
import { BILL_PAYMENT_STATUS_LABELS } from "~/domain/member-transactions";
import { billPaySchema, editBillPaymentSchema, payeeSchema } from "~/domain/bill-pay";
import { describeSeries } from "~/domain/schedule";
import type { BillPaymentView } from "~/server/bill-pay/overview.server";
import type { PayeeView } from "~/server/bill-pay/payees.server";

/** What the Bill Pay action answers (app/routes/member/bill-pay.tsx). */
export interface BillPayAnswer {
  intent: string;
  ok: boolean;
  message?: string;
  reply?: FormReply;
  /** The payment an Edit answer is about. */
  payment_id?: number | null;
  /** An unexpected error: the form keeps the key it sent, so a retry is answered once. */
  failed?: boolean;
}

export interface BillPayData {
  today: string;
  accounts: Array<{ id: number; label: string }>;
  payees: PayeeView[];
  quick_picks: string[];
  upcoming: BillPaymentView[];
  history: BillPaymentView[];
  editing: number | null;
  keys: { schedule: string; edit: string };
}

/** Every form posts here, so an Edit opened by its address (?edit=) closes once the answer comes. */
const PAGE = "/dashboard/bill-pay";
const card = "rounded-2xl border border-slate-200 bg-white shadow-sm";
const sectionHeading = "flex items-center gap-2 text-lg font-semibold text-brand-900";

function postedKey(answer: BillPayAnswer | undefined, intent: string, fresh: string): string {
  if (!answer || answer.intent !== intent || !answer.failed) return fresh;
  const sent = answer.reply?.initialValue?.idempotency_key;
  return typeof sent === "string" && /^[0-9a-f-]{36}$/i.test(sent) ? sent : fresh;
}

function mine(answer: BillPayAnswer | undefined, intent: string): BillPayAnswer | undefined {
  return answer?.intent === intent ? answer : undefined;
}

/** An answer's message, focused when it arrives so it is read out and seen. */
function Answer({ answer }: { answer: BillPayAnswer | undefined }) {
  const ref = useRef<HTMLDivElement>(null);
  const text = answer ? (answer.message ?? formMessages(answer.reply)[0]) : undefined;
  useEffect(() => {
    if (text) ref.current?.focus();
  }, [answer, text]);
  if (!answer || !text) return null;
  return (
    <FormMessage ref={ref} tone={answer.ok ? "success" : "error"}>
      {text}
    </FormMessage>
  );
}

export function BillPayPage({ data, answer }: { data: BillPayData; answer: BillPayAnswer | undefined }) {
  return (
    <div className="mx-auto max-w-5xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard#quick-actions"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Back to Quick Actions
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Bill Pay</h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-700">
        Pay a company from your checking account on a business day from tomorrow on, once or on a schedule. The amount
        is held from your account when you schedule it and paid on its date; until then you can change or cancel it.
      </p>
      {answer &&
      ["cancel", "remove_payee", "edit", "unknown"].includes(answer.intent) &&
      (answer.ok || answer.intent !== "edit") ? (
        <div className="mt-4">
          <Answer answer={answer} />
        </div>
      ) : null}
      <div className="mt-6 grid gap-6 lg:grid-cols-5">
        <div className="space-y-6 lg:col-span-3">
          <PaymentForm data={data} answer={mine(answer, "schedule")} />
          <Upcoming data={data} answer={answer} />
        </div>
        <div className="space-y-6 lg:col-span-2">
          <Payees data={data} answer={mine(answer, "add_payee")} />
        </div>
      </div>
      <PaymentHistory payments={data.history} />
    </div>
  );
}

function useBusy(intent: string): boolean {
  const navigation = useNavigation();
  return navigation.state !== "idle" && navigation.formData?.get("intent") === intent;
}

function PaymentForm({ data, answer }: { data: BillPayData; answer: BillPayAnswer | undefined }) {
  const busy = useBusy("schedule");
  const done = answer?.ok ? (answer.message ?? "") : "";
  const form = useSchemaForm(billPaySchema(data.today), {
    id: `bill-pay-schedule${done ? `-${done.length}-${done.slice(-12)}` : ""}`,
    lastResult: answer && !answer.ok ? answer.reply : undefined,
    // Conform sets every field from these when the form starts again after a payment was scheduled.
    defaultValue: { from_account_id: data.accounts[0] ? String(data.accounts[0].id) : "", frequency: "once" },
  });
  const posted = answer && !answer.ok ? answer.reply?.initialValue : undefined;
  const recurring = typeof posted?.frequency === "string" && posted.frequency !== "once";
  const payeeOptions = [
    ...data.payees.map((p) => ({ value: `payee:${p.id}`, label: `${p.name} ${p.masked_account}` })),
    ...data.quick_picks.map((name, index) => ({ value: `pick:${index}`, label: `${name} (quick pick)` })),
  ];
  return (
    <section aria-labelledby="pay-heading" className={`${card} p-5 sm:p-6`}>
      <h2 id="pay-heading" className={sectionHeading}>
        <CalendarClock className="size-5 text-accent-700" aria-hidden="true" /> Pay a bill
      </h2>
      {answer ? (
        <div className="mt-4">
          <Answer answer={answer} />
        </div>
      ) : null}
      {data.accounts.length === 0 ? (
        <p className="mt-4 text-sm text-slate-700">
          Bill payments are made from an open checking account, and you have none.
        </p>
      ) : (
        <SchemaForm key={form.id} form={form} method="post" action={PAGE} className="mt-4 grid gap-4 sm:grid-cols-2">
          <input type="hidden" name="idempotency_key" value={postedKey(answer, "schedule", data.keys.schedule)} />
          <Select
            name="payee"
            label="Payee"
            placeholder="Choose a payee"
            options={payeeOptions}
            isRequired
            className="sm:col-span-2"
          />
          <TextField
            name="payee_account_number"
            label="Account number at the payee"
            description="As printed on your bill. Needed for a quick pick; for a saved payee leave it empty to use its number."
            optional
            autoComplete="off"
            className="sm:col-span-2"
          />
          <Select
            name="from_account_id"
            label="Pay from"
            description="Your checking accounts, with what is available in each."
            options={data.accounts.map((a) => ({ value: String(a.id), label: a.label }))}
            defaultValue={String(data.accounts[0]!.id)}
            isRequired
            className="sm:col-span-2"
          />
          <TextField name="amount" label="Amount (US dollars)" prefix="$" inputMode="decimal" isRequired />
          <TextField
            name="payment_date"
            label="Payment date"
            type="date"
            description="A business day, tomorrow at the earliest."
            isRequired
          />
          <TextField name="memo" label="Memo" optional className="sm:col-span-2" />
          <details
            className="group rounded-xl border border-slate-200 bg-slate-50 p-4 sm:col-span-2"
            open={recurring || undefined}
          >
            <summary className="flex min-h-11 cursor-pointer items-center gap-2 text-sm font-semibold text-brand-900">
              <Repeat className="size-4 text-accent-700" aria-hidden="true" /> Repeat this payment (optional)
            </summary>
            <div className="mt-3 grid gap-4 sm:grid-cols-2">
              <Select
                name="frequency"
                label="How often"
                options={[
                  { value: "once", label: "Once" },
                  { value: "monthly", label: "Monthly, on the same day" },
                  { value: "weeks", label: "Every few weeks" },
                ]}
                defaultValue="once"
              />
              <TextField
                name="every_weeks"
                label="Every how many weeks"
                description="For every few weeks: 1 to 52."
                inputMode="numeric"
              />
              <Select
                name="ends"
                label="Ends"
                placeholder="Choose when it ends"
                options={[
                  { value: "date", label: "On a date" },
                  { value: "count", label: "After a number of payments" },
                ]}
              />
              <div className="hidden sm:block" aria-hidden="true" />
              <TextField name="end_date" label="Last payment date" type="date" description="When it ends on a date." />
              <TextField
                name="payment_count"
                label="Number of payments"
                description="When it ends after a number: 1 to 120."
                inputMode="numeric"
              />
            </div>
          </details>
          <div className="flex justify-end sm:col-span-2">
            <Button type="submit" name="intent" value="schedule" isPending={busy} pendingLabel="Scheduling…">
              Schedule payment
            </Button>
          </div>
        </SchemaForm>
      )}
    </section>
  );
}

function Payees({ data, answer }: { data: BillPayData; answer: BillPayAnswer | undefined }) {
  const busy = useBusy("add_payee");
  const removing = useNavigation().formData?.get("payee_id");
  const form = useSchemaForm(payeeSchema, {
    id: `bill-pay-payee${answer?.ok ? `-${data.payees.length}` : ""}`,
    lastResult: answer && !answer.ok ? answer.reply : undefined,
  });
  return (
    <section aria-labelledby="payees-heading" className={`${card} p-5 sm:p-6`}>
      <h2 id="payees-heading" className={sectionHeading}>
        <UserPlus className="size-5 text-accent-700" aria-hidden="true" /> Payees
      </h2>
      {data.payees.length === 0 ? (
        <p className="mt-3 text-sm text-slate-700">
          No saved payees yet. Add one below, or pay a quick pick from the payment form.
        </p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100" aria-label="Saved payees">
          {data.payees.map((p) => (
            <li key={p.id} className="flex items-center justify-between gap-3 py-3" data-testid="payee">
              <div className="min-w-0">
                <p className="font-medium break-words text-slate-900">
                  {p.name} <span className="font-normal text-slate-700">{p.masked_account}</span>
                </p>
                {p.address ? <p className="text-sm break-words text-slate-700">{p.address}</p> : null}
              </div>
              <Form method="post" action={PAGE}>
                <input type="hidden" name="payee_id" value={p.id} />
                <Button
                  type="submit"
                  name="intent"
                  value="remove_payee"
                  variant="ghost"
                  aria-label={`Remove payee ${p.name} ${p.masked_account}`}
                  isPending={removing === String(p.id)}
                  pendingLabel="Removing…"
                >
                  Remove
                </Button>
              </Form>
            </li>
          ))}
        </ul>
      )}
      <h3 className="mt-5 text-base font-semibold text-slate-900">Add a payee</h3>
      {answer ? (
        <div className="mt-3">
          <Answer answer={answer} />
        </div>
      ) : null}
      <SchemaForm key={form.id} form={form} method="post" action={PAGE} className="mt-3 grid gap-4">
        <TextField
          name="name"
          label="Payee name"
          description={`For example ${data.quick_picks.slice(0, 3).join(", ")}.`}
          isRequired
          autoComplete="off"
        />
        <TextField
          name="account_number"
          label="Account number at the payee"
          description="Letters, digits, spaces and dashes, as printed on your bill."
          isRequired
          autoComplete="off"
        />
        <TextField name="address" label="Payee address" optional autoComplete="off" />
        <div className="flex justify-end">
          <Button
            type="submit"
            name="intent"
            value="add_payee"
            variant="secondary"
            isPending={busy}
            pendingLabel="Adding…"
          >
            Add payee
          </Button>
        </div>
      </SchemaForm>
    </section>
  );
}

function seriesText(p: BillPaymentView): string | null {
  return p.series ? `${describeSeries(p.series, formatDate)} · payment ${p.sequence}` : null;
}

function Upcoming({ data, answer }: { data: BillPayData; answer: BillPayAnswer | undefined }) {
  const navigation = useNavigation();
  const cancelling =
    navigation.state !== "idle" && navigation.formData?.get("intent") === "cancel"
      ? navigation.formData.get("payment_id")
      : null;
  const failedEdit = answer?.intent === "edit" && !answer.ok ? answer : undefined;
  const editing = failedEdit ? failedEdit.payment_id : answer?.intent === "edit" ? null : data.editing;
  return (
    <section aria-labelledby="upcoming-heading" className={card}>
      <h2 id="upcoming-heading" className={`${sectionHeading} px-5 pt-5 sm:px-6`}>
        <CalendarClock className="size-5 text-accent-700" aria-hidden="true" /> Upcoming payments
      </h2>
      {data.upcoming.length === 0 ? (
        <p className="px-5 py-6 text-sm text-slate-700 sm:px-6">No payments scheduled.</p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-100" aria-label="Upcoming payments">
          {data.upcoming.map((p) => (
            <li
              key={p.id}
              id={`payment-${p.id}`}
              className="scroll-mt-24 px-5 py-4 sm:px-6"
              data-testid="upcoming-payment"
            >
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div className="min-w-0">
                  <p className="font-semibold break-words text-slate-900">
                    {p.payee_name} <span className="font-normal text-slate-700">{p.payee_masked_account}</span>
                  </p>
                  <p className="text-sm text-slate-700">
                    <time dateTime={p.payment_date}>{formatDate(p.payment_date)}</time> · from {p.from_label}
                  </p>
                  {seriesText(p) ? (
                    <p className="mt-0.5 flex items-center gap-1 text-sm text-slate-700">
                      <Repeat className="size-3.5" aria-hidden="true" /> {seriesText(p)}
                    </p>
                  ) : null}
                  {p.memo ? <p className="text-sm break-words text-slate-700">Memo: {p.memo}</p> : null}
                  <p className="mt-1">
                    <StatusBadge status="pending" label={p.held ? "Scheduled · held" : "Scheduled · not held yet"} />
                  </p>
                </div>
                <div className="flex w-full items-center justify-between gap-2 sm:w-auto sm:flex-col sm:items-end">
                  <p className="text-lg font-semibold text-slate-900 tabular-nums">{formatCents(p.amount_cents)}</p>
                  {editing === p.id ? null : (
                    <div className="flex items-center gap-2">
                      <Link
                        to={`/dashboard/bill-pay?edit=${p.id}#payment-${p.id}`}
                        preventScrollReset
                        className="inline-flex min-h-11 items-center rounded-lg border border-slate-300 px-3 text-sm font-semibold text-brand-800 hover:bg-slate-50"
                        aria-label={`Edit payment to ${p.payee_name} on ${formatDate(p.payment_date)}`}
                      >
                        Edit
                      </Link>
                      <Form method="post" action={PAGE}>
                        <input type="hidden" name="payment_id" value={p.id} />
                        <Button
                          type="submit"
                          name="intent"
                          value="cancel"
                          variant="secondary"
                          aria-label={`Cancel payment to ${p.payee_name} on ${formatDate(p.payment_date)}${p.series ? " and the ones after it" : ""}`}
                          isPending={cancelling === String(p.id)}
                          pendingLabel="Cancelling…"
                        >
                          Cancel
                        </Button>
                      </Form>
                    </div>
                  )}
                </div>
              </div>
              {editing === p.id ? <EditForm payment={p} data={data} answer={failedEdit} /> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function EditForm({
  payment,
  data,
  answer,
}: {
  payment: BillPaymentView;
  data: BillPayData;
  answer: BillPayAnswer | undefined;
}) {
  const busy = useBusy("edit");
  const form = useSchemaForm(editBillPaymentSchema(data.today), {
    id: `bill-pay-edit-${payment.id}`,
    lastResult: answer?.reply,
    defaultValue: {
      amount: centsAsDecimal(payment.amount_cents),
      payment_date: payment.payment_date,
      memo: payment.memo ?? "",
    },
  });
  return (
    <div className="mt-4 rounded-xl border border-slate-200 bg-slate-50 p-4">
      <h3 className="text-base font-semibold text-slate-900">Change this payment</h3>
      {answer ? (
        <div className="mt-3">
          <Answer answer={answer} />
        </div>
      ) : null}
      <SchemaForm key={form.id} form={form} method="post" action={PAGE} className="mt-3 grid gap-4 sm:grid-cols-3">
        <input type="hidden" name="payment_id" value={payment.id} />
        <input type="hidden" name="idempotency_key" value={postedKey(answer, "edit", data.keys.edit)} />
        <TextField name="amount" label="Amount (US dollars)" prefix="$" inputMode="decimal" isRequired />
        <TextField name="payment_date" label="Payment date" type="date" isRequired />
        <TextField name="memo" label="Memo" optional />
        <div className="flex flex-wrap items-center justify-end gap-3 sm:col-span-3">
          <Link
            to="/dashboard/bill-pay"
            className="inline-flex min-h-11 items-center px-3 text-sm font-semibold text-accent-700 hover:underline"
          >
            Keep it as it is
          </Link>
          <Button type="submit" name="intent" value="edit" isPending={busy} pendingLabel="Saving…">
            Save changes
          </Button>
        </div>
      </SchemaForm>
    </div>
  );
}

function PaymentHistory({ payments }: { payments: BillPaymentView[] }) {
  return (
    <section aria-labelledby="history-heading" className={`${card} mt-6`}>
      <h2 id="history-heading" className={`${sectionHeading} px-5 pt-5 sm:px-6`}>
        <History className="size-5 text-accent-700" aria-hidden="true" /> Payment history
      </h2>
      {payments.length === 0 ? (
        <p className="px-5 py-6 text-sm text-slate-700 sm:px-6">No payments made yet.</p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-100" aria-label="Payment history">
          {payments.map((p) => (
            <li
              key={p.id}
              className="flex items-start justify-between gap-3 px-5 py-4 sm:px-6"
              data-testid="past-payment"
            >
              <div className="min-w-0">
                <p className="font-semibold break-words text-slate-900">
                  {p.payee_name} <span className="font-normal text-slate-700">{p.payee_masked_account}</span>
                </p>
                <p className="text-sm text-slate-700">
                  <time dateTime={p.payment_date}>{formatDate(p.payment_date)}</time>
                  {p.from_label ? ` · from ${p.from_label}` : ""}
                  {p.reference_number && p.status === "paid" ? ` · ${p.reference_number}` : ""}
                </p>
                {p.memo ? <p className="text-sm break-words text-slate-700">Memo: {p.memo}</p> : null}
                <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-700">
                  {/* The same words as the member's history (app/domain/member-transactions.ts). */}
                  <StatusBadge
                    status={BILL_PAYMENT_STATUS_LABELS[p.status].badge}
                    label={BILL_PAYMENT_STATUS_LABELS[p.status].label}
                  />
                  {p.failure_reason ? <span>{p.failure_reason}</span> : null}
                </p>
              </div>
              <p className="font-semibold text-slate-900 tabular-nums">{formatCents(p.amount_cents)}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
