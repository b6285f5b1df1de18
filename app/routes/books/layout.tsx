import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { institution } from "~/config/institution.server";
import { requestInfoContext } from "~/context";
import { requireBooksReader } from "~/server/admin/context.server";
import { AdminShell } from "~/components/admin/admin-shell";
import { BooksTabs } from "~/components/books/books-parts";

/**
 * The books' frame (docs/product.md#books): the back office's, for staff and accountants only;
 * each page below checks again for itself.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { user, role } = await requireBooksReader(request, context.get(requestInfoContext));
  return { staff: { name: user.name, email: user.email, role }, institution: institution().name };
}

export default function BooksLayout({ loaderData }: Route.ComponentProps) {
  return (
    <AdminShell staff={loaderData.staff} institution={loaderData.institution}>
      <div className="space-y-5">
        <BooksTabs />
        <Outlet />
      </div>
    </AdminShell>
  );
}
