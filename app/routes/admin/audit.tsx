import { data, Form, Link } from "react-router";
import { Download } from "lucide-react";
import type { Route } from "./+types/audit";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { auditActionNames, auditEntries } from "./audit.server";
import { pageTitle } from "~/components/site/page-title";
import { useInstitutionDates } from "~/components/institution-dates";
import { pageUrl } from "~/server/http/page-url.server";
import { parseAuditFilter, type AuditFilterField } from "~/domain/audit-filter";
import { NativeFieldError } from "~/components/ui/field-parts";

/**
 * /admin/audit (docs/product.md#audit-log): the audit log, filterable by actor, member, action and
 * date, and exportable as CSV.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Audit log", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaff(request, context.get(requestInfoContext));
  // The page's own address: its "Older" link carries the filters on, not React Router's _routes.
  const url = pageUrl(request);
  const { filter, problems } = parseAuditFilter(url.searchParams);
  if (problems) {
    // A filter to correct: the message next to it and no entries (they would not be what was asked for).
    const typed = Object.fromEntries(
      Object.keys(problems).map((name) => [name, (url.searchParams.get(name) ?? "").slice(0, 200)]),
    );
    return data(
      {
        filter: { ...filter, ...typed },
        problems,
        actions: await auditActionNames(),
        items: [],
        next: null,
        paged: false,
        export_href: "/admin/audit.csv",
      },
      { status: 400 },
    );
  }
  const before = Number(url.searchParams.get("before") ?? "");
  const [page, actions] = await Promise.all([
    auditEntries(filter, { before_id: Number.isSafeInteger(before) && before > 0 ? before : null }),
    auditActionNames(),
  ]);
  const exportParams = new URLSearchParams(Object.entries(filter).filter(([, v]) => v));
  const nextParams = new URLSearchParams(url.searchParams);
  if (page.next_before_id) nextParams.set("before", String(page.next_before_id));
  return {
    filter,
    actions,
    items: page.items.map((r) => ({
      ...r,
      at: r.at.toISOString(),
      before: r.before === null ? null : JSON.stringify(r.before, null, 2),
      after: r.after === null ? null : JSON.stringify(r.after, null, 2),
    })),
    next: page.next_before_id ? `/admin/audit?${nextParams}` : null,
    paged: url.searchParams.has("before"),
    export_href: `/admin/audit.csv${exportParams.size ? `?${exportParams}` : ""}`,
    problems: null,
  };
}

const input =
  "mt-1.5 block w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm focus:border-accent-600 focus:outline-2 focus:outline-accent-600 aria-invalid:border-red-600";

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { formatDateTime } = useInstitutionDates();
  const { filter, problems } = loaderData;
  const invalid = (name: AuditFilterField) =>
    problems?.[name] ? { "aria-invalid": true, "aria-describedby": `f-${name}-error` } : {};
  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Audit log</h1>
          <p className="mt-1 text-sm text-slate-700">
            Every staff action and security event, newest first. Entries cannot be changed or deleted.
          </p>
        </div>
        <a
          href={loaderData.export_href}
          className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50"
          download
        >
          <Download className="size-4" aria-hidden="true" /> Export CSV
        </a>
      </div>
      <Form
        method="get"
        className="grid gap-3 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-[repeat(5,minmax(0,1fr))_auto]"
        aria-label="Filter the audit log"
      >
        <div>
          <label htmlFor="f-actor" className="block text-sm font-medium text-slate-800">
            Actor (email or id)
          </label>
          <input id="f-actor" name="actor" defaultValue={filter.actor} className={input} {...invalid("actor")} />
          <NativeFieldError id="f-actor-error" message={problems?.actor} />
        </div>
        <div>
          <label htmlFor="f-member" className="block text-sm font-medium text-slate-800">
            Member (email or id)
          </label>
          <input id="f-member" name="member" defaultValue={filter.member} className={input} {...invalid("member")} />
          <NativeFieldError id="f-member-error" message={problems?.member} />
        </div>
        <div>
          <label htmlFor="f-action" className="block text-sm font-medium text-slate-800">
            Action
          </label>
          <select
            id="f-action"
            name="action"
            defaultValue={problems?.action ? "" : filter.action}
            className={input}
            {...invalid("action")}
          >
            <option value="">Any action</option>
            {loaderData.actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
          <NativeFieldError id="f-action-error" message={problems?.action} />
        </div>
        <div>
          <label htmlFor="f-from" className="block text-sm font-medium text-slate-800">
            From
          </label>
          <input
            id="f-from"
            name="from"
            type="date"
            defaultValue={filter.from}
            className={input}
            {...invalid("from")}
          />
          <NativeFieldError id="f-from-error" message={problems?.from} />
        </div>
        <div>
          <label htmlFor="f-to" className="block text-sm font-medium text-slate-800">
            To
          </label>
          <input id="f-to" name="to" type="date" defaultValue={filter.to} className={input} {...invalid("to")} />
          <NativeFieldError id="f-to-error" message={problems?.to} />
        </div>
        <div className="flex items-end gap-2">
          <button
            type="submit"
            className="rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-800"
          >
            Filter
          </button>
          <Link to="/admin/audit" className="rounded-lg px-3 py-2 text-sm font-medium text-brand-700 hover:bg-brand-50">
            Reset
          </Link>
        </div>
      </Form>
      {problems ? (
        <p className="rounded-2xl border border-slate-200 bg-white p-8 text-center text-sm text-slate-700">
          Please correct the highlighted filter, then choose Filter.
        </p>
      ) : loaderData.items.length === 0 ? (
        <p className="rounded-2xl border border-slate-200 bg-white p-8 text-center text-sm text-slate-700">
          No entries match these filters.
        </p>
      ) : (
        <ol className="space-y-3" aria-label="Audit entries">
          {loaderData.items.map((r) => (
            <li
              key={r.id}
              className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm"
              data-testid="audit-entry"
            >
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <p className="font-mono text-sm font-semibold text-brand-800">{r.action}</p>
                <p className="text-xs text-slate-700">
                  <time dateTime={r.at}>{formatDateTime(r.at)}</time> · #{r.id}
                </p>
              </div>
              <dl className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2 lg:grid-cols-4">
                <div>
                  <dt className="inline text-slate-600">Actor: </dt>
                  <dd className="inline break-all text-slate-900">{r.actor_email ?? r.actor_id ?? "system"}</dd>
                </div>
                <div>
                  <dt className="inline text-slate-600">Subject: </dt>
                  <dd className="inline break-all text-slate-900">
                    {r.subject_type
                      ? `${r.subject_type} ${r.member_email && r.subject_type === "member" ? r.member_email : (r.subject_id ?? "")}`
                      : "—"}
                  </dd>
                </div>
                <div>
                  <dt className="inline text-slate-600">IP: </dt>
                  <dd className="inline text-slate-900">{r.ip ?? "—"}</dd>
                </div>
                <div>
                  <dt className="inline text-slate-600">Request: </dt>
                  <dd className="inline break-all font-mono text-xs text-slate-900">{r.request_id ?? "—"}</dd>
                </div>
              </dl>
              {r.before || r.after ? (
                <details className="mt-2">
                  <summary className="cursor-pointer text-sm font-medium text-brand-700">Before and after</summary>
                  <div className="mt-2 grid gap-3 md:grid-cols-2">
                    <div>
                      <p className="text-xs font-semibold uppercase tracking-wide text-slate-600">Before</p>
                      <pre className="mt-1 max-h-80 overflow-auto rounded-lg bg-slate-50 p-3 text-xs text-slate-900">
                        {r.before ?? "—"}
                      </pre>
                    </div>
                    <div>
                      <p className="text-xs font-semibold uppercase tracking-wide text-slate-600">After</p>
                      <pre className="mt-1 max-h-80 overflow-auto rounded-lg bg-slate-50 p-3 text-xs text-slate-900">
                        {r.after ?? "—"}
                      </pre>
                    </div>
                  </div>
                </details>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      <nav aria-label="Pages" className="flex justify-between text-sm">
        {loaderData.paged ? (
          <Link
            to={`/admin/audit?${new URLSearchParams(Object.entries(filter).filter(([, v]) => v))}`}
            className="font-medium text-brand-700 underline underline-offset-2"
          >
            Newest entries
          </Link>
        ) : (
          <span />
        )}
        {loaderData.next ? (
          <Link to={loaderData.next} className="font-medium text-brand-700 underline underline-offset-2">
            Older entries
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
