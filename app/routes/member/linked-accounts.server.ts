import { withDatabase } from "~/server/db/db.server";
import {
  confirmLinkedAccount,
  linkAccount,
  listLinkedAccounts,
  removeLinkedAccount,
} from "~/server/linked-accounts/linked-accounts.server";

export { returnReason } from "~/domain/nacha/return-file";

/** The Linked accounts page's services (docs/product.md#linked-accounts): each opens the database itself. */
export const linkedAccountsOf = withDatabase(listLinkedAccounts);
export const link = withDatabase(linkAccount);
export const confirmDeposits = withDatabase(confirmLinkedAccount);
export const removeLink = withDatabase(removeLinkedAccount);
