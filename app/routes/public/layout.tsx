import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { getSessionUser, homePathFor } from "~/server/auth/session.server";
import { SiteHeader } from "~/components/site/site-header";
import { SiteFooter } from "~/components/site/site-footer";
import { useRootData } from "~/root";
import { userDisplay } from "./layout.server";

/**
 * Who is signed in, for the top bar: a member's or staff member's name, initials and image, or
 * an applicant's status page (their one page, with its Sign out: the bar offers it, never Sign in
 * or Sign up), or nobody.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const user = await getSessionUser(request, { touch: false });
  if (!user) return { user: null, applicant: null };
  if (user.role === "pending") return { user: null, applicant: { status_path: homePathFor(user) as `/${string}` } };
  return { user: await userDisplay(user), applicant: null };
}

export default function PublicLayout({ loaderData }: Route.ComponentProps) {
  const data = useRootData();
  if (!data) return <Outlet />;
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader name={data.institution.name} shortName={data.institution.short_name} user={loaderData?.user ?? null} applicant={loaderData?.applicant ?? null} />
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        <Outlet />
      </main>
      <SiteFooter profile={data.institution} year={data.year} />
    </div>
  );
}
