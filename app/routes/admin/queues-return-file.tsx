import type { Route } from "./+types/queues-return-file";
import { requestInfoContext } from "~/context";
import { requireMoneyStaff } from "~/server/rails/access.server";
import { downloadReturnFile } from "./queues-ach-in.server";

/**
 * /admin/queues/returns/:fileId: an ACH return file (docs/product.md#ach-in) as it was made, for
 * staff who may move money; every download is audited.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireMoneyStaff(request, context.get(requestInfoContext));
  const id = /^\d{1,15}$/.test(params.fileId) ? Number(params.fileId) : 0;
  const file = await downloadReturnFile({ staff, origin, id });
  if (!file) {
    return new Response("No such file.\n", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  return new Response(file.content, {
    headers: {
      // The file name is ours (letters, digits, dashes, a dot): safe inside the quotes.
      "Content-Type": "text/plain; charset=us-ascii",
      "Content-Disposition": `attachment; filename="${file.file_name}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
