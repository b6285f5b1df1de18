import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { AdminShell } from "~/components/admin/admin-shell";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { inboxUnassignedCount, queuesWaiting, screeningsWaitingCount } from "./layout.server";

/**
 * The back office's frame (docs/product.md#back-office): staff only; each page below checks again
 * for itself.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { user, role } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  // The payment queues' and the screening queue's counts in the navigation, for staff who may work them.
  // Secure messages nobody has taken yet, for everyone who works the inbox (staff and reviewers).
  const counts: Record<string, number> = {
    inbox: await inboxUnassignedCount(user.id),
    ...(role === "admin" ? { queues: await queuesWaiting(context), screenings: await screeningsWaitingCount() } : {}),
  };
  return {
    staff: { name: user.name, email: user.email, role },
    institution: institution().name,
    counts,
    loans: loanApplicationsOpen(),
  };
}

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <AdminShell
      staff={loaderData.staff}
      institution={loaderData.institution}
      counts={loaderData.counts}
      loans={loaderData.loans}
    >
      <Outlet />
    </AdminShell>
  );
}
