import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { AdminShell } from "~/components/admin/admin-shell";

/**
 * The back office's frame (docs/product.md#back-office): staff only; each page below checks again
 * for itself.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { user, role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  return { staff: { name: user.name, email: user.email, role }, institution: institution().name };
}

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <AdminShell staff={loaderData.staff} institution={loaderData.institution}>
      <Outlet />
    </AdminShell>
  );
}
