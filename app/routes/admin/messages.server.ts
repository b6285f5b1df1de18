import { withDatabase } from "~/server/db/db.server";
import { listContactMessages, setContactMessageStatus } from "~/server/admin/messages.server";

/** What /admin/messages calls (its view-model): each opens the database itself. */
export const contactMessages = withDatabase(listContactMessages);
export const markContactMessage = withDatabase(setContactMessageStatus);
