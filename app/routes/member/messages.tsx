import { Link } from "react-router";
import { PenLine } from "lucide-react";
import type { Route } from "./+types/messages";
import { requireMember } from "~/server/auth/session.server";
import { loadConversations } from "./messages.server";
import { pageTitle } from "~/components/site/page-title";
import { useInstitutionDates } from "~/components/institution-dates";

/**
 * /dashboard/messages (docs/product.md#secure-messages): the member's conversations with the
 * credit union, newest activity first, a reply not yet read marked, and "New message".
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Messages", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  return { conversations: await loadConversations(user) };
}

export default function Messages({ loaderData }: Route.ComponentProps) {
  const { conversations } = loaderData;
  const { formatDateTime } = useInstitutionDates();
  return (
    <div className="mx-auto max-w-5xl px-4 py-6 sm:px-6 lg:px-8 lg:py-10">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Messages</h1>
          <p className="mt-1 text-sm text-slate-700">
            Secure messages with our staff. We answer within one business day.
          </p>
        </div>
        <Link
          to="/dashboard/messages/new"
          className="inline-flex h-11 items-center gap-2 rounded-xl bg-brand-700 px-4 text-sm font-semibold text-white hover:bg-brand-800"
        >
          <PenLine className="size-4" aria-hidden="true" /> New message
        </Link>
      </div>
      <section
        aria-label="Conversations"
        className="mt-6 overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        {conversations.length === 0 ? (
          <p className="px-6 py-12 text-center text-sm text-slate-700">You have no messages yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {conversations.map((c) => (
              <li key={c.id}>
                <Link
                  to={`/dashboard/messages/${c.id}`}
                  className="flex flex-wrap items-center justify-between gap-3 px-5 py-4 hover:bg-slate-50"
                >
                  <span className="min-w-0">
                    <span
                      className={c.unread ? "block font-bold text-slate-900" : "block font-semibold text-slate-800"}
                    >
                      {c.subject}
                    </span>
                    <span className="block text-xs text-slate-600">
                      {c.number} · {c.last_from === "staff" ? "Reply from us" : "Sent by you"}{" "}
                      {formatDateTime(c.last_message_at)}
                    </span>
                  </span>
                  <span className="flex items-center gap-2">
                    {c.unread ? (
                      <span className="rounded-full bg-red-700 px-2 text-xs font-bold leading-5 text-white">
                        Unread
                      </span>
                    ) : null}
                    {c.status === "closed" ? (
                      <span className="rounded-full bg-slate-200 px-2 text-xs font-semibold leading-5 text-slate-800">
                        Closed
                      </span>
                    ) : null}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
