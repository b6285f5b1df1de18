import type { Route } from "./+types/message-attachment";
import { requireMember } from "~/server/auth/session.server";
import { loadMemberMessageAttachment } from "./messages.server";
import { attachmentResponse } from "~/server/disputes/attachment-response.server";

/**
 * /dashboard/messages/:conversationId/attachments/:attachmentId (docs/product.md#secure-messages):
 * a file of one of the member's own conversations. Another member's reads as not found.
 */
export async function loader({ request, params }: Route.LoaderArgs) {
  const user = await requireMember(request);
  const id = (text: string) => (/^[1-9]\d{0,15}$/.test(text) ? Number(text) : 0);
  return attachmentResponse(
    await loadMemberMessageAttachment(user, id(params.conversationId), id(params.attachmentId)),
  );
}
