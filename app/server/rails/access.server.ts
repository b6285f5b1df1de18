/** The payment queues (export, cancel, files): staff who may move money (see requireMoneyStaff). */
export { requireMoneyStaff } from "~/server/admin/context.server";
