import { useState } from "react";
import { CalendarClock, CheckCircle2 } from "lucide-react";
import { Link } from "react-router";
import { RadioGroup, Select, TextField } from "~/components/ui";
import { useHydrated } from "~/components/ui/use-hydrated";
import { formatCents } from "~/domain/money";

/**
 * The "When" of a Between Accounts or To Another Member transfer (docs/product.md#scheduled-transfers):
 * now, on a later business day, or repeating. With JavaScript only the fields of the choice show;
 * without it every field shows and the server reads those of the chosen one.
 */
export function WhenFields({
  values,
  when,
  onWhen,
}: {
  values: Record<string, string>;
  when: string;
  onWhen: (when: string) => void;
}) {
  const hydrated = useHydrated();
  const [ends, setEnds] = useState(values.ends ?? "count");
  const [frequency, setFrequency] = useState(values.frequency ?? "monthly");
  const later = !hydrated || when !== "now";
  const repeat = !hydrated || when === "repeat";
  return (
    <div className="space-y-4 sm:col-span-2">
      <RadioGroup
        name="when"
        label="When"
        value={when}
        onChange={onWhen}
        options={[
          { value: "now", label: "Now" },
          { value: "date", label: "On a date" },
          { value: "repeat", label: "Repeat" },
        ]}
      />
      {later ? (
        <div className="grid gap-4 rounded-xl border border-slate-200 bg-slate-50 p-4 sm:grid-cols-2">
          <TextField
            name="transfer_date"
            label={repeat && hydrated ? "First transfer date" : "Transfer date"}
            type="date"
            defaultValue={values.transfer_date}
            description="A business day, tomorrow at the earliest."
          />
          {repeat ? (
            <>
              <Select
                name="frequency"
                label="How often"
                defaultValue={frequency}
                onChange={setFrequency}
                options={[
                  { value: "monthly", label: "Monthly, on the same day" },
                  { value: "weeks", label: "Every few weeks" },
                ]}
              />
              {!hydrated || frequency === "weeks" ? (
                <TextField
                  name="every_weeks"
                  label="Every how many weeks"
                  description="1 for every week, 2 for every other week: 1 to 52."
                  inputMode="numeric"
                  defaultValue={values.every_weeks}
                />
              ) : null}
              <Select
                name="ends"
                label="Ends"
                defaultValue={ends}
                onChange={setEnds}
                options={[
                  { value: "count", label: "After a number of transfers" },
                  { value: "date", label: "On a date" },
                ]}
              />
              {!hydrated || ends === "count" ? (
                <TextField
                  name="payment_count"
                  label="Number of transfers"
                  description="1 to 120."
                  inputMode="numeric"
                  defaultValue={values.payment_count}
                />
              ) : null}
              {!hydrated || ends === "date" ? (
                <TextField name="end_date" label="Last transfer date" type="date" defaultValue={values.end_date} />
              ) : null}
              <RadioGroup
                name="on_failure"
                label="If a transfer cannot be sent"
                description="For example, when the money is not there on the day. We always tell you."
                defaultValue={values.on_failure ?? "continue"}
                orientation="vertical"
                className="sm:col-span-2"
                options={[
                  { value: "continue", label: "Keep the later transfers" },
                  { value: "stop", label: "Stop the repeating transfer" },
                ]}
              />
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** The form's When choice, kept by the form so that its button can say what it does. */
export function useWhen(values: Record<string, string>, reset: unknown): [string, (when: string) => void] {
  const [when, setWhen] = useState(values.when ?? "now");
  const [seen, setSeen] = useState(reset);
  if (seen !== reset) {
    setSeen(reset);
    setWhen(values.when ?? "now");
  }
  return [when, setWhen];
}

/** What the form shows once a transfer is set up for later. */
export function ScheduledNotice({ amount_cents, message }: { amount_cents: number; message: string }) {
  return (
    <div
      role="status"
      className="rounded-2xl border border-emerald-200 bg-emerald-50 p-5 text-emerald-950 focus:outline-none"
    >
      <div className="flex items-start gap-3">
        <CheckCircle2 className="mt-0.5 size-6 shrink-0 text-emerald-700" aria-hidden="true" />
        <div>
          <p className="font-semibold">Transfer scheduled: {formatCents(amount_cents)}</p>
          <p className="mt-1 text-sm">{message}. Nothing moves until then; we check the money is there on the day.</p>
          <p className="mt-2 text-sm">
            <Link
              to="/dashboard/scheduled-transfers"
              className="inline-flex items-center gap-1 font-semibold underline"
            >
              <CalendarClock className="size-4" aria-hidden="true" /> See your scheduled transfers
            </Link>
          </p>
        </div>
      </div>
    </div>
  );
}
