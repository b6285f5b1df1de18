import type { Route } from "./+types/dispute-attachment";
import { requireMember } from "~/server/auth/session.server";
import { loadMemberAttachment } from "./disputes.server";
import { attachmentResponse } from "~/server/disputes/attachment-response.server";

/**
 * /dashboard/disputes/:caseId/attachments/:attachmentId (docs/product.md#disputes): a file the member
 * sent with their report, back to them. Another member's case or file is not found.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = (text: string) => (/^[1-9]\d{0,15}$/.test(text) ? Number(text) : 0);
  const found = await loadMemberAttachment(user, id(params.caseId), id(params.attachmentId));
  return attachmentResponse(found);
}
