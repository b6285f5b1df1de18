import crypto from "node:crypto";
import { useEffect, useRef, useState } from "react";
import { data, Link, useFetcher, useNavigation, useSubmit } from "react-router";
import { ArrowDownToLine, Fingerprint } from "lucide-react";
import { useHydrated } from "~/components/ui/use-hydrated";
import type { Route } from "./+types/move-money-in";
import { requestInfoContext } from "~/context";
import { requireMember } from "~/server/auth/session.server";
import { readForm } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { moneyInReviewSchema } from "~/domain/money-in";
import { accountLabel } from "~/domain/account-display";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { pageTitle } from "~/components/site/page-title";
import {
  Button,
  Checkbox,
  FormMessage,
  SchemaForm,
  Select,
  TextField,
  anyForm,
  formMessages,
  useSchemaForm,
} from "~/components/ui";
import { StatusBadge } from "~/components/member/amount";
import { useInstitutionDates } from "~/components/institution-dates";
import { moneyInAction, moneyInPageOf, returnReason, type MoneyInAnswer } from "./move-money-in.server";

/**
 * /dashboard/linked-accounts/move-money-in (docs/product.md#move-money-in): the member pulls money
 * from a verified linked account into their checking or savings. Two steps: the form, then the
 * Nacha WEB authorization's exact words to agree to (and an emailed code above the profile's
 * amount); then the list of what they moved in (pending, completed, returned).
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Move money in", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const page = await moneyInPageOf(user.id);
  return {
    links: page.links.map((l) => ({
      id: l.id,
      // Short enough for a phone's select; the authorization names the bank in full.
      label: `${l.nickname} ${l.masked}`,
    })),
    accounts: page.accounts.map((a) => ({ id: a.id, label: accountLabel(a) })),
    pulls: page.pulls.map((p) => ({
      ...p,
      return_reason: p.return_code ? returnReason(p.return_code) : null,
      created_at: p.created_at.toISOString(),
    })),
    limits: page.limits,
    remaining_cents: page.remaining_cents,
    // The form's key: a double submit asks once (docs/product.md#idempotency).
    idempotency_key: crypto.randomUUID(),
  };
}

const INTENTS = ["review", "confirm", "passkey"] as const;

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireMember(request);
  const { request_id, ip } = context.get(requestInfoContext);
  const form = await readForm(request);
  const intent = formIntent(form, INTENTS);
  if (!intent) throw data(UNKNOWN_INTENT_MESSAGE, { status: 400 });
  const { status, answer } = await moneyInAction({ id: user.id, email: user.email, name: user.name }, intent, form, {
    request_id,
    ip,
  });
  return data(answer, { status });
}

type LoaderData = Route.ComponentProps["loaderData"];

export default function MoveMoneyIn({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as MoneyInAnswer | undefined;
  const { links, accounts, limits, remaining_cents } = loaderData;
  return (
    <div className="mx-auto max-w-3xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <p className="text-sm">
        <Link to="/dashboard/linked-accounts" className="font-semibold text-accent-700 hover:underline">
          Linked accounts
        </Link>
      </p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Move money in</h1>
      <p className="mt-2 text-sm text-slate-700">
        Move money from your verified account at another bank into your checking or savings. We take it with the next
        ACH file (usually the next business day); it is in your account then and available{" "}
        {limits.hold_business_days === 0
          ? "at once"
          : `${limits.hold_business_days} business ${limits.hold_business_days === 1 ? "day" : "days"} later`}
        .
      </p>
      <p className="mt-2 text-sm text-slate-700" data-testid="money-in-limits">
        You can move up to <strong>{formatCents(remaining_cents)}</strong> more today. The limits are{" "}
        {formatCents(limits.daily_max_cents)} a day and {formatCents(limits.monthly_max_cents)} a month.
      </p>

      {answer?.step === "done" ? (
        <FormMessage className="mt-4" tone="success" title={answer.message}>
          Reference {answer.reference}. You can follow it below.
        </FormMessage>
      ) : null}

      {links.length === 0 ? (
        <p className="mt-6 rounded-2xl border border-slate-200 bg-white p-6 text-center text-sm text-slate-700">
          You have no verified linked account yet.{" "}
          <Link to="/dashboard/linked-accounts" className="font-semibold text-accent-700 hover:underline">
            Link an account
          </Link>{" "}
          and confirm its two small deposits first.
        </p>
      ) : accounts.length === 0 ? (
        <p className="mt-6 rounded-2xl border border-slate-200 bg-white p-6 text-center text-sm text-slate-700">
          You have no open checking or savings account to move money into.
        </p>
      ) : answer?.step === "confirm" ? (
        <ConfirmStep answer={answer} />
      ) : (
        <FormStep loaderData={loaderData} answer={answer} />
      )}

      <PullHistory pulls={loaderData.pulls} />
    </div>
  );
}

function FormStep({ loaderData, answer }: { loaderData: LoaderData; answer: MoneyInAnswer | undefined }) {
  const reply = answer?.step === "form" ? answer.reply : null;
  const form = useSchemaForm(moneyInReviewSchema, {
    id: `money-in-${loaderData.idempotency_key}`,
    lastResult: reply,
  });
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "review";
  const problem = answer?.step === "form" ? (answer.message ?? formMessages(reply)[0]) : undefined;
  return (
    <section
      aria-labelledby="move-heading"
      className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
    >
      <h2 id="move-heading" className="text-lg font-semibold text-brand-900">
        How much, from where
      </h2>
      {problem ? <FormMessage className="mt-3" tone="error" title={problem} /> : null}
      <SchemaForm form={form} method="post" className="mt-4 grid gap-4 sm:grid-cols-2">
        <input type="hidden" name="idempotency_key" value={loaderData.idempotency_key} />
        <Select
          name="linked_account_id"
          label="From"
          options={loaderData.links.map((l) => ({ value: String(l.id), label: l.label }))}
          defaultValue={String(loaderData.links[0]!.id)}
          isRequired
        />
        <Select
          name="to_account_id"
          label="To"
          options={loaderData.accounts.map((a) => ({ value: String(a.id), label: a.label }))}
          defaultValue={String(loaderData.accounts[0]!.id)}
          isRequired
        />
        <TextField
          name="amount"
          label="Amount"
          prefix="$"
          inputMode="decimal"
          placeholder="0.00"
          isRequired
          className="sm:col-span-2"
        />
        <div className="flex justify-end sm:col-span-2">
          <Button
            type="submit"
            name="intent"
            value="review"
            size="lg"
            isPending={busy}
            pendingLabel="Checking…"
            className="w-full sm:w-auto"
          >
            Review
          </Button>
        </div>
      </SchemaForm>
    </section>
  );
}

function ConfirmStep({ answer }: { answer: Extract<MoneyInAnswer, { step: "confirm" }> }) {
  const form = useSchemaForm(anyForm, { id: "money-in-confirm", lastResult: answer.reply });
  const formRef = useRef<HTMLFormElement>(null);
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "confirm";
  const problem = answer.message ?? formMessages(answer.reply)[0];
  return (
    <section
      aria-labelledby="confirm-heading"
      className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
    >
      <h2 id="confirm-heading" className="text-lg font-semibold text-brand-900">
        Authorize the transfer
      </h2>
      <p className="mt-2 text-sm text-slate-700">{answer.summary}</p>
      {problem ? <FormMessage className="mt-3" tone="error" title={problem} /> : null}
      <SchemaForm form={form} method="post" className="mt-4 grid gap-4" ref={formRef}>
        {Object.entries(answer.values).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name="authorization_text" value={answer.authorization_text} />
        <figure className="rounded-xl border border-slate-300 bg-slate-50 p-4">
          <figcaption className="text-sm font-semibold text-slate-900">ACH debit authorization</figcaption>
          <blockquote className="mt-2 text-sm text-slate-800" data-testid="authorization-text">
            {answer.authorization_text}
          </blockquote>
        </figure>
        <Checkbox name="agree" value="yes" isRequired>
          I agree to this authorization
        </Checkbox>
        {answer.needs_code ? (
          <TextField
            name="otp"
            label="Confirmation code"
            description="We emailed you a 6-digit code for this transfer. It expires in 10 minutes."
            inputMode="numeric"
            autoComplete="one-time-code"
            isRequired
          />
        ) : null}
        {answer.needs_code && answer.passkey ? <PasskeyConfirm formRef={formRef} /> : null}
        <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
          <Link
            to="/dashboard/linked-accounts/move-money-in"
            className="inline-flex min-h-11 items-center justify-center rounded-lg px-4 text-sm font-semibold text-accent-700 hover:underline"
          >
            Change
          </Link>
          <Button
            type="submit"
            name="intent"
            value="confirm"
            size="lg"
            isPending={busy}
            pendingLabel="Moving…"
            className="w-full sm:w-auto"
          >
            Move money in
          </Button>
        </div>
      </SchemaForm>
    </section>
  );
}

/**
 * "Confirm with your passkey" instead of the emailed code (docs/product.md#step-up-codes): the
 * server issues a challenge bound to this pull (what the code is bound to), the device's prompt
 * signs it, and the form is sent with that answer in place of the code.
 */
