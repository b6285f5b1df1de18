import { data, Form, Link } from "react-router";
import type { Route } from "./+types/messages";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { contactMessages, markContactMessage } from "./messages.server";
import { readForm } from "~/server/http/form.server";
import { pageTitle } from "~/components/site/page-title";
import { StatusBadge, StatusLine } from "~/components/admin/admin-shell";
import { useInstitutionDates } from "~/components/institution-dates";

/** /admin/messages (docs/product.md#contact-messages): contact messages, new and answered. */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Messages", matches), { name: "robots", content: "noindex" }];
}

const FILTERS = [
  { id: "", label: "All" },
  { id: "new", label: "New" },
  { id: "answered", label: "Answered" },
] as const;

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const params = new URL(request.url).searchParams;
  const status = params.get("status") === "new" ? "new" : params.get("status") === "answered" ? "answered" : null;
  const before = Number(params.get("before") ?? "");
  const page = await contactMessages({ status, before_id: Number.isSafeInteger(before) && before > 0 ? before : null });
  return {
    status,
    counts: page.counts,
    items: page.items.map((m) => ({ ...m, created_at: m.created_at.toISOString() })),
    next: page.next_before_id
      ? `/admin/messages?${new URLSearchParams({ ...(status ? { status } : {}), before: String(page.next_before_id) })}`
      : null,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const form = await readForm(request);
  const id = Number(form.get("id"));
  const status = form.get("status");
  if (!Number.isSafeInteger(id) || id <= 0 || (status !== "new" && status !== "answered")) {
    return data({ message: "Failed: that request could not be understood." }, { status: 400 });
  }
  const done = await markContactMessage({ staff, id, status, origin });
  if (!done) return data({ message: "Failed: message not found." }, { status: 404 });
  return { message: status === "answered" ? "Message marked as answered." : "Message marked as new." };
}

export default function Messages({ loaderData, actionData }: Route.ComponentProps) {
  const { formatDateTime } = useInstitutionDates();
  const total = loaderData.counts.new + loaderData.counts.answered;
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Messages</h1>
        <p className="mt-1 text-sm text-slate-700">
          Messages sent from the contact form. Reply by email or phone, then mark them answered.
        </p>
      </div>
      <nav aria-label="Message status">
        <ul className="flex flex-wrap gap-2">
          {FILTERS.map((f) => {
            const current = (loaderData.status ?? "") === f.id;
            const count = f.id === "" ? total : loaderData.counts[f.id];
            return (
              <li key={f.id}>
                <Link
                  to={f.id ? `/admin/messages?status=${f.id}` : "/admin/messages"}
                  aria-current={current ? "page" : undefined}
                  className={`inline-flex items-center gap-2 rounded-full border px-3 py-1.5 text-sm font-medium ${current ? "border-accent-600 bg-accent-50 text-brand-800" : "border-slate-300 bg-white text-slate-800 hover:bg-slate-50"}`}
                >
                  {f.label} <span className="tabular text-xs font-semibold">{count}</span>
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      {actionData?.message ? <StatusLine message={actionData.message} /> : null}
      {loaderData.items.length === 0 ? (
        <p className="rounded-2xl border border-slate-200 bg-white p-8 text-center text-sm text-slate-700">
          No messages here.
        </p>
      ) : (
        <ol className="space-y-3" aria-label="Contact messages">
          {loaderData.items.map((m) => (
            <li key={m.id} className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0">
                  <h2 className="font-semibold text-brand-800">
                    {m.name} <span className="font-normal text-slate-700">· {m.subject}</span>
                  </h2>
                  <p className="break-all text-sm text-slate-800">
                    <a href={`mailto:${m.email}`} className="underline underline-offset-2">
                      {m.email}
                    </a>
                    {m.phone ? ` · ${m.phone}` : ""} · prefers {m.preferred_contact}
                  </p>
                </div>
                <span className="flex items-center gap-2 text-xs text-slate-700">
                  <StatusBadge status={m.status} />
                  <time dateTime={m.created_at}>{formatDateTime(m.created_at)}</time>
                </span>
              </div>
              <p className="mt-2 whitespace-pre-wrap text-sm text-slate-900">{m.message}</p>
              <Form method="post" className="mt-3">
                <input type="hidden" name="id" value={m.id} />
                <input type="hidden" name="status" value={m.status === "new" ? "answered" : "new"} />
                <button
                  type="submit"
                  className="rounded-lg border border-slate-300 bg-white px-3 py-1.5 text-sm font-semibold text-brand-800 hover:bg-slate-50"
                >
                  {m.status === "new" ? "Mark as answered" : "Mark as new"}
                </button>
              </Form>
            </li>
          ))}
        </ol>
      )}
      {loaderData.next ? (
        <nav aria-label="Pages" className="text-right text-sm">
          <Link to={loaderData.next} className="font-medium text-brand-700 underline underline-offset-2">
            Older messages
          </Link>
        </nav>
      ) : null}
    </div>
  );
}
