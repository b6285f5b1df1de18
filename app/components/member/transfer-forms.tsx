import { useEffect, useRef, useState } from "react";
import { Form, Link, useFetcher, useNavigation, useSubmit } from "react-router";
import { useHydrated } from "~/components/ui/use-hydrated";
import {
  CheckCircle2,
  Fingerprint,
  Globe2,
  Info,
  Landmark,
  Lock,
  Mail,
  Phone,
  ShieldAlert,
  UserCheck,
} from "lucide-react";
import {
  Button,
  FormMessage,
  SchemaForm,
  Select,
  TextField,
  anyForm,
  useSchemaForm,
  type FormReply,
} from "~/components/ui";
import { cx } from "~/components/ui/field-styles";
import { formatCents } from "~/domain/money";
import type { z } from "zod";
import {
  AMOUNT_MIN,
  AMOUNT_STEP,
  betweenAccountsSchema,
  formErrorMessage,
  internationalSchema,
  toMemberSchema,
  toUsBankFormSchema,
  type UsAccountType,
} from "~/domain/transfers";
import { REFUSAL_MESSAGES } from "~/domain/refusals";
import { currencyInputStep, findCurrency } from "~/domain/currencies";
import { CountryPicker, CurrencyPicker, accountChoices } from "./pickers";

export type TransferTab = "internal" | "member" | "ach" | "wire";

export interface FormAccount {
  id: number;
  type_label: string;
  account_number: string;
  available_cents: number;
}

export interface TransferData {
  accounts: FormAccount[];
  us_banks: Array<{ name: string; routing_number: string }>;
  rates: Array<{ code: string; usd_per_unit: string }>;
  wire_fee_cents: number;
  /** To Another Member: the profile's limits, and the amount above which the emailed code is asked. */
  member_limits: { per_transfer_cents: number; daily_cents: number; code_above_cents: number };
  outgoing_paused: boolean;
  keys: Record<TransferTab, string>;
  support: { email: string; phone: string; hours: string };
}

// What the dashboard action answers: the server's own types (type-only, erased from the bundle).
export type { TransferActionResult as TransferResult, WireQuoteView } from "~/routes/member/dashboard.server";
import type { TransferActionResult as TransferResult, WireQuoteView } from "~/routes/member/dashboard.server";
import { foreignText, rateText } from "~/domain/remittance";
import { formatDate } from "./amount";
import { ScheduledNotice, WhenFields, useWhen } from "./when-fields";

function accountOptions(accounts: FormAccount[]) {
  return accountChoices(accounts);
}

function useSubmitting(intentPrefix: TransferTab): boolean {
  const navigation = useNavigation();
  const intent = navigation.formData?.get("intent");
  return navigation.state === "submitting" && typeof intent === "string" && intent.startsWith(intentPrefix);
}

/**
 * The idempotency key the form sends. The page's loader hands every form a fresh key each time it
 * runs, and it runs again after every answer. A fresh key is right once the transfer is known to
 * have gone through or been refused; after "Transfer failed" (an unexpected error, perhaps after
 * the transfer was written) the form keeps the key it sent, so that the retry is answered with
 * the first transfer instead of sending it twice.
 */
function keyOf(result: TransferResult | undefined, tab: TransferTab, fresh: string): string {
  // The answer's own next key: the page's fresh one may not have arrived yet.
  if (result?.tab === tab && (result.status === "done" || result.status === "scheduled")) return result.next_key;
  if (result?.tab !== tab || result.status !== "refused" || result.code !== "failed") return fresh;
  const sent = postedValues(result.reply).idempotency_key ?? "";
  return /^[0-9a-f-]{36}$/i.test(sent) ? sent : fresh;
}

/** What the form posted, as the answer sends it back (never the code). */
function postedValues(reply: FormReply | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply?.initialValue ?? {}))
    if (typeof value === "string") values[name] = value;
  return values;
}

function valuesOf(result: TransferResult | undefined, tab: TransferTab): Record<string, string> {
  if (!result || result.tab !== tab || result.status === "done" || result.status === "scheduled") return {};
  return postedValues(result.reply);
}

/**
 * A transfer form's schema, run in the browser before posting (the one the action parses). A
 * refused check shows the same form message the server's answer would (formErrorMessage) above
 * the form, and each field's message under it. A finished transfer starts a fresh form.
 */
