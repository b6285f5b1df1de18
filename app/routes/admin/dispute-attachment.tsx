import type { Route } from "./+types/dispute-attachment";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { loadStaffAttachment } from "./disputes.server";
import { attachmentResponse } from "~/server/disputes/attachment-response.server";

/**
 * /admin/disputes/:caseId/attachments/:attachmentId (docs/product.md#disputes-queue): a file the
 * member sent with their report, for staff and reviewers (who work the case's notes), every view
 * audited first, never cached.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const id = (text: string) => (/^[1-9]\d{0,15}$/.test(text) ? Number(text) : 0);
  const found = await loadStaffAttachment({
    case_id: id(params.caseId),
    attachment_id: id(params.attachmentId),
    staff,
    origin,
  });
  return attachmentResponse(found);
}
