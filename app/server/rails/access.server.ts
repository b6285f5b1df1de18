import { data } from "react-router";
import type { SessionUser } from "~/server/auth/session.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { requireStaff } from "~/server/admin/context.server";
import { mayMoveMoney } from "~/domain/staff-roles";

/**
 * The top of every payment-queue loader and action: staff who may move money. The back office's
 * own check without its `reviewer` option admits staff ("admin") only, so a reviewer is refused
 * like a member (a page redirects, an action answers 403); `mayMoveMoney` is asked again so that a
 * role given back-office access later does not reach the money queues by accident.
 */
export interface MoneyStaff {
  user: SessionUser;
  staff: { id: string; email: string };
  origin: AuditOrigin;
}

export async function requireMoneyStaff(request: Request, info: { request_id: string; ip: string }): Promise<MoneyStaff> {
  const { user, staff, role, origin } = await requireStaff(request, info);
  if (!mayMoveMoney(role)) throw data({ form_error: "You do not have access to this." }, { status: 403 });
  return { user, staff, origin };
}
