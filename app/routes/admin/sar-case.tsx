import { data, Form, Link, useNavigation } from "react-router";
import { ArrowLeft } from "lucide-react";
import type { Route } from "./+types/sar-case";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { readForm, refusalStatus } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { DisputeClock } from "~/components/admin/dispute-clock";
import { useInstitutionDates } from "~/components/institution-dates";
import { Button, TextField } from "~/components/ui";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { formIntent, UNKNOWN_INTENT_MESSAGE } from "~/domain/form-intent";
import { FileSarSchema, SAR_STATUS_LABELS } from "~/domain/suspicious-activity";
import { approveSarCase, fileSarCase, sarView } from "./sar.server";

/**
 * /admin/sar/:sarId (docs/product.md#suspicious-activity-reports): one suspicious activity report,
 * its facts and narrative (decrypted for compliance staff only), its filing deadline; a second
 * staff member approves the filing; then it is marked filed with the BSA E-Filing System's BSA ID.
 * Staff ("admin") only.
 */
export function meta({ matches, params }: Route.MetaArgs) {
  return [...pageTitle(`Suspicious activity report ${params.sarId}`, matches), { name: "robots", content: "noindex" }];
}

function sarId(value: string): number {
  return /^[1-9]\d{0,14}$/.test(value) ? Number(value) : 0;
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { staff } = await requireStaff(request, context.get(requestInfoContext));
  const id = sarId(params.sarId);
  const report = id ? await sarView(id) : null;
  if (!report) throw data({ message: "This report was not found." }, { status: 404 });
  return { report, staff_id: staff.id };
}

type ActionResult = { tone: "success" | "error"; message: string; field?: "bsa_acknowledgement" };

export async function action({ request, context, params }: Route.ActionArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const form = await readForm(request);
  const intent = formIntent(form, ["approve", "file"] as const);
  const id = sarId(params.sarId);
  if (!intent) return data({ tone: "error", message: UNKNOWN_INTENT_MESSAGE } satisfies ActionResult, { status: 400 });
  if (intent === "file") {
    const parsed = FileSarSchema.safeParse({ bsa_acknowledgement: String(form.get("bsa_acknowledgement") ?? "") });
    if (!parsed.success)
      return data(
        {
          tone: "error",
          message: parsed.error.issues[0]!.message,
          field: "bsa_acknowledgement",
        } satisfies ActionResult,
        { status: 400 },
      );
    const result = await fileSarCase({ id, bsa_acknowledgement: parsed.data.bsa_acknowledgement, staff, origin });
    if (!result.ok)
      return data({ tone: "error", message: result.message } satisfies ActionResult, {
        status: refusalStatus(result.kind),
      });
    return { tone: "success", message: result.message } satisfies ActionResult;
  }
  const result = await approveSarCase({ id, staff, origin });
  if (!result.ok)
    return data({ tone: "error", message: result.message } satisfies ActionResult, {
      status: refusalStatus(result.kind),
    });
  return { tone: "success", message: result.message } satisfies ActionResult;
}

