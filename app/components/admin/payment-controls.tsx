import { useNavigation } from "react-router";
import { PauseCircle, PlayCircle } from "lucide-react";
import { Button, SchemaForm, TextArea, useSchemaForm, type FormReply } from "~/components/ui";
import { PAUSE_REASON_MAX_CHARS, PauseSchema } from "~/domain/payment-controls";
import { StatusLine } from "./admin-shell";
import { useInstitutionDates } from "~/components/institution-dates";

export interface PaymentsActionResult {
  intent: "pause" | "set_rate";
  message: string;
  tone: "success" | "error";
  /** The form's answer (field messages, values to show again): docs/contributing.md#add-a-form. */
  reply?: FormReply;
}

/**
 * The switch that pauses every outgoing external payment (docs/product.md#payment-controls): To US
 * Bank and International then answer "Transaction Denied" for every member. A reason is required
 * both ways; the change is audited.
 */
export function PaymentControls({
  controls,
  result,
}: {
  controls: {
    outgoing_paused: boolean;
    reason: string | null;
    updated_by_email: string | null;
    updated_at: Date | string | null;
  };
  result?: PaymentsActionResult;
}) {
  const { formatDateTime } = useInstitutionDates();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "pause";
  const mine = result?.intent === "pause" ? result : undefined;
  const paused = controls.outgoing_paused;
  const form = useSchemaForm(PauseSchema, {
    id: paused ? "resume-payments" : "pause-payments",
    lastResult: mine?.tone === "error" ? mine.reply : undefined,
  });
  return (
    <section aria-labelledby="pause-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
      <h2 id="pause-title" className="text-lg font-semibold text-brand-800">
        Pause outgoing payments
      </h2>
      <p className="mt-1 text-sm text-slate-700">
        While paused, every member&apos;s To US Bank and International transfers are refused with &ldquo;Transaction
        Denied&rdquo;. Transfers between accounts and to other members go on.
      </p>
      <p className="mt-3 flex flex-wrap items-center gap-2 text-sm" data-testid="pause-state">
        <span
          className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ${paused ? "bg-red-100 text-red-900" : "bg-emerald-100 text-emerald-900"}`}
        >
          {paused ? "Paused" : "Running"}
        </span>
        {controls.updated_at ? (
          <span className="text-slate-700">
            since {formatDateTime(controls.updated_at)}
            {controls.updated_by_email ? ` by ${controls.updated_by_email}` : ""}
            {controls.reason ? `: “${controls.reason}”` : ""}
          </span>
        ) : null}
      </p>
      {mine ? (
        <div className="mt-3">
          <StatusLine message={mine.message} tone={mine.tone} />
        </div>
      ) : null}
      {/* Drawn afresh when the switch flips: the reason typed to pause is not offered as the reason to resume. */}
      <SchemaForm
        key={paused ? "resume" : "pause"}
        form={form}
        method="post"
        preventScrollReset
        className="mt-4 space-y-3"
        aria-label={paused ? "Resume outgoing payments" : "Pause outgoing payments"}
      >
        <input type="hidden" name="intent" value="pause" />
        <input type="hidden" name="paused" value={paused ? "off" : "on"} />
        <TextArea
          name="reason"
          label="Reason"
          description="Required, kept in the audit log."
          rows={2}
          maxLength={PAUSE_REASON_MAX_CHARS}
          isRequired
        />
        <Button type="submit" variant={paused ? "primary" : "danger"} isPending={busy} pendingLabel="Saving…">
          {paused ? (
            <PlayCircle className="size-4" aria-hidden="true" />
          ) : (
            <PauseCircle className="size-4" aria-hidden="true" />
          )}
          {paused ? "Resume outgoing payments" : "Pause outgoing payments"}
        </Button>
      </SchemaForm>
    </section>
  );
}
