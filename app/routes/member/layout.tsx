import { Link, Outlet, useLocation } from "react-router";
import type { Route } from "./+types/layout";
import { requireMember } from "~/server/auth/session.server";
import { memberShell } from "./layout.server";
import { TopBar } from "~/components/member/top-bar";
import { SessionTimeout } from "~/components/session/session-timeout";
import { useRootData } from "~/root";

/**
 * The member app's frame (docs/product.md#top-bar): every /dashboard page, signed-in members only.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireMember(request);
  return memberShell(user);
}

export default function MemberLayout({ loaderData }: Route.ComponentProps) {
  const root = useRootData();
  const { pathname } = useLocation();
  return (
    <div className="flex min-h-dvh flex-col bg-slate-50">
      <TopBar
        name={loaderData.name}
        email={loaderData.email}
        shortName={root?.institution.short_name ?? ""}
        fullName={root?.institution.name ?? ""}
        isStaff={loaderData.is_staff}
        unread={loaderData.unread}
        messagesUnread={loaderData.messages_unread}
        notifications={loaderData.notifications}
        support={loaderData.support}
        loans={loaderData.loans}
      />
      {loaderData.ask_electronic_delivery && pathname !== "/dashboard/electronic-delivery" ? (
        <div className="border-b border-accent-200 bg-accent-50">
          <p className="mx-auto max-w-7xl px-4 py-3 text-sm text-slate-800 sm:px-6 lg:px-8">
            How would you like your statements and notices?{" "}
            <Link className="font-semibold text-accent-800 underline" to="/dashboard/electronic-delivery">
              Choose electronic delivery or paper
            </Link>
          </p>
        </div>
      ) : null}
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        <Outlet />
      </main>
      <footer className="border-t border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl flex-col gap-2 px-4 py-6 text-xs text-slate-600 sm:flex-row sm:items-center sm:justify-between sm:px-6 lg:px-8">
          <p>{root?.institution.insurance.ncua_statement}</p>
          <p>
            Questions?{" "}
            <Link className="font-medium text-accent-700 underline" to="/dashboard/messages/new">
              Send us a secure message
            </Link>{" "}
            ·{" "}
            <a className="font-medium text-accent-700 underline" href={`mailto:${loaderData.support.email}`}>
              {loaderData.support.email}
            </a>{" "}
            · {loaderData.support.phone}
          </p>
        </div>
      </footer>
      <SessionTimeout
        expiresInMs={loaderData.session.expires_in_ms}
        endsAbsolutely={loaderData.session.ends_absolutely}
      />
    </div>
  );
}
