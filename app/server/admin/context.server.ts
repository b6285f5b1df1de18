import { getAuth } from "~/server/auth/auth.server";
import { requireUser, type SessionUser } from "~/server/auth/session.server";
import type { Db } from "~/server/db/client.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import type { Staff } from "./review.server";
import { STAFF_ROLES, type StaffRole } from "~/domain/staff-roles";

/**
 * The top of every /admin loader and action: a signed-in staff member (pages redirect others as
 * docs/product.md#access-rules says, actions answer 401 / 403), the database, and where the request
 * came from for the audit log. Staff ("admin") only, unless the page also serves reviewers
 * (`{ reviewer: true }`: applications, members' details, messages, sign-in codes); then `role`
 * says which, and every money action checks `mayMoveMoney(role)` itself.
 */
export async function requireStaff(
  request: Request,
  info: { request_id: string; ip: string },
  options: { reviewer?: boolean } = {},
): Promise<{ user: SessionUser; staff: Staff; role: StaffRole; db: Db; origin: AuditOrigin }> {
  const user = await requireUser(request, { roles: options.reviewer ? STAFF_ROLES : ["admin"] });
  const { db } = await getAuth();
  const role: StaffRole = user.role === "reviewer" ? "reviewer" : "admin";
  return { user, staff: { id: user.id, email: user.email }, role, db, origin: { request_id: info.request_id, ip: info.ip } };
}
