import { Link } from "react-router";
import type { Route } from "./+types/inbox";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { loadInbox } from "./inbox.server";
import { INBOX_VIEW_LABELS, INBOX_VIEWS, type InboxView } from "~/domain/secure-messages";
import { pageTitle } from "~/components/site/page-title";
import { useInstitutionDates } from "~/components/institution-dates";

/**
 * /admin/inbox (docs/product.md#secure-messages-inbox): members' secure messages, shared by staff and
 * reviewers: Unassigned, Mine or All, open or closed, newest activity first, those waiting for an
 * answer marked. Subjects are shown; the words are read (and audited) on a conversation's page.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Inbox", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { staff } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const params = new URL(request.url).searchParams;
  const asked = params.get("view");
  const view: InboxView = (INBOX_VIEWS as readonly string[]).includes(asked ?? "")
    ? (asked as InboxView)
    : "unassigned";
  const status: "open" | "closed" = params.get("status") === "closed" ? "closed" : "open";
  return { view, status, ...(await loadInbox(staff.id, { view, status })) };
}

function href(view: InboxView, status: "open" | "closed") {
  return `/admin/inbox?view=${view}${status === "closed" ? "&status=closed" : ""}`;
}

const pill = (current: boolean) =>
  `inline-flex items-center gap-2 rounded-full border px-3 py-1.5 text-sm font-medium ${current ? "border-accent-600 bg-accent-50 text-brand-800" : "border-slate-300 bg-white text-slate-800 hover:bg-slate-50"}`;

export default function Inbox({ loaderData }: Route.ComponentProps) {
  const { view, status, counts, items } = loaderData;
  const { formatDateTime } = useInstitutionDates();
  const viewCount: Partial<Record<InboxView, number>> = { unassigned: counts.unassigned, mine: counts.mine };
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Inbox</h1>
        <p className="mt-1 text-sm text-slate-700">
          Secure messages from members. Take one, answer it here, and close it when it is done. Every conversation you
          open is recorded in the audit log.
        </p>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <nav aria-label="Inbox views">
          <ul className="flex flex-wrap gap-2">
            {INBOX_VIEWS.map((v) => (
              <li key={v}>
                <Link to={href(v, status)} aria-current={v === view ? "page" : undefined} className={pill(v === view)}>
                  {INBOX_VIEW_LABELS[v]}
                  {status === "open" && viewCount[v] !== undefined ? (
                    <span className="tabular text-xs font-semibold">{viewCount[v]}</span>
                  ) : null}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-label="Conversation status">
          <ul className="flex flex-wrap gap-2">
            {(["open", "closed"] as const).map((s) => (
              <li key={s}>
                <Link
                  to={href(view, s)}
                  aria-current={s === status ? "page" : undefined}
                  className={pill(s === status)}
                >
                  {s === "open" ? "Open" : "Closed"}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      {items.length === 0 ? (
        <p className="rounded-2xl border border-slate-200 bg-white p-8 text-center text-sm text-slate-700">
          No conversations here.
        </p>
      ) : (
        <ul
          className="divide-y divide-slate-100 overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm"
          aria-label="Conversations"
        >
          {items.map((c) => (
            <li key={c.id}>
              <Link
                to={`/admin/inbox/${c.id}`}
                className="flex flex-wrap items-center justify-between gap-3 px-4 py-3 hover:bg-slate-50"
              >
                <span className="min-w-0">
                  <span className="block break-words font-semibold text-brand-800">{c.subject}</span>
                  <span className="block text-xs text-slate-700">
                    {c.number} · {c.member_name} · {c.assigned_email ? `with ${c.assigned_email}` : "unassigned"}
                  </span>
                </span>
                <span className="flex items-center gap-2 text-xs text-slate-700">
                  {c.waiting && c.status === "open" ? (
                    <span className="rounded-full bg-amber-100 px-2 py-0.5 font-semibold text-amber-900">
                      Waiting for us
                    </span>
                  ) : null}
                  <time dateTime={c.last_message_at}>{formatDateTime(c.last_message_at)}</time>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