export default function SarCasePage({ loaderData, actionData }: Route.ComponentProps) {
  const { report: r, staff_id } = loaderData;
  const answer = actionData as ActionResult | undefined;
  const navigation = useNavigation();
  const { formatDateTime } = useInstitutionDates();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  return (
    <div className="space-y-5">
      <Link to="/admin/sar" className="inline-flex items-center gap-1.5 text-sm font-semibold text-accent-700">
        <ArrowLeft className="size-4" aria-hidden="true" /> Suspicious activity reports
      </Link>
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">
          Suspicious activity report {r.id}
        </h1>
        <span className="rounded-full bg-slate-100 px-3 py-1 text-sm font-semibold text-slate-800">
          {SAR_STATUS_LABELS[r.status]}
        </span>
      </div>
      {answer && answer.field !== "bsa_acknowledgement" ? (
        <StatusLine message={answer.message} tone={answer.tone} />
      ) : null}
      <section
        aria-labelledby="sar-facts-title"
        className="rounded-2xl border border-slate-200 bg-white p-4 text-sm shadow-sm sm:p-5"
      >
        <h2 id="sar-facts-title" className="mb-3 text-lg font-semibold text-brand-900">
          Facts
        </h2>
        {r.state ? (
          <div className="mb-3">
            <DisputeClock
              deadline={{
                due_on: r.due_on,
                state: r.state,
                what: "File the report",
                rule: r.suspect_identified
                  ? "31 CFR 1020.320(b)(3): 30 calendar days from detection"
                  : "31 CFR 1020.320(b)(3): 60 calendar days, no suspect identified",
              }}
            />
          </div>
        ) : null}
        <dl className="grid gap-x-6 gap-y-2 sm:grid-cols-[max-content_1fr]">
          <dt className="font-semibold text-slate-900">From</dt>
          <dd className="break-words text-slate-900">{r.source_label ?? `${r.source_type} ${r.source_id}`}</dd>
          <dt className="font-semibold text-slate-900">Subjects</dt>
          <dd className="break-words text-slate-900">{r.subject_emails.join(", ")}</dd>
          <dt className="font-semibold text-slate-900">Amount</dt>
          <dd className="text-slate-900">{formatCents(r.amount_cents)}</dd>
          <dt className="font-semibold text-slate-900">Activity</dt>
          <dd className="text-slate-900">
            {formatBusinessDate(r.activity_from)} to {formatBusinessDate(r.activity_to)}
          </dd>
          <dt className="font-semibold text-slate-900">Detected on</dt>
          <dd className="text-slate-900">{formatBusinessDate(r.detected_on)}</dd>
          <dt className="font-semibold text-slate-900">File by</dt>
          <dd className="text-slate-900">{formatBusinessDate(r.due_on)}</dd>
          <dt className="font-semibold text-slate-900">Opened</dt>
          <dd className="break-words text-slate-900">
            {r.opened_by_email ?? "a staff member"}, {formatDateTime(r.opened_at)}
          </dd>
          {r.approved_by_email ? (
            <>
              <dt className="font-semibold text-slate-900">Approved by</dt>
              <dd className="break-words text-slate-900">{r.approved_by_email}</dd>
            </>
          ) : null}
          {r.bsa_acknowledgement ? (
            <>
              <dt className="font-semibold text-slate-900">Filed</dt>
              <dd className="break-words text-slate-900">
                BSA ID {r.bsa_acknowledgement}, recorded by {r.filed_by_email ?? "a staff member"}
              </dd>
            </>
          ) : null}
        </dl>
        <h3 className="mt-4 font-semibold text-slate-900">Narrative</h3>
        <p className="mt-1 break-words whitespace-pre-wrap text-slate-900">{r.narrative}</p>
      </section>
      {r.status === "open" ? (
        r.opened_by === staff_id ? (
          <p className="rounded-lg border border-slate-200 bg-white p-4 text-sm text-slate-800">
            You opened this report: another staff member must approve its filing.
          </p>
        ) : (
          <Form method="post" className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
            <p className="mb-3 text-sm text-slate-800">
              Approve the filing once the facts and narrative are complete. You become its second staff member.
            </p>
            <Button type="submit" name="intent" value="approve" isPending={busy("approve")} pendingLabel="Approving…">
              Approve the filing
            </Button>
          </Form>
        )
      ) : null}
      {r.status === "approved" ? (
        <Form
          method="post"
          aria-label="Record the filing"
          className="grid gap-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-[1fr_auto] sm:items-end sm:p-5"
        >
          <TextField
            name="bsa_acknowledgement"
            label="BSA ID"
            inputMode="numeric"
            description="The 14-digit BSA ID the BSA E-Filing System acknowledged the filing with"
            error={answer?.field === "bsa_acknowledgement" ? answer.message : undefined}
            isRequired
          />
          <Button type="submit" name="intent" value="file" isPending={busy("file")} pendingLabel="Recording…">
            Mark as filed
          </Button>
        </Form>
      ) : null}
    </div>
  );
}
