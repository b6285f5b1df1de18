import { Outlet } from "react-router";
import { SiteHeader } from "~/components/site/site-header";
import { SiteFooter } from "~/components/site/site-footer";
import { useRootData } from "~/root";

export default function PublicLayout() {
  const data = useRootData();
  if (!data) return <Outlet />;
  return (
    <div className="flex min-h-dvh flex-col">
      <SiteHeader name={data.institution.name} shortName={data.institution.short_name} />
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        <Outlet />
      </main>
      <SiteFooter profile={data.institution} year={data.year} />
    </div>
  );
}