function useTransferForm(schema: z.ZodType, tab: TransferTab, mine: TransferResult | undefined) {
  const [clientRefusal, setClientRefusal] = useState<string | null>(null);
  const [seen, setSeen] = useState(mine);
  if (seen !== mine) {
    setSeen(mine);
    setClientRefusal(null);
  }
  const done = mine?.status === "done" ? mine.reference_number : mine?.status === "scheduled" ? mine.next_key : "";
  const form = useSchemaForm(schema, {
    id: `transfer-${tab}${done ? `-${done}` : ""}`,
    lastResult: mine && mine.status !== "done" && mine.status !== "scheduled" ? mine.reply : undefined,
    onInvalid: (errors) =>
      setClientRefusal(formErrorMessage(Object.values(errors).flatMap((messages) => messages ?? []))),
  });
  const refusal: RefusalView | undefined = clientRefusal
    ? { code: "invalid", message: clientRefusal }
    : mine?.status === "refused"
      ? mine
      : undefined;
  return { form, refusal, clearRefusal: () => setClientRefusal(null) };
}

type RefusalView = Pick<Extract<TransferResult, { status: "refused" }>, "code" | "message" | "title">;

const actionFor = (tab: TransferTab) => `/dashboard?transfer=${tab}`;

/**
 * A refusal with its real cause; blocked and denied carry the support details
 * (docs/product.md#refusals).
 */
export function RefusalMessage({ result, support }: { result: RefusalView; support: TransferData["support"] }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [result]);
  if (result.title) {
    return (
      <FormMessage ref={ref} tone="error" title={result.title}>
        <p>{result.code === "account_frozen" ? REFUSAL_MESSAGES.account_frozen : result.message}</p>
        <p className="mt-2">Please visit a branch or contact support:</p>
        <ul className="mt-1 space-y-0.5">
          <li className="flex items-center gap-1.5">
            <Mail className="size-4" aria-hidden="true" />
            <a className="underline" href={`mailto:${support.email}`}>
              {support.email}
            </a>
          </li>
          <li className="flex items-center gap-1.5">
            <Phone className="size-4" aria-hidden="true" /> {support.phone}
          </li>
          <li>Support hours: {support.hours}</li>
        </ul>
      </FormMessage>
    );
  }
  return (
    <FormMessage ref={ref} tone="error" title={result.message}>
      {result.code === "transfer_limit" ? "Staff can reset the count; it starts again next month." : null}
    </FormMessage>
  );
}

function Success({
  result,
  note,
  autoCloseMs,
  onClose,
}: {
  result: Extract<TransferResult, { status: "done" }>;
  note: string;
  autoCloseMs?: number;
  onClose?: () => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
    if (!autoCloseMs || !onClose) return;
    const timer = setTimeout(onClose, autoCloseMs);
    return () => clearTimeout(timer);
  }, [result, autoCloseMs, onClose]);
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role="status"
      className="rounded-2xl border border-emerald-200 bg-emerald-50 p-5 text-emerald-950 focus:outline-none"
    >
      <div className="flex items-start gap-3">
        <CheckCircle2 className="mt-0.5 size-6 shrink-0 text-emerald-700" aria-hidden="true" />
        <div>
          <p className="font-semibold">
            {result.message}: {formatCents(result.amount_cents)}
          </p>
          <p className="mt-1 text-sm">
            Reference number <span className="font-mono font-semibold tracking-wide">{result.reference_number}</span>
          </p>
          <p className="mt-1 text-sm">
            {result.in_review
              ? "The money is held while we review it. We will let you know when it goes out; nothing more is needed from you now."
              : note}
          </p>
          {result.receipt_path ? (
            <p className="mt-2 text-sm">
              <Link to={result.receipt_path} className="font-semibold underline">
                View your receipt
              </Link>{" "}
              (you can cancel there within 30 minutes)
            </p>
          ) : null}
        </div>
      </div>
    </div>
  );
}

