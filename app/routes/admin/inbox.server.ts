import { withDatabase } from "~/server/db/db.server";
import {
  assignConversation,
  colleagues,
  inboxCounts,
  readMessageAttachment,
  setConversationStatus,
  staffConversation,
  staffInbox,
  staffReply,
} from "~/server/secure-messages/secure-messages.server";

/** What the back office's Inbox pages call (docs/product.md#secure-messages-inbox): each opens the database itself. */

export const loadInbox = withDatabase(
  async (database, staff_id: string, options: Parameters<typeof staffInbox>[2]) => ({
    counts: await inboxCounts(database, staff_id),
    items: (await staffInbox(database, staff_id, options)).map((c) => ({
      ...c,
      last_message_at: c.last_message_at.toISOString(),
    })),
  }),
);

export const loadStaffConversation = withDatabase(
  async (database, ...args: Parameters<typeof staffConversation> extends [unknown, ...infer R] ? R : never) => {
    const found = await staffConversation(database, ...args);
    if (!found) return null;
    return {
      conversation: {
        ...found,
        created_at: found.created_at.toISOString(),
        closed_at: found.closed_at?.toISOString() ?? null,
        messages: found.messages.map((m) => ({ ...m, at: m.at.toISOString() })),
      },
      colleagues: await colleagues(database),
    };
  },
);

export const sendStaffReply = withDatabase(staffReply);
export const assignTo = withDatabase(assignConversation);
export const changeStatus = withDatabase(setConversationStatus);
export const loadStaffMessageAttachment = withDatabase(
  (database, input: Omit<Parameters<typeof readMessageAttachment>[1], "member_id">) =>
    readMessageAttachment(database, input),
);
