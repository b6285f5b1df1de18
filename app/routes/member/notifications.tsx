import { data, Form, useNavigation } from "react-router";
import { Bell, CheckCheck } from "lucide-react";
import type { Route } from "./+types/notifications";
import { readForm } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { requireMember } from "~/server/auth/session.server";
import { loadNotifications, notificationAction } from "./notifications.server";
import { pageTitle } from "~/components/site/page-title";
import { relativeTime } from "~/components/member/top-bar";
import { useInstitutionDates } from "~/components/institution-dates";
import { cx } from "~/components/ui/field-styles";

/**
 * All notifications (docs/product.md#notifications), with mark read and mark all read; the bell's
 * "See all".
 */
export function meta({ matches }: Route.MetaArgs) {
  return pageTitle("Notifications", matches);
}

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  // "5 min ago" is worked out against the loader's clock, so the server's HTML and the browser's
  // first render agree (Date.now() in each gave a hydration mismatch across a minute boundary).
  return { notifications: await loadNotifications(user), now: new Date().toISOString() };
}

export async function action({ request }: Route.ActionArgs) {
  const user = await requireMember(request);
  // With or without JavaScript the answer is the page again: the loaders run after the action.
  const form = await readForm(request);
  // "read" (one notification, by id) or "read-all"; anything else changes nothing.
  if (!formIntent(form, ["read", "read-all"] as const)) throw data(UNKNOWN_INTENT_MESSAGE, { status: 400 });
  return notificationAction(user, form);
}

export default function Notifications({ loaderData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const dates = useInstitutionDates();
  const list = loaderData.notifications;
  const unread = list.filter((n) => !n.read).length;
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 lg:py-12">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-brand-900 sm:text-3xl">Notifications</h1>
          <p className="mt-1 text-sm text-slate-600">{unread === 0 ? "You're all caught up." : `${unread} unread`}</p>
        </div>
        {unread > 0 ? (
          <Form method="post">
            <input type="hidden" name="intent" value="read-all" />
            <button
              type="submit"
              disabled={navigation.state === "submitting"}
              className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2.5 text-sm font-semibold text-brand-800 shadow-xs hover:bg-slate-50 disabled:opacity-60"
            >
              <CheckCheck className="size-4" aria-hidden="true" /> Mark all as read
            </button>
          </Form>
        ) : null}
      </div>
      <section
        aria-label="All notifications"
        className="mt-6 overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        {list.length === 0 ? (
          <div className="px-6 py-16 text-center">
            <Bell className="mx-auto size-10 text-slate-400" aria-hidden="true" />
            <p className="mt-3 font-semibold text-slate-900">No notifications yet</p>
            <p className="mt-1 text-sm text-slate-600">Transfers, payments and security alerts will appear here.</p>
          </div>
        ) : (
          <ul className="divide-y divide-slate-100">
            {list.map((n) => (
              <li key={n.id} className={cx("flex gap-4 px-5 py-4 sm:px-6", !n.read && "bg-brand-50/50")}>
                <span
                  className={cx("mt-2 size-2.5 shrink-0 rounded-full", n.read ? "bg-slate-200" : "bg-accent-600")}
                  aria-hidden="true"
                />
                <div className="min-w-0 flex-1">
                  <p className="font-semibold text-slate-900">
                    {!n.read ? <span className="sr-only">Unread: </span> : null}
                    {n.title}
                  </p>
                  <p className="mt-1 text-sm text-slate-700">{n.body}</p>
                  <time dateTime={n.created_at} className="mt-1 block text-xs text-slate-600">
                    {relativeTime(n.created_at, dates, Date.parse(loaderData.now))}
                  </time>
                </div>
                {!n.read ? (
                  <Form method="post" className="shrink-0">
                    <input type="hidden" name="intent" value="read" />
                    <input type="hidden" name="id" value={n.id} />
                    <button
                      type="submit"
                      className="rounded-lg px-3 py-2 text-sm font-semibold text-accent-700 hover:bg-accent-50"
                    >
                      Mark as read<span className="sr-only">: {n.title}</span>
                    </button>
                  </Form>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
