import { withDatabase } from "~/server/db/db.server";
import { addTransactions, postingMember } from "~/server/postings/add-transactions.server";

/** What Add Transactions calls (its view-model): each opens the database itself. */
export const memberForPostings = withDatabase(postingMember);
export const postTransactions = withDatabase(addTransactions);
