/** Add Transactions, the pause switch and currency rates: staff who may move money (see requireMoneyStaff). */
export { requireMoneyStaff } from "~/server/admin/context.server";
