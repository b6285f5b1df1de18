import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { getAuth } from "~/server/auth/auth.server";
import { getSessionUser } from "~/server/auth/session.server";
import { userDisplay } from "~/server/settings/settings.server";
import { SiteHeader } from "~/components/site/site-header";
import { SiteFooter } from "~/components/site/site-footer";
import { useRootData } from "~/root";

/**
 * The signed-in person's name, initials and image for the top bar (SPEC 3), or null. Applicants
 * (role pending) keep the signed-out bar: their one page is /pending-approval.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await getSessionUser(request, { touch: false });
  if (!user || user.role === "pending") return { user: null };
  const { db } = await getAuth();
  return { user: await userDisplay(db, user) };
}

export default function PublicLayout({ loaderData }: Route.ComponentProps) {
  const data = useRootData();
  if (!data) return <Outlet />;
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader name={data.institution.name} shortName={data.institution.short_name} user={loaderData?.user ?? null} />
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        <Outlet />
      </main>
      <SiteFooter profile={data.institution} year={data.year} />
    </div>
  );
}
