import { useState } from "react";
import { useFetcher } from "react-router";
import { CheckCircle2, Info, UserCheck } from "lucide-react";
import { FormMessage, TextField } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { toMemberSchema } from "~/domain/transfers";
import { ScheduledNotice, WhenFields, useWhen } from "../when-fields";
import {
  CodeStep,
  RefusalMessage,
  Success,
  codeStepOf,
  postedValues,
  AmountField,
  SubmitRow,
  keyOf,
  useSubmitting,
  useTransferForm,
  valuesOf,
  type TransferData,
  type TransferResult,
  FromAccountSelect,
  TransferSchemaForm,
} from "./shared";

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
        <TransferSchemaForm
          tab="member"
          formKey={done?.reference_number ?? later?.next_key ?? "member"}
          form={form}
          idempotencyKey={keyOf(mine, "member", data.keys.member)}
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
          <FromAccountSelect data={data} values={values} />
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
        </TransferSchemaForm>
      )}
    </div>
  );
}
