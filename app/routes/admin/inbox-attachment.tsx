import type { Route } from "./+types/inbox-attachment";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { loadStaffMessageAttachment } from "./inbox.server";
import { attachmentResponse } from "~/server/disputes/attachment-response.server";

/**
 * /admin/inbox/:conversationId/attachments/:attachmentId (docs/product.md#secure-messages-inbox): a
 * file of a conversation, for staff and reviewers, every view audited first, never cached.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { staff, origin } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const id = (text: string) => (/^[1-9]\d{0,15}$/.test(text) ? Number(text) : 0);
  return attachmentResponse(
    await loadStaffMessageAttachment({
      conversation_id: id(params.conversationId),
      attachment_id: id(params.attachmentId),
      staff,
      origin,
    }),
  );
}