function PasskeyConfirm({ formRef }: { formRef: React.RefObject<HTMLFormElement | null> }) {
  const hydrated = useHydrated();
  const challenge = useFetcher<MoneyInAnswer>({ key: "money-in-passkey" });
  const submit = useSubmit();
  const [problem, setProblem] = useState<string | null>(null);
  const handled = useRef<unknown>(null);
  useEffect(() => {
    const answer = challenge.data;
    if (!answer || answer.step !== "passkey" || !answer.options || handled.current === answer) return;
    handled.current = answer;
    void (async () => {
      try {
        const { startAuthentication } = await import("@simplewebauthn/browser");
        const response = await startAuthentication({ optionsJSON: answer.options as never });
        const body = new FormData(formRef.current ?? undefined);
        body.set("intent", "confirm");
        body.set("passkey_response", JSON.stringify(response));
        body.delete("otp");
        void submit(body, { method: "post" });
      } catch {
        setProblem("The passkey prompt was closed or timed out. Try again, or use the emailed code.");
      }
    })();
  }, [challenge.data, formRef, submit]);
  if (!hydrated) return null;
  const unavailable =
    challenge.state === "idle" && challenge.data?.step === "passkey" && !challenge.data.options
      ? "Your passkey cannot confirm this now. Please use the emailed code."
      : null;
  return (
    <div className="space-y-2">
      {(problem ?? unavailable) ? <FormMessage tone="error" title={(problem ?? unavailable)!} /> : null}
      <Button
        variant="secondary"
        isPending={challenge.state !== "idle"}
        pendingLabel="Waiting for your passkey…"
        onPress={() => {
          setProblem(null);
          const body = new FormData(formRef.current ?? undefined);
          body.set("intent", "passkey");
          body.delete("otp");
          void challenge.submit(body, { method: "post" });
        }}
      >
        <Fingerprint className="size-4" aria-hidden="true" /> Confirm with your passkey instead
      </Button>
    </div>
  );
}

