import { data, Link } from "react-router";
import { Inbox, RefreshCw } from "lucide-react";
import type { Route } from "./+types/demo-inbox";
import { pageTitle } from "~/components/site/page-title";
import { useInstitutionDates } from "~/components/institution-dates";
import { demoInbox } from "./demo-inbox.server";

/**
 * Demo mode only: the demo sends no email, so the demo people's mail (sign-in codes, reset links,
 * alerts) is readable here. Only mail to the published demo sign-ins and to reserved example
 * domains is ever listed; staff see everything else at /admin/outbox.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Demo inbox", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request }: Route.LoaderArgs) {
  const inbox = await demoInbox(new URL(request.url).searchParams.get("to"));
  if (!inbox) throw data(null, { status: 404 });
  return data(inbox, { headers: { "Cache-Control": "no-store" } });
}

const KIND_LABELS: Record<string, string> = {
  sign_in_code: "Sign-in code",
  password_reset: "Password reset",
  account_locked: "Sign-in locked",
  login_alert: "Sign-in alert",
  application_received: "Application received",
  password_changed: "Password changed",
};

export default function DemoInbox({ loaderData }: Route.ComponentProps) {
  const { messages, to } = loaderData;
  const dates = useInstitutionDates();
  return (
    <section className="mx-auto max-w-4xl px-4 py-10 sm:px-6 sm:py-14">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <p className="inline-flex items-center gap-2 rounded-full bg-amber-100 px-3 py-1 text-sm font-medium text-amber-950">
            <Inbox className="size-4" aria-hidden="true" /> Demo only
          </p>
          <h1 className="mt-3 text-3xl font-semibold tracking-tight text-brand-800">Demo inbox</h1>
          <p className="mt-2 max-w-2xl text-slate-700">
            This demo sends no real email. Messages to the demo sign-ins and to fictional addresses (such as{" "}
            <span className="font-mono text-sm">name@example.com</span>) appear here, newest first. Mail to any other
            address is never shown.
          </p>
        </div>
        <Link
          to={to ? `/demo/inbox?to=${encodeURIComponent(to)}` : "/demo/inbox"}
          reloadDocument
          className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50"
        >
          <RefreshCw className="size-4" aria-hidden="true" /> Refresh
        </Link>
      </div>
      {to ? (
        <p className="mt-6 text-sm text-slate-700">
          Showing mail to <span className="font-semibold">{to}</span>.{" "}
          <Link to="/demo/inbox" className="font-semibold text-accent-700 underline underline-offset-2">
            Show all
          </Link>
        </p>
      ) : null}
      {messages.length === 0 ? (
        <div className="mt-8 rounded-2xl border border-dashed border-slate-300 bg-white p-10 text-center text-slate-700">
          No messages yet. Sign in with a demo sign-in from the{" "}
          <Link to="/login" className="font-semibold text-accent-700 underline underline-offset-2">
            sign-in page
          </Link>{" "}
          and its code will appear here.
        </div>
      ) : (
        <ul className="mt-8 space-y-4">
          {messages.map((m) => (
            <li key={m.id}>
              <article
                aria-labelledby={`message-${m.id}`}
                className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6"
              >
                <header className="flex flex-wrap items-baseline justify-between gap-2">
                  <h2 id={`message-${m.id}`} className="text-lg font-semibold text-brand-800">
                    {m.subject}
                  </h2>
                  <span className="rounded-full bg-slate-100 px-2.5 py-0.5 text-xs font-medium text-slate-700">
                    {KIND_LABELS[m.kind] ?? m.kind}
                  </span>
                </header>
                <p className="mt-1 text-sm text-slate-600">
                  To <span className="break-all font-medium text-slate-800">{m.to}</span> ·{" "}
                  <time dateTime={m.created_at}>{dates.formatDateTime(m.created_at)}</time>
                </p>
                {m.code ? (
                  <p className="mt-4">
                    <span className="block text-sm text-slate-600">Sign-in code</span>
                    <span
                      className="tabular font-mono text-3xl font-semibold tracking-[0.3em] text-slate-900"
                      data-testid="demo-code"
                    >
                      {m.code}
                    </span>
                  </p>
                ) : null}
                {m.link ? (
                  <p className="mt-4">
                    <Link
                      to={m.link}
                      className="inline-flex items-center rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-800"
                    >
                      Open the reset link
                    </Link>
                  </p>
                ) : null}
                <details className="mt-4 group">
                  <summary className="cursor-pointer text-sm font-semibold text-accent-700">
                    Show the full message
                  </summary>
                  <pre className="mt-3 whitespace-pre-wrap break-words rounded-lg bg-slate-50 p-4 font-sans text-sm text-slate-800">
                    {m.text}
                  </pre>
                </details>
              </article>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
