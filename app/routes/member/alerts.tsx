import { useState } from "react";
import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft, BellRing } from "lucide-react";
import type { Route } from "./+types/alerts";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { logger } from "~/server/logger.server";
import { parseSubmission, readForm, replyTo, type FormReply } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { centsAsDecimal } from "~/domain/money";
import {
  ALL_ACCOUNTS,
  ACCOUNT_ALERT_KINDS,
  ALERT_LABELS,
  ALERT_MESSAGES,
  THRESHOLD_KINDS,
  addAlertSchema,
  describeAlert,
  editAlertSchema,
  removeAlertSchema,
} from "~/domain/alerts";
import { addOwnAlert, editOwnAlert, loadOwnAlerts, removeOwnAlert, setNewDeviceAlert } from "./alerts.server";
import { pageTitle } from "~/components/site/page-title";
import { Button, FormMessage, SchemaForm, Select, TextField, formMessages, useSchemaForm } from "~/components/ui";

/**
 * /settings/alerts (docs/product.md#alerts): the alerts the member chose on their accounts
 * (balance below an amount, a transaction above an amount, a deposit posted, a payment sent or
 * returned, a card purchase declined) and the sign-in from a new device. Each is told on the bell
 * and by email. The member adds, changes the amount of and removes them; amounts are typed in
 * dollars and kept in cents. Only the member's own accounts and alerts: another member's answers
 * "not found" and changes nothing.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Alerts", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  return loadOwnAlerts(user);
}

const INTENTS = ["add", "edit", "remove", "new-device"] as const;
type Intent = (typeof INTENTS)[number];

type Answer = { intent?: Intent; ok: boolean; message: string; alert_id?: number; reply?: FormReply };

const STATUS_OF_REFUSAL = { not_found: 404, conflict: 409 } as const;

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (!intent) return data<Answer>({ ok: false, message: UNKNOWN_INTENT_MESSAGE }, { status: 400 });
  const info = context.get(requestInfoContext);
  const origin = { request_id: info.request_id, ip: info.ip };
  try {
    if (intent === "add") {
      const submission = parseSubmission(addAlertSchema, form);
      if (submission.status !== "success")
        return data<Answer>(
          { intent, ok: false, message: "Please check the alert.", reply: replyTo(submission) },
          { status: 400 },
        );
      const result = await addOwnAlert(user, submission.value, origin);
      if (!result.ok)
        return data<Answer>(
          {
            intent,
            ok: false,
            message: result.message,
            reply: replyTo(submission, { fieldErrors: { [result.field]: [result.message] } }),
          },
          { status: STATUS_OF_REFUSAL[result.reason] },
        );
      return { intent, ok: true, message: `Alert added: ${describeAlert(result.alert)}.` } satisfies Answer;
    }
    if (intent === "edit") {
      const submission = parseSubmission(editAlertSchema, form);
      const alert_id = Number(form.get("alert_id")) || undefined;
      if (submission.status !== "success")
        return data<Answer>(
          { intent, ok: false, message: "Please check the amount.", alert_id, reply: replyTo(submission) },
          { status: 400 },
        );
      const result = await editOwnAlert(user, submission.value, origin);
      if (!result.ok)
        return data<Answer>(
          { intent, ok: false, message: result.message, alert_id },
          { status: STATUS_OF_REFUSAL[result.reason] },
        );
      return { intent, ok: true, message: `Alert changed: ${describeAlert(result.alert)}.` } satisfies Answer;
    }
    if (intent === "remove") {
      const parsed = removeAlertSchema.safeParse(Object.fromEntries(form));
      if (!parsed.success)
        return data<Answer>({ intent, ok: false, message: ALERT_MESSAGES.not_found }, { status: 404 });
      const result = await removeOwnAlert(user, parsed.data.alert_id, origin);
      if (!result.ok)
        return data<Answer>(
          { intent, ok: false, message: result.message },
          { status: STATUS_OF_REFUSAL[result.reason] },
        );
      return { intent, ok: true, message: `Alert removed: ${describeAlert(result.alert)}.` } satisfies Answer;
    }
    const on = form.get("new_device") === "on";
    const result = await setNewDeviceAlert(user, on, origin);
    if (result.status !== "updated")
      return data<Answer>({ intent, ok: false, message: ALERT_MESSAGES.failed }, { status: 500 });
    return {
      intent,
      ok: true,
      message: on ? "Sign-in from a new device: on." : "Sign-in from a new device: off.",
    } satisfies Answer;
  } catch (error) {
    logger.error({ err: error, intent }, "alert change failed");
    return data<Answer>({ intent, ok: false, message: ALERT_MESSAGES.failed }, { status: 500 });
  }
}

const KIND_OPTIONS = ACCOUNT_ALERT_KINDS.map((kind) => ({ value: kind, label: ALERT_LABELS[kind] }));

export default function Alerts({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as Answer | undefined;
  const { alerts, accounts, new_device_sign_in } = loaderData;
  const navigation = useNavigation();
  const busy = (intent: Intent) => navigation.state !== "idle" && navigation.formData?.get("intent") === intent;
  return (
    <div className="mx-auto max-w-4xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <Link
        to="/dashboard"
        className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700 hover:underline"
      >
        <ArrowLeft className="size-4" aria-hidden="true" /> Dashboard
      </Link>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Alerts</h1>
      <p className="mt-1 text-sm text-slate-700">
        Choose what we tell you about. Each alert comes to the bell in the app and by email to you, and to your devices
        when you turned on notifications there.
      </p>
      {answer && !(answer.intent === "add" && !answer.ok) ? (
        <FormMessage className="mt-4" tone={answer.ok ? "success" : "error"}>
          {answer.message}
        </FormMessage>
      ) : null}

      <section aria-labelledby="your-alerts-heading" className="mt-6">
        <h2 id="your-alerts-heading" className="text-lg font-semibold text-brand-900">
          Your account alerts
        </h2>
        {alerts.length === 0 ? (
          <p className="mt-3 rounded-2xl border border-slate-200 bg-white p-6 text-center text-sm text-slate-700">
            You have no account alerts yet. Add one below.
          </p>
        ) : (
          <ul className="mt-3 space-y-3" aria-label="Your account alerts">
            {alerts.map((alert) => (
              <AlertItem
                key={alert.id}
                alert={alert}
                answer={answer?.alert_id === alert.id ? answer : undefined}
                busy={navigation.state !== "idle" && navigation.formData?.get("alert_id") === String(alert.id)}
              />
            ))}
          </ul>
        )}
      </section>

      <AddAlert
        accounts={accounts}
        answer={answer?.intent === "add" ? answer : undefined}
        busy={busy("add")}
        done={answer?.intent === "add" && answer.ok}
      />

      <section
        aria-labelledby="sign-in-heading"
        className="mt-8 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      >
        <h2 id="sign-in-heading" className="text-lg font-semibold text-brand-900">
          Sign-in from a new device
        </h2>
        <p className="mt-1 text-sm text-slate-700">
          When someone signs in to your account from a device we have not seen before, we tell you at once, with a way
          to end that session. It is{" "}
          <strong className="font-semibold text-slate-900">{new_device_sign_in ? "on" : "off"}</strong>. It is the same
          setting as Login alerts in Account Settings.
        </p>
        <Form method="post" className="mt-3">
          <input type="hidden" name="new_device" value={new_device_sign_in ? "off" : "on"} />
          <Button
            type="submit"
            name="intent"
            value="new-device"
            variant="secondary"
            isPending={busy("new-device")}
            pendingLabel="Saving…"
          >
            {new_device_sign_in ? "Turn off" : "Turn on"}
          </Button>
        </Form>
      </section>
    </div>
  );
}

type AlertView = Route.ComponentProps["loaderData"]["alerts"][number];

function AlertItem({ alert, answer, busy }: { alert: AlertView; answer?: Answer; busy: boolean }) {
  const threshold = THRESHOLD_KINDS.has(alert.kind);
  const form = useSchemaForm(editAlertSchema, {
    id: `alert-${alert.id}`,
    lastResult: answer?.intent === "edit" ? answer.reply : undefined,
    defaultValue: { amount: alert.amount_cents === null ? "" : centsAsDecimal(alert.amount_cents) },
  });
  const name = `${describeAlert(alert)} on ${alert.account_label}`;
  return (
    <li
      className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
      data-testid="alert"
      aria-labelledby={`alert-${alert.id}-name`}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex min-w-0 items-start gap-2">
          <BellRing className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden="true" />
          <div>
            <h3 id={`alert-${alert.id}-name`} className="font-semibold text-slate-900">
              {describeAlert(alert)}
            </h3>
            <p className="text-sm text-slate-700">{alert.account_label}</p>
          </div>
        </div>
        <Form method="post">
          <input type="hidden" name="alert_id" value={alert.id} />
          <Button
            type="submit"
            name="intent"
            value="remove"
            variant="secondary"
            isPending={busy && answer === undefined}
            pendingLabel="Removing…"
            aria-label={`Remove: ${name}`}
          >
            Remove
          </Button>
        </Form>
      </div>
      {threshold ? (
        <details className="mt-2" open={answer?.intent === "edit" && !answer.ok}>
          <summary className="min-h-11 cursor-pointer py-2 text-sm font-semibold text-accent-700">
            Change the amount
          </summary>
          <SchemaForm form={form} method="post" className="mt-2 grid gap-3 sm:grid-cols-[1fr_auto] sm:items-start">
            <input type="hidden" name="alert_id" value={alert.id} />
            <TextField
              name="amount"
              label={`New amount for ${name.toLowerCase().startsWith("balance") ? "the balance alert" : "the transaction alert"}`}
              prefix="$"
              inputMode="decimal"
              isRequired
            />
            <Button
              type="submit"
              name="intent"
              value="edit"
              className="sm:mt-7"
              isPending={busy}
              pendingLabel="Saving…"
            >
              Save amount
            </Button>
          </SchemaForm>
        </details>
      ) : null}
    </li>
  );
}

function AddAlert({
  accounts,
  answer,
  busy,
  done,
}: {
  accounts: Route.ComponentProps["loaderData"]["accounts"];
  answer?: Answer;
  busy: boolean;
  done: boolean;
}) {
  // A new form after each added alert, so its fields start empty again; a refusal after that keeps
  // the form's id (a new id resets the form, which would drop the refusal's message and values).
  const [formId, setFormId] = useState("add-alert");
  const addedId = done ? `add-alert-${answer?.message ?? ""}` : null;
  if (addedId && addedId !== formId) setFormId(addedId);
  const form = useSchemaForm(addAlertSchema, {
    id: addedId ?? formId,
    lastResult: answer && !answer.ok ? answer.reply : undefined,
  });
  const problems = formMessages(answer?.reply);
  return (
    <section
      aria-labelledby="add-alert-heading"
      className="mt-8 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
    >
      <h2 id="add-alert-heading" className="text-lg font-semibold text-brand-900">
        Add an alert
      </h2>
      {answer && !answer.ok && problems.length === 0 && !answer.reply?.error ? (
        <FormMessage className="mt-3" tone="error">
          {answer.message}
        </FormMessage>
      ) : null}
      {accounts.length === 0 ? (
        <p className="mt-2 text-sm text-slate-700">You have no open account to set an alert on.</p>
      ) : (
        <SchemaForm
          form={form}
          method="post"
          className="mt-3 grid gap-4 sm:grid-cols-3 sm:items-start"
          aria-labelledby="add-alert-heading"
        >
          <Select
            name="account_id"
            label="Account"
            placeholder="Choose an account"
            options={[
              { value: ALL_ACCOUNTS, label: "All my accounts, and any I open later" },
              ...accounts.map((a) => ({ value: String(a.id), label: a.label })),
            ]}
            isRequired
          />
          <Select name="kind" label="Tell me about" placeholder="Choose an alert" options={KIND_OPTIONS} isRequired />
          <TextField
            name="amount"
            label="Amount"
            prefix="$"
            inputMode="decimal"
            optional
            description="For a balance below or a transaction above."
          />
          <div className="sm:col-span-3">
            <Button type="submit" name="intent" value="add" isPending={busy} pendingLabel="Adding…">
              Add alert
            </Button>
          </div>
        </SchemaForm>
      )}
    </section>
  );
}