const STATUS = {
  pending: { badge: "pending", label: "Pending" },
  sent: { badge: "posted", label: "Completed" },
  returned: { badge: "failed", label: "Returned" },
  cancelled: { badge: "reversed", label: "Cancelled" },
} as const;

function PullHistory({ pulls }: { pulls: LoaderData["pulls"] }) {
  const { formatDate } = useInstitutionDates();
  return (
    <section aria-labelledby="history-heading" className="mt-8">
      <h2 id="history-heading" className="text-lg font-semibold text-brand-900">
        Money you moved in
      </h2>
      {pulls.length === 0 ? (
        <p className="mt-3 rounded-2xl border border-slate-200 bg-white p-6 text-center text-sm text-slate-700">
          Nothing yet.
        </p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100 rounded-2xl border border-slate-200 bg-white shadow-sm">
          {pulls.map((p) => (
            <li key={p.id} className="flex flex-wrap items-start justify-between gap-3 p-4" data-testid="money-in-pull">
              <div className="flex min-w-0 items-start gap-3">
                <ArrowDownToLine className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden="true" />
                <div className="min-w-0">
                  <p className="font-semibold text-slate-900">
                    {formatCents(p.amount_cents)} from {p.from}
                  </p>
                  <p className="text-sm text-slate-700">
                    To {p.to} · asked {formatDate(p.created_at)} · {p.reference}
                  </p>
                  <p className="text-sm text-slate-700">{pullLine(p)}</p>
                </div>
              </div>
              <StatusBadge status={STATUS[p.status].badge} label={STATUS[p.status].label} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Where a pull stands, in a sentence. */
function pullLine(p: LoaderData["pulls"][number]): string {
  switch (p.status) {
    case "pending":
      return "Goes with the next ACH file.";
    case "sent":
      return p.available || !p.available_on
        ? "In your account and available."
        : `In your account; available on ${formatBusinessDate(p.available_on)}.`;
    case "returned":
      return `Returned by the other bank: ${p.return_reason ?? ""} (${p.return_code ?? ""}). The money was taken back.`;
    case "cancelled":
      return "Cancelled before it was sent; nothing was taken.";
  }
}
