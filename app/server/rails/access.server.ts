import { requireUser, type SessionUser } from "~/server/auth/session.server";
import { getAuth } from "~/server/auth/auth.server";
import type { Db } from "~/server/db/client.server";
import type { AuditOrigin } from "~/server/audit/audit.server";

/**
 * The top of every payment-queue loader and action: staff who may move money. That is the
 * "admin" role only: a "reviewer" (who reads the back office to review applications) is
 * refused like a member, with a redirect for a page and 403 for an action. Listing only "admin"
 * here, instead of every staff role, keeps a role added later out until it is given this on
 * purpose.
 */
export const MONEY_ROLES = ["admin"] as const;

export interface MoneyStaff {
  user: SessionUser;
  staff: { id: string; email: string };
  db: Db;
  origin: AuditOrigin;
}

export async function requireMoneyStaff(request: Request, info: { request_id: string; ip: string }): Promise<MoneyStaff> {
  const user = await requireUser(request, { roles: MONEY_ROLES });
  const { db } = await getAuth();
  return { user, staff: { id: user.id, email: user.email }, db, origin: { request_id: info.request_id, ip: info.ip } };
}
