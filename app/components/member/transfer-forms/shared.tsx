import { useEffect, useRef, useState } from "react";
import { Link, useFetcher, useNavigation, useSubmit } from "react-router";
import { useHydrated } from "~/components/ui/use-hydrated";
import { CheckCircle2, Fingerprint, Globe2, Landmark, Lock, Mail, Phone, UserCheck } from "lucide-react";
import {
  Button,
  FormMessage,
  SchemaForm,
  Select,
  TextField,
  anyForm,
  useSchemaForm,
  type FormReply,
  type SchemaFormProps,
} from "~/components/ui";
import { formatCents } from "~/domain/money";
import type { z } from "zod";
import { AMOUNT_MIN, AMOUNT_STEP, formErrorMessage } from "~/domain/transfers";
import { REFUSAL_MESSAGES } from "~/domain/refusals";
import { accountChoices } from "../pickers";

/*
 * What the dashboard's transfer forms share (docs/product.md#transfers): the data the page hands
 * them, the idempotency key, the schema-checked form, refusals, the success notice, the amount
 * field, the code step (and its passkey) and the submit row. Each form is in its own file beside this one.
 */
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
  /** To US Bank: the member's verified linked accounts it offers beside typing one. */
  linked_payees: Array<{
    id: number;
    nickname: string;
    bank_name: string | null;
    routing_number: string;
    masked: string;
    account_type: "checking" | "savings";
  }>;
  rates: Array<{ code: string; usd_per_unit: string }>;
  wire_fee_cents: number;
  /** To Another Member: the profile's limits, and the amount above which the emailed code is asked. */
  member_limits: { per_transfer_cents: number; daily_cents: number; code_above_cents: number };
  outgoing_paused: boolean;
  keys: Record<TransferTab, string>;
  support: { email: string; phone: string; hours: string };
}

// What the dashboard action answers: the server's own types (type-only, erased from the bundle).
export type {
  TransferActionResult as TransferResult,
  WireQuoteView,
} from "~/server/payments/transfer-form-steps.server";
import type { TransferActionResult as TransferResult } from "~/server/payments/transfer-form-steps.server";

export function accountOptions(accounts: FormAccount[]) {
  return accountChoices(accounts);
}

/**
 * A transfer form: posted to the dashboard's action for its tab, in two columns, its idempotency
 * key hidden, and its step (`intent`) where one submit button sends it. A new `formKey` (after a
 * transfer is sent or scheduled) starts it afresh.
 */
export function TransferSchemaForm({
  tab,
  formKey,
  idempotencyKey,
  intent,
  children,
  ...props
}: Omit<SchemaFormProps, "method" | "action"> & {
  tab: TransferTab;
  formKey: string;
  idempotencyKey: string;
  intent?: string;
}) {
  return (
    <SchemaForm
      key={formKey}
      {...props}
      method="post"
      action={actionFor(tab)}
      preventScrollReset
      className="grid gap-4 sm:grid-cols-2"
    >
      {intent ? <input type="hidden" name="intent" value={intent} /> : null}
      <input type="hidden" name="idempotency_key" value={idempotencyKey} />
      {children}
    </SchemaForm>
  );
}

/** The account the money comes from: the member's first unless the form came back with another. */
export function FromAccountSelect({
  data,
  values,
  wide = true,
}: {
  data: TransferData;
  values: Record<string, string>;
  /** Across both columns (a form whose To is not an account beside it). */
  wide?: boolean;
}) {
  return (
    <Select
      name="from_account_id"
      label="From"
      options={accountOptions(data.accounts)}
      placeholder="Choose an account"
      defaultValue={values.from_account_id ?? String(data.accounts[0]?.id ?? "")}
      isRequired
      className={wide ? "sm:col-span-2" : undefined}
    />
  );
}

export function useSubmitting(intentPrefix: TransferTab): boolean {
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
export function keyOf(result: TransferResult | undefined, tab: TransferTab, fresh: string): string {
  // The answer's own next key: the page's fresh one may not have arrived yet.
  if (result?.tab === tab && (result.status === "done" || result.status === "scheduled")) return result.next_key;
  if (result?.tab !== tab || result.status !== "refused" || result.code !== "failed") return fresh;
  const sent = postedValues(result.reply).idempotency_key ?? "";
  return /^[0-9a-f-]{36}$/i.test(sent) ? sent : fresh;
}

/** What the form posted, as the answer sends it back (never the code). */
export function postedValues(reply: FormReply | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply?.initialValue ?? {}))
    if (typeof value === "string") values[name] = value;
  return values;
}

export function valuesOf(result: TransferResult | undefined, tab: TransferTab): Record<string, string> {
  if (!result || result.tab !== tab || result.status === "done" || result.status === "scheduled") return {};
  return postedValues(result.reply);
}

/**
 * A transfer form's schema, run in the browser before posting (the one the action parses). A
 * refused check shows the same form message the server's answer would (formErrorMessage) above
 * the form, and each field's message under it. A finished transfer starts a fresh form.
 */
export function useTransferForm(schema: z.ZodType, tab: TransferTab, mine: TransferResult | undefined) {
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

export type RefusalView = Pick<Extract<TransferResult, { status: "refused" }>, "code" | "message" | "title">;

export const actionFor = (tab: TransferTab) => `/dashboard?transfer=${tab}`;

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

export function Success({
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

export function Hidden({ values, skip = [] }: { values: Record<string, string>; skip?: string[] }) {
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

export function AmountField({
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
export function CodeStep({
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
export function codeStepOf(mine: TransferResult | undefined): { at: boolean; summary?: string; passkey?: boolean } {
  if (mine?.status === "otp") return { at: true, summary: mine.summary, passkey: mine.passkey };
  if (mine?.status === "refused" && mine.step === "otp")
    return { at: true, summary: mine.summary, passkey: mine.passkey };
  return { at: false };
}

export function SubmitRow({
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

export function PausedNotice({ data }: { data: TransferData }) {
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
