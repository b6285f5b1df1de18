import { z } from "zod";
import { plainText } from "./plain-text";

/**
 * Secure messages (docs/product.md#secure-messages): what a member writes to the credit union, and
 * staff's replies. The limits and messages the forms and the server share.
 */
export const MESSAGE_SUBJECT_MAX_CHARS = 120;
export const MESSAGE_BODY_MAX_CHARS = 5000;

/** Up to two files a message, each a PDF, JPEG or PNG of at most 10 MB, checked by its bytes. */
export const MESSAGE_ATTACHMENT_FIELDS = ["attachment_1", "attachment_2"] as const;
export type MessageAttachmentField = (typeof MESSAGE_ATTACHMENT_FIELDS)[number];
export const MESSAGE_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
export const MESSAGE_ATTACHMENT_TYPES = ["application/pdf", "image/jpeg", "image/png"] as const;
export const MESSAGE_ATTACHMENT_MESSAGES = {
  wrong_type: "Attach a PDF, JPEG or PNG file.",
  too_large: "The file is larger than 10 MB.",
  unreadable: "The file could not be read. Please attach it again.",
  missing: "Attach a file.",
} as const;

const body = plainText({
  missing: "Write your message.",
  message: "Please use only letters, numbers, spaces, punctuation and line breaks.",
  multiline: true,
})
  .min(1, "Write your message.")
  .max(MESSAGE_BODY_MAX_CHARS, `Please keep it to ${MESSAGE_BODY_MAX_CHARS.toLocaleString("en-US")} characters.`);

export const NewConversationSchema = z.object({
  subject: plainText({ missing: "Write a subject." })
    .min(1, "Write a subject.")
    .max(MESSAGE_SUBJECT_MAX_CHARS, `Please keep the subject to ${MESSAGE_SUBJECT_MAX_CHARS} characters.`),
  body,
  transaction_id: z.coerce.number().int().positive().optional(),
});
export type NewConversation = z.infer<typeof NewConversationSchema>;

export const ReplySchema = z.object({ body });

/** Staff's inbox views: waiting for someone to take it, the staff member's own, every conversation. */
export const INBOX_VIEWS = ["unassigned", "mine", "all"] as const;
export type InboxView = (typeof INBOX_VIEWS)[number];
export const INBOX_VIEW_LABELS: Record<InboxView, string> = { unassigned: "Unassigned", mine: "Mine", all: "All" };

/** "Conversation M-000042": the number the member and staff both quote. */
export function conversationNumber(id: number): string {
  return `M-${String(id).padStart(6, "0")}`;
}

/** What the member is told by email and by the bell: that there is a message, never what it says. */
export const NEW_MESSAGE_TITLE = "You have a new message";