function Hidden({ values, skip = [] }: { values: Record<string, string>; skip?: string[] }) {
  return (
    <>
      {Object.entries(values)
        .filter(([k]) => !["intent", "otp", ...skip].includes(k))
        .map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
    </>
  );
}

function AmountField({
  defaultValue,
  label = "Amount",
  step = AMOUNT_STEP,
  min = AMOUNT_MIN,
  prefix = "$",
  description,
}: {
  defaultValue?: string;
  label?: string;
  step?: string;
  min?: string;
  prefix?: string;
  description?: string;
}) {
  return (
    <TextField
      name="amount"
      label={label}
      type="number"
      inputMode="decimal"
      defaultValue={defaultValue}
      isRequired
      prefix={prefix}
      description={description}
      inputClassName="tabular-nums"
      // React Aria passes these to the <input>: the browser's own min/step hints
      // (docs/product.md#transfers).
      {...({ min, step } as Record<string, string>)}
    />
  );
}

/**
 * The code step, the same for every transfer that asks for the emailed code (To US Bank, every
 * International transfer, To Another Member above the profile's amount): the transfer to check,
 * the code, Cancel and Confirm. The form's fields ride along hidden, so the server checks the
 * same transfer again before it moves any money.
 */
function CodeStep({
  tab,
  values,
  summary,
  intent,
  submitting,
  reply,
  passkey = false,
}: {
  tab: TransferTab;
  values: Record<string, string>;
  summary?: string;
  intent: string;
  submitting: boolean;
  reply?: FormReply;
  /** The member has a passkey: it can confirm instead of the code (with JavaScript). */
  passkey?: boolean;
}) {
  // No rules in the browser (the server checks the code); the form shows the answer's messages.
  const form = useSchemaForm(anyForm, { id: `transfer-${tab}-code`, lastResult: reply });
  const formRef = useRef<HTMLFormElement>(null);
  return (
    <SchemaForm
      ref={formRef}
      form={form}
      method="post"
      action={actionFor(tab)}
      preventScrollReset
      className="space-y-4"
    >
      <Hidden values={values} />
      <div className="rounded-2xl border border-slate-200 bg-slate-50 p-4">
        <p className="text-sm font-semibold text-slate-900">Check the transfer</p>
        <p className="mt-1 text-sm text-slate-700">{summary}</p>
      </div>
      <p className="flex items-start gap-2 text-sm text-slate-700">
        <Lock className="mt-0.5 size-4 shrink-0 text-brand-700" aria-hidden="true" /> We emailed you a 6-digit code to
        confirm this transfer. It expires in 10 minutes.
      </p>
      <TextField
        name="otp"
        label="One-time code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        className="max-w-xs"
        inputClassName="tracking-[0.4em] tabular-nums"
      />
      {passkey ? <PasskeyConfirm tab={tab} sendIntent={intent} formRef={formRef} /> : null}
      <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
        <Link
          to={`/dashboard?transfer=${tab}#transfer`}
          preventScrollReset
          className="inline-flex items-center justify-center rounded-lg px-4 py-3 text-sm font-semibold text-brand-800 hover:bg-slate-100"
        >
          Cancel
        </Link>
        <Button type="submit" name="intent" value={intent} size="lg" isPending={submitting} pendingLabel="Sending…">
          Confirm transfer
        </Button>
      </div>
    </SchemaForm>
  );
}

/**
 * "Confirm with your passkey" at the code step (docs/product.md#step-up-codes): the server issues a
 * challenge bound to this transfer (the same fields the code is bound to), the device's prompt
 * signs it, and the form is sent with that answer in place of the code.
 */
function PasskeyConfirm({
  tab,
  sendIntent,
  formRef,
}: {
  tab: TransferTab;
  sendIntent: string;
  formRef: React.RefObject<HTMLFormElement | null>;
}) {
  const hydrated = useHydrated();
  const challenge = useFetcher<TransferResult>({ key: `transfer-${tab}-passkey` });
  const submit = useSubmit();
  const [problem, setProblem] = useState<string | null>(null);
  const handled = useRef<unknown>(null);
  useEffect(() => {
    const data = challenge.data;
    if (!data || data.status !== "passkey" || !data.options || handled.current === data) return;
    handled.current = data;
    void (async () => {
      try {
        const { startAuthentication } = await import("@simplewebauthn/browser");
        const response = await startAuthentication({ optionsJSON: data.options as never });
        const body = new FormData(formRef.current ?? undefined);
        body.set("intent", sendIntent);
        body.set("passkey_response", JSON.stringify(response));
        body.delete("otp");
        void submit(body, { method: "post", action: actionFor(tab), preventScrollReset: true });
      } catch {
        setProblem("The passkey prompt was closed or timed out. Try again, or use the emailed code.");
      }
    })();
  }, [challenge.data, formRef, sendIntent, submit, tab]);
  if (!hydrated) return null;
  // No challenge: the member's codes are locked, or the passkey was removed meanwhile.
  const unavailable =
    challenge.state === "idle" && challenge.data?.status === "passkey" && !challenge.data.options
      ? "Your passkey cannot confirm this transfer now. Please use the emailed code."
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
          body.set("intent", `${tab}-passkey`);
          body.delete("otp");
          void challenge.submit(body, { method: "post", action: actionFor(tab) });
        }}
      >
        <Fingerprint className="size-4" aria-hidden="true" /> Confirm with your passkey instead
      </Button>
    </div>
  );
}

