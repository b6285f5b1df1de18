import { withDatabase } from "~/server/db/db.server";
import type { SessionUser } from "~/server/auth/session.server";
import {
  memberConversations,
  memberReply,
  openMemberConversation,
  ownTransaction,
  readMessageAttachment,
  startConversation,
} from "~/server/secure-messages/secure-messages.server";

/**
 * What the member's Messages pages call (docs/product.md#secure-messages): each opens the database
 * itself. Every read and write is of the member's own conversations only.
 */

export const loadConversations = withDatabase(async (database, user: SessionUser) =>
  (await memberConversations(database, user.id)).map((c) => ({
    ...c,
    last_message_at: c.last_message_at.toISOString(),
  })),
);

export const loadConversation = withDatabase(async (database, user: SessionUser, id: number) => {
  const found = await openMemberConversation(database, user.id, id);
  return found
    ? {
        ...found,
        created_at: found.created_at.toISOString(),
        messages: found.messages.map((m) => ({ ...m, at: m.at.toISOString() })),
      }
    : null;
});

/** The transaction a new message is about ("Ask about this"): the member's own, or none. */
export const loadTransaction = withDatabase((database, user: SessionUser, transaction_id: number) =>
  ownTransaction(database, user.id, transaction_id),
);

export const sendNewConversation = withDatabase(startConversation);
export const sendMemberReply = withDatabase(memberReply);

export const loadMemberMessageAttachment = withDatabase(
  (database, user: SessionUser, conversation_id: number, attachment_id: number) =>
    readMessageAttachment(database, { conversation_id, attachment_id, member_id: user.id }),
);
