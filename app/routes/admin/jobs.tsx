import { data, Form, useNavigation } from "react-router";
import type { Route } from "./+types/jobs";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { readForm } from "~/server/http/form.server";
import { APP_JOBS } from "~/server/jobs/registry.server";
import type { JobRunView } from "~/server/jobs/status.server";
import { advanceJobClockBy, jobClockAdjustable, jobsOverview } from "./jobs.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusLine } from "~/components/admin/admin-shell";
import { useInstitutionDates } from "~/components/institution-dates";
import { scheduleInWords, timeZoneName } from "~/domain/job-schedule";
import { useRootData } from "~/root";
import { Button } from "~/components/ui";
import { taxYearDueOn } from "~/domain/tax-forms";
import { businessDate } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";

/**
 * /admin/jobs (docs/product.md#scheduled-jobs): the scheduled jobs, when each runs next, how its
 * last run ended, the runs being retried and those that failed, with their error. In the demo
 * (JOB_CLOCK=adjustable) staff may move the job clock forward to see tomorrow's jobs run now.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Scheduled jobs", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaff(request, context.get(requestInfoContext));
  const page = await jobsOverview();
  return {
    clock: { now: page.clock.now.toISOString(), adjustable: page.clock.adjustable },
    jobs: page.jobs.map((j) => ({
      ...j,
      next_run_at: j.next_run_at?.toISOString() ?? null,
      last_run: j.last_run ? runJson(j.last_run) : null,
      retrying: j.retrying ? runJson(j.retrying) : null,
    })),
    recent: page.recent.map(runJson),
    titles: Object.fromEntries(APP_JOBS.map((j) => [j.name, j.title])),
    // The year whose Form 1099-INT figures staff download now (by the job clock, as the job reads it).
    last_tax_year: taxYearDueOn(businessDate(institution().time_zone, page.clock.now)),
  };
}

function runJson(run: JobRunView) {
  return {
    id: run.id,
    state: run.state,
    attempts: run.attempts,
    max_attempts: run.max_attempts,
    job: run.job,
    run_at: run.run_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
    last_error: run.last_error,
    result:
      run.result && typeof run.result === "object"
        ? Object.entries(run.result as Record<string, unknown>)
            .map(([k, v]) => `${k.replace(/_/g, " ")}: ${String(v)}`)
            .join(", ")
        : null,
  };
}

const HOURS_MAX = 24 * 366;

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const form = await readForm(request);
  if (!(await jobClockAdjustable()))
    return data(
      { message: "The job clock follows the real time here and cannot be moved.", field: null },
      { status: 400 },
    );
  const text = String(form.get("hours") ?? "").trim();
  const hours = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(hours) || hours < 1 || hours > HOURS_MAX) {
    return data(
      { message: null, field: `Enter a whole number of hours from 1 to ${HOURS_MAX.toLocaleString("en-US")}.` },
      { status: 400 },
    );
  }
  const now = await advanceJobClockBy({ hours, staff, origin });
  return {
    message: `The job clock is now ${hours} hour${hours === 1 ? "" : "s"} further on (${now.toISOString().slice(0, 16).replace("T", " ")} UTC). Jobs now due run within a few seconds.`,
    field: null,
  };
}

const BADGE_STYLES: Record<string, string> = {
  succeeded: "bg-emerald-100 text-emerald-900",
  failed: "bg-red-100 text-red-900",
  running: "bg-sky-100 text-sky-900",
  retrying: "bg-amber-100 text-amber-900",
};

function JobBadge({ status }: { status: string }) {
  return (
    <span
      className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold capitalize ${BADGE_STYLES[status] ?? "bg-slate-100 text-slate-800"}`}
    >
      {status.replace(/_/g, " ")}
    </span>
  );
}

export default function Jobs({ loaderData, actionData }: Route.ComponentProps) {
  const { formatDateTime } = useInstitutionDates();
  // The schedules are read in the institution's time zone, named as the page's times name it.
  const zone = timeZoneName(useRootData()?.institution.time_zone ?? "UTC", new Date(loaderData.clock.now));
  const navigation = useNavigation();
  const when = (iso: string | null) =>
    iso ? <time dateTime={iso}>{formatDateTime(iso)}</time> : <span className="text-slate-700">Not yet</span>;
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Scheduled jobs</h1>
        <p className="mt-1 text-sm text-slate-700">
          Work the system does on its own, on a schedule. A failed run is tried again after a wait that doubles each
          time; after its last try it is marked failed and recorded in the audit log.
        </p>
      </div>
      {actionData?.message ? <StatusLine message={actionData.message} /> : null}
      <ul className="grid gap-4 lg:grid-cols-2" aria-label="Jobs">
        {loaderData.jobs.map((job) => (
          <li
            key={job.name}
            className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm"
            data-testid="job"
            data-job={job.name}
          >
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h2 className="font-semibold text-brand-800">{job.title}</h2>
              {job.running ? (
                <JobBadge status="running" />
              ) : job.last_run ? (
                <JobBadge status={job.last_run.state} />
              ) : (
                <JobBadge status="not_run_yet" />
              )}
            </div>
            <p className="mt-1 text-sm text-slate-700">{job.description}</p>
            {job.name === "tax-forms" ? (
              <p className="mt-2 text-sm">
                <a
                  href={`/admin/tax-forms/${loaderData.last_tax_year}`}
                  download
                  className="font-semibold text-accent-700 underline-offset-2 hover:underline"
                >
                  Download the {loaderData.last_tax_year} Form 1099-INT figures (CSV)
                </a>
              </p>
            ) : null}
            <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="font-medium text-slate-800">Schedule</dt>
              <dd className="text-slate-900">{scheduleInWords(job.schedule, zone)}</dd>
              <dt className="font-medium text-slate-800">Next run</dt>
              <dd className="text-slate-900" data-testid="next-run">
                {job.next_run_at ? when(job.next_run_at) : "Nothing queued"}
              </dd>
              <dt className="font-medium text-slate-800">Last run</dt>
              <dd className="text-slate-900" data-testid="last-run">
                {job.last_run ? (
                  <>
                    {when(job.last_run.finished_at)} · {job.last_run.state === "succeeded" ? "Succeeded" : "Failed"}
                    {job.last_run.attempts > 1 ? ` after ${job.last_run.attempts} attempts` : ""}
                    {job.last_run.result ? (
                      <span className="block text-xs text-slate-700">{job.last_run.result}</span>
                    ) : null}
                  </>
                ) : (
                  "Not yet"
                )}
              </dd>
              <dt className="font-medium text-slate-800">Failed runs</dt>
              <dd className="tabular text-slate-900">{job.failed_runs}</dd>
            </dl>
            {job.retrying ? (
              <p className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-950" data-testid="retrying">
                Being retried: attempt {job.retrying.attempts} of {job.retrying.max_attempts} failed (
                {job.retrying.last_error}). Next try {when(job.retrying.run_at)}.
              </p>
            ) : null}
            {job.last_run?.state === "failed" ? (
              <p className="mt-3 rounded-lg bg-red-50 p-3 text-sm font-medium text-red-900" data-testid="last-error">
                Last run failed: {job.last_run.last_error}
              </p>
            ) : null}
          </li>
        ))}
      </ul>

      <section aria-labelledby="recent-runs" className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
        <h2 id="recent-runs" className="font-semibold text-brand-800">
          Latest runs
        </h2>
        {loaderData.recent.length === 0 ? (
          <p className="mt-2 text-sm text-slate-700">No job has run yet.</p>
        ) : (
          <ol className="mt-2 divide-y divide-slate-100" aria-labelledby="recent-runs">
            {loaderData.recent.map((run) => (
              <li
                key={run.id}
                className="flex flex-wrap items-baseline gap-x-3 gap-y-1 py-2 text-sm"
                data-testid="job-run"
              >
                <span className="font-medium text-slate-900">{loaderData.titles[run.job] ?? run.job}</span>
                <JobBadge status={run.state === "queued" ? "retrying" : run.state} />
                <span className="tabular text-slate-800">
                  Attempt {run.attempts} of {run.max_attempts} · {run.state === "queued" ? "next try " : ""}
                  {when(run.state === "queued" ? run.run_at : run.finished_at)}
                </span>
                {run.last_error ? <span className="basis-full text-red-900">Error: {run.last_error}</span> : null}
              </li>
            ))}
          </ol>
        )}
      </section>

      {loaderData.clock.adjustable ? (
        <section aria-labelledby="job-clock" className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
          <h2 id="job-clock" className="font-semibold text-brand-800">
            Job clock (demo)
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            Job time now: {when(loaderData.clock.now)}. Move it forward to see jobs due later run now, such as a bill
            payment due next week. It never moves back.
          </p>
          <Form method="post" className="mt-3 flex flex-wrap items-end gap-3" noValidate>
            <div>
              <label htmlFor="hours" className="block text-sm font-medium text-slate-800">
                Hours to move forward
              </label>
              <input
                id="hours"
                name="hours"
                inputMode="numeric"
                defaultValue="24"
                aria-invalid={actionData?.field ? true : undefined}
                aria-describedby={actionData?.field ? "hours-error" : undefined}
                className="mt-1 w-32 rounded-lg border border-slate-400 px-3 py-2 text-sm text-slate-900"
              />
              {actionData?.field ? (
                <p id="hours-error" className="mt-1 text-sm font-medium text-red-800">
                  {actionData.field}
                </p>
              ) : null}
            </div>
            <Button
              type="submit"
              variant="secondary"
              isPending={navigation.state === "submitting"}
              pendingLabel="Moving…"
            >
              Move the job clock
            </Button>
          </Form>
        </section>
      ) : null}
    </div>
  );
}