/** Where a form with a code step stands: at the code step (asked, or refused there) with the transfer's summary. */
function codeStepOf(mine: TransferResult | undefined): { at: boolean; summary?: string; passkey?: boolean } {
  if (mine?.status === "otp") return { at: true, summary: mine.summary, passkey: mine.passkey };
  if (mine?.status === "refused" && mine.step === "otp")
    return { at: true, summary: mine.summary, passkey: mine.passkey };
  return { at: false };
}

function SubmitRow({
  submitting,
  label,
  pendingLabel,
  disabled,
}: {
  submitting: boolean;
  label: string;
  pendingLabel: string;
  disabled?: boolean;
}) {
  return (
    <div className="flex justify-end pt-2 sm:col-span-2">
      <Button
        type="submit"
        size="lg"
        isPending={submitting}
        isDisabled={disabled}
        pendingLabel={pendingLabel}
        className="w-full sm:w-auto"
      >
        {label}
      </Button>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------

export function BetweenAccountsForm({ data, result }: { data: TransferData; result?: TransferResult }) {
  const submitting = useSubmitting("internal");
  const mine = result?.tab === "internal" ? result : undefined;
  const values = valuesOf(mine, "internal");
  const done = mine?.status === "done" ? mine : undefined;
  const later = mine?.status === "scheduled" ? mine : undefined;
  const { form, refusal } = useTransferForm(betweenAccountsSchema, "internal", mine);
  const [when, setWhen] = useWhen(values, mine);
  const options = accountOptions(data.accounts);
  return (
    <div className="space-y-4">
      {done ? <Success result={done} note="The money is in the other account now." /> : null}
      {later ? <ScheduledNotice amount_cents={later.amount_cents} message={later.message} /> : null}
      {refusal ? <RefusalMessage result={refusal} support={data.support} /> : null}
      <SchemaForm
        key={done?.reference_number ?? later?.next_key ?? "internal"}
        form={form}
        method="post"
        action={actionFor("internal")}
        preventScrollReset
        className="grid gap-4 sm:grid-cols-2"
      >
        <input type="hidden" name="intent" value="internal" />
        <input type="hidden" name="idempotency_key" value={keyOf(mine, "internal", data.keys.internal)} />
        <Select
          name="from_account_id"
          label="From"
          options={options}
          placeholder="Choose an account"
          defaultValue={values.from_account_id ?? String(data.accounts[0]?.id ?? "")}
          isRequired
        />
        <Select
          name="to_account_id"
          label="To"
          options={options}
          placeholder="Choose an account"
          defaultValue={values.to_account_id ?? String(data.accounts[1]?.id ?? "")}
          isRequired
        />
        <AmountField defaultValue={values.amount} />
        <TextField
          name="reference"
          label="Reference"
          defaultValue={values.reference}
          isRequired
          placeholder="e.g. Savings goal"
        />
        <WhenFields values={values} when={when} onWhen={setWhen} />
        <SubmitRow
          submitting={submitting}
          label={when === "now" ? "Transfer now" : "Schedule transfer"}
          pendingLabel={when === "now" ? "Sending…" : "Scheduling…"}
        />
      </SchemaForm>
    </div>
  );
}

export function ToMemberForm({ data, result }: { data: TransferData; result?: TransferResult }) {
  const submitting = useSubmitting("member");
  const mine = result?.tab === "member" ? result : undefined;
  const values = valuesOf(mine, "member");
  const done = mine?.status === "done" ? mine : undefined;
  const later = mine?.status === "scheduled" ? mine : undefined;
  const { form, refusal, clearRefusal } = useTransferForm(toMemberSchema, "member", mine);
  const [when, setWhen] = useWhen(values, mine);
  const verify = useFetcher<{ ok: boolean; message: string }>();
  const [email, setEmail] = useState(values.recipient_email ?? "");
  const [clientError, setClientError] = useState<string | null>(null);
  const [lastChecked, setLastChecked] = useState("");
  const verifying = verify.state !== "idle";
  const typed = email.trim().toLowerCase();
  // Verified: by the JSON lookup (with JavaScript) or by the action (without).
  const byFetcher = verify.data && lastChecked === typed ? verify.data : null;
  const byAction =
    mine?.status === "verified" && (postedValues(mine.reply).recipient_email ?? "").trim().toLowerCase() === typed
      ? { ok: true, message: `Recipient found: ${mine.name}` }
      : null;
  const lookup = verifying ? null : (byFetcher ?? byAction);
  const verified = Boolean(lookup?.ok);
  const code = codeStepOf(mine);
  const limits = data.member_limits;
  return (
    <div className="space-y-4">
      {done ? <Success result={done} note="The recipient has the money now, and we let them know." /> : null}
      {later ? <ScheduledNotice amount_cents={later.amount_cents} message={later.message} /> : null}
      {refusal ? <RefusalMessage result={refusal} support={data.support} /> : null}
      {clientError ? <FormMessage tone="error" title={clientError} /> : null}
      {code.at ? (
        <CodeStep
          tab="member"
          values={values}
          summary={code.summary}
          passkey={code.passkey}
          intent="member-send"
          submitting={submitting}
          reply={mine?.status === "refused" ? mine.reply : undefined}
        />
      ) : (
        <SchemaForm
          key={done?.reference_number ?? later?.next_key ?? "member"}
          form={form}
          method="post"
          action={actionFor("member")}
          preventScrollReset
          className="grid gap-4 sm:grid-cols-2"
          onSubmit={(event) => {
            // The form's schema passed; the recipient must also have been looked up.
            const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
            if (submitter?.value === "member-verify") return;
            if (!verified) {
              event.preventDefault();
              setClientError("Please enter a valid recipient");
            } else setClientError(null);
          }}
        >
          <input type="hidden" name="idempotency_key" value={keyOf(mine, "member", data.keys.member)} />
          <Select
            name="from_account_id"
            label="From"
            options={accountOptions(data.accounts)}
            placeholder="Choose an account"
            defaultValue={values.from_account_id ?? String(data.accounts[0]?.id ?? "")}
            isRequired
            className="sm:col-span-2"
          />
          <div className="sm:col-span-2">
            <div className="flex items-end gap-2">
              <TextField
                name="recipient_email"
                label="Recipient's email"
                type="email"
                autoComplete="off"
                value={email}
                onChange={(v) => {
                  setEmail(v);
                  setClientError(null);
                  clearRefusal();
                }}
                isRequired
                className="flex-1"
                description="We'll show the member's name so you can check it's the right person."
              />
              <button
                type="submit"
                name="intent"
                value="member-verify"
                // Without JavaScript it posts the form to look the member up: no checks first.
                formNoValidate
                disabled={verifying}
                className="mb-px inline-flex h-[46px] items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50 disabled:opacity-60"
                onClick={(event) => {
                  // With JavaScript: look the member up without leaving the page.
                  event.preventDefault();
                  setLastChecked(typed);
                  setClientError(null);
                  void verify.submit(
                    { recipient_email: typed },
                    { method: "post", action: "/dashboard/verify-recipient" },
                  );
                }}
              >
                <UserCheck className="size-4" aria-hidden="true" /> {verifying ? "Checking…" : "Verify"}
              </button>
            </div>
            <div aria-live="polite" className="mt-2 min-h-5 text-sm">
              {lookup?.ok ? (
                <p className="flex items-center gap-1.5 font-semibold text-emerald-800">
                  <CheckCircle2 className="size-4" aria-hidden="true" /> {lookup.message}
                </p>
              ) : lookup ? (
                <p className="font-semibold text-red-700">{lookup.message}</p>
              ) : null}
            </div>
          </div>
          <AmountField defaultValue={values.amount} />
          <TextField
            name="reference"
            label="Reference"
            defaultValue={values.reference}
            isRequired
            placeholder="e.g. Dinner on Friday"
          />
          <p className="flex items-start gap-2 text-sm text-slate-600 sm:col-span-2">
            <Info className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            Up to {formatCents(limits.per_transfer_cents)} a transfer and {formatCents(limits.daily_cents)} a day. Above{" "}
            {formatCents(limits.code_above_cents)} we email you a code to confirm the transfer.
          </p>
          <WhenFields values={values} when={when} onWhen={setWhen} />
          <input type="hidden" name="intent" value="member" />
          <SubmitRow
            submitting={submitting}
            label={when === "now" ? "Send money" : "Schedule transfer"}
            pendingLabel={when === "now" ? "Sending…" : "Scheduling…"}
          />
        </SchemaForm>
      )}
    </div>
  );
}

function PausedNotice({ data }: { data: TransferData }) {
  return (
    <FormMessage tone="warning" title="Transaction Denied" announce={false}>
      <p>All transactions temporarily suspended. Transfers to other banks are paused by the credit union.</p>
      <p className="mt-1">
        Contact support at{" "}
        <a className="underline" href={`mailto:${data.support.email}`}>
          {data.support.email}
        </a>{" "}
        or {data.support.phone}, {data.support.hours}.
      </p>
    </FormMessage>
  );
}

const US_ACCOUNT_TYPE_OPTIONS = [
  { value: "checking", label: "Checking" },
  { value: "savings", label: "Savings" },
] satisfies { value: UsAccountType; label: string }[];

export function ToUsBankForm({ data, result }: { data: TransferData; result?: TransferResult }) {
  const submitting = useSubmitting("ach");
  const mine = result?.tab === "ach" ? result : undefined;
  const values = valuesOf(mine, "ach");
  const done = mine?.status === "done" ? mine : undefined;
  const refused = mine?.status === "refused" ? mine : undefined;
  const { form, refusal } = useTransferForm(toUsBankFormSchema, "ach", mine);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const code = codeStepOf(mine);
  const [bank, setBank] = useState(values.bank ?? "");
  const bankOptions = [
    ...data.us_banks.map((b) => ({ value: b.routing_number, label: `${b.name} (${b.routing_number})` })),
    { value: "other", label: "Other bank: enter a routing number" },
  ];
  return (
    <div className="space-y-4">
      {done && dismissed !== done.reference_number ? (
        <Success
          result={done}
          note="The money is held now and goes out with the next ACH file (usually the next business day)."
          autoCloseMs={3000}
          onClose={() => setDismissed(done.reference_number)}
        />
      ) : null}
      {refusal ? <RefusalMessage result={refusal} support={data.support} /> : null}
      {data.outgoing_paused && !refused ? <PausedNotice data={data} /> : null}
      {code.at ? (
        <CodeStep
          tab="ach"
          values={values}
          summary={code.summary}
          passkey={code.passkey}
          intent="ach-send"
          submitting={submitting}
          reply={refused?.reply}
        />
      ) : (
        <SchemaForm
          key={done?.reference_number ?? "ach"}
          form={form}
          method="post"
          action={actionFor("ach")}
          preventScrollReset
          className="grid gap-4 sm:grid-cols-2"
        >
          <input type="hidden" name="intent" value="ach-review" />
          <input type="hidden" name="idempotency_key" value={keyOf(mine, "ach", data.keys.ach)} />
          <Select
            name="from_account_id"
            label="From"
            options={accountOptions(data.accounts)}
            placeholder="Choose an account"
            defaultValue={values.from_account_id ?? String(data.accounts[0]?.id ?? "")}
            isRequired
            className="sm:col-span-2"
          />
          <Select
            name="bank"
            label="Bank"
            options={bankOptions}
            placeholder="Choose a bank"
            defaultValue={values.bank ?? ""}
            onChange={setBank}
            isRequired
          />
          <TextField
            name="routing_number"
            label="Routing number"
            inputMode="numeric"
            defaultValue={values.routing_number}
            description={
              bank === "other" ? "9 digits, on the bottom left of a check" : "Only if you chose “Other bank”"
            }
            isDisabled={bank !== "" && bank !== "other"}
            optional={bank !== "other"}
          />
          <TextField
            name="account_number"
            label="Account number"
            inputMode="numeric"
            defaultValue={values.account_number}
            isRequired
            description="8 to 17 digits"
          />
          <Select
            name="account_type"
            label="Account type"
            options={US_ACCOUNT_TYPE_OPTIONS}
            defaultValue={values.account_type ?? "checking"}
            description="Ask the account holder if you are not sure"
            isRequired
          />
          <TextField
            name="account_name"
            label="Name on the account"
            defaultValue={values.account_name}
            isRequired
            className="sm:col-span-2"
          />
          <AmountField defaultValue={values.amount} />
          <TextField name="reference" label="Reference" defaultValue={values.reference} isRequired />
          <SubmitRow
            submitting={submitting}
            label="Continue"
            pendingLabel="Checking…"
            disabled={data.outgoing_paused}
          />
        </SchemaForm>
      )}
    </div>
  );
}

/**
 * The pre-payment disclosure of a remittance transfer (12 CFR 1005.31(b)(1),
 * docs/product.md#remittance-transfers): the figures from the server's one pure function
 * (app/domain/remittance.ts), in the order the rule lists them, with the date of availability.
 */
function WireDisclosure({ quote, recipient }: { quote: WireQuoteView; recipient: string }) {
  const d = quote.disclosure;
  const rows: Array<[string, string, boolean?]> = [
    ["Recipient", recipient],
    ["Transfer amount", formatCents(d.transfer_amount_cents)],
    ["Transfer fees", formatCents(d.fee_cents)],
    ["Transfer taxes", formatCents(d.taxes_cents)],
    ["Total", formatCents(d.total_cents), true],
    ["Exchange rate used", rateText(d)],
    [`Transfer amount in ${d.currency}`, foreignText(d.sent_minor, d.currency)],
    ...(d.third_party_fee_minor > 0
      ? ([["Other fees (taken by the recipient's bank)", foreignText(d.third_party_fee_minor, d.currency)]] as Array<
          [string, string]
        >)
      : []),
    ["Total to recipient", foreignText(d.received_minor, d.currency), true],
    ["Date available", formatDate(d.available_on)],
  ];
  return (
    <>
      <dl
        className="divide-y divide-slate-100 rounded-2xl border border-slate-200 bg-white text-sm"
        data-testid="wire-disclosure"
      >
        {rows.map(([term, detail, total]) => (
          <div key={term} className={`flex justify-between gap-4 px-4 py-3 ${total ? "bg-slate-50" : ""}`}>
            <dt className={total ? "font-semibold text-slate-900" : "text-slate-600"}>{term}</dt>
            <dd className={`text-right tabular-nums text-slate-900 ${total ? "text-base font-bold" : "font-medium"}`}>
              {detail}
            </dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-slate-600">
        The recipient may receive less due to fees charged by the recipient&apos;s bank and foreign taxes.
        {quote.remittance_exempt
          ? " You can cancel until we send the transfer."
          : " After you pay you can cancel within 30 minutes for a full refund, from the receipt."}
      </p>
    </>
  );
}

export function InternationalForm({ data, result }: { data: TransferData; result?: TransferResult }) {
  const submitting = useSubmitting("wire");
  const mine = result?.tab === "wire" ? result : undefined;
  const values = valuesOf(mine, "wire");
  const done = mine?.status === "done" ? mine : undefined;
  const refused = mine?.status === "refused" ? mine : undefined;
  const { form, refusal } = useTransferForm(internationalSchema, "wire", mine);
  const step = mine?.status === "confirm" || mine?.status === "notice" ? mine.status : undefined;
  const code = codeStepOf(mine);
  const quote = mine?.status === "confirm" || mine?.status === "notice" ? mine.quote : undefined;
  const [currency, setCurrency] = useState(values.currency ?? "USD");
  const rated = data.rates.map((r) => r.code);
  const minorStep = findCurrency(currency) ? currencyInputStep(currency) : "0.01";
  return (
    <div className="space-y-4">
      {done ? (
        <Success
          result={done}
          note="The money (with the wire fee) is held now; the wire goes out from our back office. International transfers cannot be reversed once sent."
        />
      ) : null}
      {refusal ? <RefusalMessage result={refusal} support={data.support} /> : null}
      {data.outgoing_paused && !refused ? <PausedNotice data={data} /> : null}
      {code.at ? (
        <CodeStep
          tab="wire"
          values={values}
          summary={code.summary}
          passkey={code.passkey}
          intent="wire-send"
          submitting={submitting}
          reply={refused?.reply}
        />
      ) : step && quote ? (
        <Form method="post" action={actionFor("wire")} preventScrollReset className="space-y-4" noValidate>
          <Hidden values={values} />
          {step === "confirm" ? (
            <>
              <h3 className="text-base font-semibold text-brand-900">Before you pay: what it costs</h3>
              <WireDisclosure
                quote={quote}
                recipient={`${values.recipient_name}, ${values.bank_name} (${quote.country_name})`}
              />
              <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
                <Link
                  to="/dashboard?transfer=wire#transfer"
                  preventScrollReset
                  className="inline-flex items-center justify-center rounded-lg px-4 py-3 text-sm font-semibold text-brand-800 hover:bg-slate-100"
                >
                  Cancel
                </Link>
                <Button
                  type="submit"
                  name="intent"
                  value="wire-confirm"
                  size="lg"
                  isPending={submitting}
                  pendingLabel="Checking…"
                >
                  Continue
                </Button>
              </div>
            </>
          ) : (
            <>
              <FormMessage tone="warning" title="Before you send" announce={false}>
                International transfers may carry extra fees and processing time and cannot be reversed once sent.
              </FormMessage>
              <p className="text-sm text-slate-700">
                {formatCents(quote.total_cents)} will be held from your account now, for {quote.amount_text} to{" "}
                {values.recipient_name}.
              </p>
              <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
                <Link
                  to="/dashboard?transfer=wire#transfer"
                  preventScrollReset
                  className="inline-flex items-center justify-center rounded-lg px-4 py-3 text-sm font-semibold text-brand-800 hover:bg-slate-100"
                >
                  Cancel
                </Link>
                <Button
                  type="submit"
                  name="intent"
                  value="wire-code"
                  size="lg"
                  isPending={submitting}
                  pendingLabel="Checking…"
                >
                  Send transfer
                </Button>
              </div>
            </>
          )}
        </Form>
      ) : (
        <SchemaForm
          key={done?.reference_number ?? "wire"}
          form={form}
          method="post"
          action={actionFor("wire")}
          preventScrollReset
          className="grid gap-4 sm:grid-cols-2"
        >
          <input type="hidden" name="intent" value="wire-review" />
          <input type="hidden" name="idempotency_key" value={keyOf(mine, "wire", data.keys.wire)} />
          <Select
            name="from_account_id"
            label="From"
            options={accountOptions(data.accounts)}
            placeholder="Choose an account"
            defaultValue={values.from_account_id ?? String(data.accounts[0]?.id ?? "")}
            isRequired
            className="sm:col-span-2"
          />
          <TextField name="recipient_name" label="Recipient's name" defaultValue={values.recipient_name} isRequired />
          <TextField name="bank_name" label="Bank name" defaultValue={values.bank_name} isRequired />
          <TextField
            name="bic"
            label="SWIFT/BIC"
            defaultValue={values.bic}
            isRequired
            description="8 or 11 characters"
            inputClassName="uppercase"
          />
          <TextField
            name="account_number"
            label="Account number"
            defaultValue={values.account_number}
            isRequired
            description="8 to 34 characters"
          />
          <TextField
            name="iban"
            label="IBAN"
            optional
            defaultValue={values.iban}
            inputClassName="uppercase"
            className="sm:col-span-2"
          />
          <CountryPicker name="country" label="Country" defaultValue={values.country} />
          <CurrencyPicker
            name="currency"
            label="Currency"
            defaultValue={values.currency ?? "USD"}
            rated={rated}
            onChange={setCurrency}
            description="Only currencies with a current rate can be chosen"
          />
          <AmountField
            defaultValue={values.amount}
            label={`Amount (${currency})`}
            prefix=""
            step={minorStep}
            min={minorStep}
            description={`Wire fee ${formatCents(data.wire_fee_cents)}`}
          />
          <TextField name="reference" label="Reference" defaultValue={values.reference} isRequired />
          <SubmitRow
            submitting={submitting}
            label="Review transfer"
            pendingLabel="Checking…"
            disabled={data.outgoing_paused}
          />
        </SchemaForm>
      )}
    </div>
  );
}

export const TAB_META: Record<TransferTab, { label: string; icon: typeof Landmark; intro: string }> = {
  internal: { label: "Between Accounts", icon: Landmark, intro: "Move money between your own accounts instantly." },
  member: {
    label: "To Another Member",
    icon: UserCheck,
    intro: "Send money to another member by email. It arrives at once.",
  },
  ach: {
    label: "To US Bank",
    icon: Landmark,
    intro: "Send to an account at another US bank by ACH. A one-time code confirms it.",
  },
  wire: {
    label: "International",
    icon: Globe2,
    intro: "Wire money abroad in the recipient's currency at our current rate. A one-time code confirms it.",
  },
};

export { Info, ShieldAlert, cx };
