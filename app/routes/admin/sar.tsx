import { data, Form, Link, redirect, useNavigation } from "react-router";
import { ArrowLeft, FilePlus2 } from "lucide-react";
import type { Route } from "./+types/sar";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { parseSubmission, readForm, refusalStatus, replyTo, type FormReply } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import {
  Button,
  FormMessage,
  RadioGroup,
  SchemaForm,
  Select,
  TextArea,
  TextField,
  useSchemaForm,
} from "~/components/ui";
import { DisputeClock } from "~/components/admin/dispute-clock";
import { formatCents, centsAsDecimal } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import {
  OpenSarSchema,
  SAR_DAYS_NO_SUSPECT,
  SAR_DAYS_SUSPECT_IDENTIFIED,
  SAR_NARRATIVE_MAX_CHARS,
  SAR_STATUS_LABELS,
} from "~/domain/suspicious-activity";
import { openSarCase, sarRows, sarSource } from "./sar.server";

/**
 * /admin/sar (docs/product.md#suspicious-activity-reports): the suspicious activity reports, those
 * still to file first by their deadline; and the form that opens one from a confirmed screening
 * match or a reviewed incoming credit (?source=screening&id=N). Staff ("admin") only: a SAR is
 * confidential (31 CFR 1020.320(e)); a reviewer, a member, an applicant and a visitor are refused.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Suspicious activity reports", matches), { name: "robots", content: "noindex" }];
}

const SOURCES = [
  { value: "screening", label: "Confirmed screening match" },
  { value: "credit_review", label: "Reviewed incoming credit" },
];

function sourceOf(url: URL): { type: string; id: number } | null {
  const type = url.searchParams.get("source") ?? "";
  const id = url.searchParams.get("id") ?? "";
  if (!/^(screening|credit_review)$/.test(type) || !/^[1-9]\d{0,14}$/.test(id)) return null;
  return { type, id: Number(id) };
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaff(request, context.get(requestInfoContext));
  const url = new URL(request.url);
  const asked = sourceOf(url);
  const source = asked ? await sarSource(asked.type, asked.id) : null;
  const rows = await sarRows();
  return {
    rows,
    source,
    source_missing: url.searchParams.has("source") && !source,
  };
}

type ActionResult = { reply: FormReply; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const asked = sourceOf(new URL(request.url));
  const form = await readForm(request);
  const parsed = parseSubmission(OpenSarSchema, form);
  if (parsed.status !== "success")
    return data(
      { reply: replyTo(parsed), message: "Nothing was opened: please check the form." } satisfies ActionResult,
      { status: 400 },
    );
  const result = await openSarCase({
    source_type: asked?.type ?? "",
    source_id: asked?.id ?? 0,
    suspect_identified: parsed.value.suspect_identified === "yes",
    amount: parsed.value.amount,
    activity_from: parsed.value.activity_from,
    activity_to: parsed.value.activity_to,
    narrative: parsed.value.narrative,
    staff,
    origin,
  });
  if (!result.ok)
    return data({ reply: replyTo(parsed), message: result.message } satisfies ActionResult, {
      status: refusalStatus(result.kind),
    });
  return redirect(`/admin/sar/${result.id}`);
}

export default function SarPage({ loaderData, actionData }: Route.ComponentProps) {
  const { rows, source, source_missing } = loaderData;
  return (
    <div className="space-y-5">
      <Link to="/admin/sanctions" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700">
        <ArrowLeft className="size-4" aria-hidden="true" /> Sanctions
      </Link>
      <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Suspicious activity reports</h1>
      <p className="max-w-3xl text-sm text-slate-800">
        A report (31 CFR 1020.320) is filed no later than {SAR_DAYS_SUSPECT_IDENTIFIED} calendar days after the activity
        was first detected, or {SAR_DAYS_NO_SUSPECT} when no suspect is identified. A second staff member approves each
        filing; the filing itself is made on FinCEN&apos;s BSA E-Filing System, outside Mutual, and its BSA ID recorded
        here. Reports are confidential: the member is never told, and they appear nowhere a member can see.
      </p>
      {source ? (
        <OpenSarForm source={source} answer={(actionData as ActionResult | undefined) ?? null} />
      ) : (
        <ChooseSource missing={source_missing} />
      )}
      <section
        aria-labelledby="sar-list-title"
        className="rounded-2xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
      >
        <h2 id="sar-list-title" className="text-lg font-semibold text-brand-900">
          Reports
        </h2>
        {rows.length === 0 ? (
          <p className="mt-3 text-slate-700">No report has been opened.</p>
        ) : (
          <ul className="mt-3 divide-y divide-slate-200">
            {rows.map((r) => (
              <li key={r.id} className="grid gap-3 py-3 sm:grid-cols-[minmax(0,1fr)_auto] sm:items-start">
                <div className="min-w-0">
                  <p className="font-semibold break-words text-slate-900">
                    <Link to={`/admin/sar/${r.id}`} className="text-accent-700 underline underline-offset-2">
                      Report {r.id}
                    </Link>{" "}
                    · {formatCents(r.amount_cents)} · {r.subject_emails.join(", ")}
                  </p>
                  <p className="text-slate-700">
                    {SAR_STATUS_LABELS[r.status]}
                    {r.bsa_acknowledgement ? `, BSA ID ${r.bsa_acknowledgement}` : ""} · detected{" "}
                    {formatBusinessDate(r.detected_on)}
                  </p>
                </div>
                {r.state ? (
                  <DisputeClock
                    deadline={{
                      due_on: r.due_on,
                      state: r.state,
                      what: "File the report",
                      rule: r.suspect_identified ? "30 days from detection" : "60 days: no suspect identified",
                    }}
                  />
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function ChooseSource({ missing }: { missing: boolean }) {
  return (
    <Form
      method="get"
      aria-label="Open a report"
      className="grid gap-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-[1fr_1fr_auto] sm:items-end sm:p-5"
    >
      <Select id="sar-source" name="source" label="Open a report from" options={SOURCES} defaultValue="screening" />
      <TextField
        name="id"
        label="Item number"
        inputMode="numeric"
        description="The screening item's or the credit review's number"
        error={missing ? "No confirmed screening match or reviewed credit has this number." : undefined}
      />
      <Button type="submit" variant="secondary">
        Continue
      </Button>
    </Form>
  );
}

function OpenSarForm({
  source,
  answer,
}: {
  source: NonNullable<Route.ComponentProps["loaderData"]["source"]>;
  answer: ActionResult | null;
}) {
  const navigation = useNavigation();
  const form = useSchemaForm(OpenSarSchema, {
    lastResult: answer?.reply,
    defaultValue: {
      amount: source.amount_cents > 0 ? centsAsDecimal(source.amount_cents) : "",
      activity_from: source.detected_on,
      activity_to: source.detected_on,
    },
  });
  return (
    <SchemaForm
      form={form}
      method="post"
      aria-label="Open a suspicious activity report"
      className="space-y-5 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
    >
      <h2 className="text-lg font-semibold text-brand-900">Open a report</h2>
      <dl className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="font-semibold text-slate-900">From</dt>
        <dd className="break-words text-slate-900">{source.label}</dd>
        <dt className="font-semibold text-slate-900">Subject</dt>
        <dd className="break-words text-slate-900">{source.member_email ?? source.member_id}</dd>
        <dt className="font-semibold text-slate-900">Detected on</dt>
        <dd className="text-slate-900">{formatBusinessDate(source.detected_on)}</dd>
      </dl>
      <RadioGroup
        name="suspect_identified"
        label="Is a suspect identified?"
        orientation="vertical"
        isRequired
        options={[
          { value: "yes", label: "Yes", description: `File within ${SAR_DAYS_SUSPECT_IDENTIFIED} days of detection` },
          {
            value: "no",
            label: "No",
            description: `Up to ${SAR_DAYS_NO_SUSPECT} days of detection, to identify one`,
          },
        ]}
      />
      <div className="grid gap-4 sm:grid-cols-3">
        <TextField name="amount" label="Amount involved ($)" inputMode="decimal" isRequired />
        <TextField name="activity_from" label="Activity began" type="date" isRequired />
        <TextField name="activity_to" label="Activity ended" type="date" isRequired />
      </div>
      <TextArea
        name="narrative"
        label="Facts and narrative"
        rows={8}
        maxLength={SAR_NARRATIVE_MAX_CHARS}
        description="Who, what, when, where and why it is suspicious. Stored encrypted; never shown to the member."
        isRequired
      />
      {answer ? <FormMessage tone="error">{answer.message}</FormMessage> : null}
      <Button
        type="submit"
        isPending={navigation.state === "submitting"}
        pendingLabel="Opening…"
        className="w-full sm:w-auto"
      >
        <FilePlus2 className="size-4" aria-hidden="true" /> Open the report
      </Button>
    </SchemaForm>
  );
}
