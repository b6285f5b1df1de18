import { data } from "react-router";
import { requireStaff } from "~/server/admin/context.server";
import { mayMoveMoney } from "~/domain/staff-roles";

/**
 * The top of every loader and action that moves money or changes payments for everyone (Add
 * Transactions, the pause switch, currency rates): staff (`requireStaff`: others are redirected or
 * answered 401 / 403), and among staff only those who may move money: a reviewer is refused by the
 * server with 403, whatever the page shows (docs/product.md#people-and-roles).
 */
export async function requireMoneyStaff(request: Request, info: { request_id: string; ip: string }) {
  const context = await requireStaff(request, info);
  if (!mayMoveMoney(context.user.role)) throw data({ form_error: "You do not have access to this." }, { status: 403 });
  return context;
}
