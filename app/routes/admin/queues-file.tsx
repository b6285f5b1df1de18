import type { Route } from "./+types/queues-file";
import { requestInfoContext } from "~/context";
import { requireMoneyStaff } from "~/server/rails/access.server";
import { downloadExportFile } from "./queues.server";

/**
 * /admin/queues/files/:fileId: an exported payment file (NACHA or pain.001) downloaded again,
 * byte for byte as it was made, for staff who may move money; every download is audited.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireMoneyStaff(request, context.get(requestInfoContext));
  const id = /^\d{1,15}$/.test(params.fileId) ? Number(params.fileId) : 0;
  const file = await downloadExportFile({ staff, origin, id });
  if (!file) {
    return new Response("No such file.\n", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  return new Response(file.content, {
    headers: {
      // The file name is ours (letters, digits, dashes, a dot): safe inside the quotes.
      "Content-Type": file.kind === "ach" ? "text/plain; charset=us-ascii" : "application/xml; charset=utf-8",
      "Content-Disposition": `attachment; filename="${file.file_name}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
