import { Link } from "react-router";
import type { Route } from "./+types/outbox";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { outboxView } from "./outbox.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusBadge } from "~/components/admin/admin-shell";
import { useInstitutionDates } from "~/components/institution-dates";

/**
 * /admin/outbox (docs/product.md#outbox): every email the system sent or tried to send, newest
 * first. Sign-in codes and reset links are never shown (listOutbox gives the redacted text), and
 * every view is in the audit log: staff read members' mail here.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Outbox", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const before = Number(new URL(request.url).searchParams.get("before") ?? "");
  const before_id = Number.isSafeInteger(before) && before > 0 ? before : null;
  const page = await outboxView({ staff, origin, before_id });
  return {
    items: page.items.map((m) => ({
      ...m,
      created_at: m.created_at.toISOString(),
      sent_at: m.sent_at?.toISOString() ?? null,
    })),
    next: page.next_before_id ? `/admin/outbox?before=${page.next_before_id}` : null,
    paged: before > 0,
  };
}

export default function Outbox({ loaderData }: Route.ComponentProps) {
  const { formatDateTime } = useInstitutionDates();
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Outbox</h1>
        <p className="mt-1 text-sm text-slate-700">
          Every email the system sent or tried to send, newest first. Sign-in codes and reset links are hidden: they
          work only for the person they were sent to.
        </p>
      </div>
      {loaderData.items.length === 0 ? (
        <p className="rounded-2xl border border-slate-200 bg-white p-8 text-center text-sm text-slate-700">
          No email has been sent yet.
        </p>
      ) : (
        <ol className="space-y-3" aria-label="Emails">
          {loaderData.items.map((m) => (
            <li
              key={m.id}
              className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm"
              data-testid="outbox-message"
            >
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <h2 className="font-semibold text-brand-800">{m.subject}</h2>
                <span className="flex items-center gap-2 text-xs text-slate-700">
                  {m.error ? (
                    <StatusBadge status="failed" />
                  ) : m.sent_at ? (
                    <StatusBadge status="sent" />
                  ) : (
                    <StatusBadge status="stored" />
                  )}
                  <time dateTime={m.created_at}>{formatDateTime(m.created_at)}</time>
                </span>
              </div>
              <p className="mt-1 text-sm text-slate-800">
                To <span className="break-all font-medium">{m.to_email}</span> ·{" "}
                <span className="font-mono text-xs">{m.kind}</span>
              </p>
              {m.error ? <p className="mt-1 text-sm font-medium text-red-800">Failed delivery: {m.error}</p> : null}
              <details className="mt-2">
                <summary className="cursor-pointer text-sm font-medium text-brand-700">Message text</summary>
                <pre className="mt-2 max-h-96 overflow-auto whitespace-pre-wrap rounded-lg bg-slate-50 p-3 font-sans text-sm text-slate-900">
                  {m.text_body}
                </pre>
              </details>
            </li>
          ))}
        </ol>
      )}
      <nav aria-label="Pages" className="flex justify-between text-sm">
        {loaderData.paged ? (
          <Link to="/admin/outbox" className="font-medium text-brand-700 underline underline-offset-2">
            Newest emails
          </Link>
        ) : (
          <span />
        )}
        {loaderData.next ? (
          <Link to={loaderData.next} className="font-medium text-brand-700 underline underline-offset-2">
            Older emails
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
