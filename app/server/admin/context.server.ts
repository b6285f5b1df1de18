import { getAuth } from "~/server/auth/auth.server";
import { requireUser, type SessionUser } from "~/server/auth/session.server";
import type { Db } from "~/server/db/client.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import type { Staff } from "./review.server";

/**
 * The top of every /admin loader and action: a signed-in staff member (pages redirect others as
 * docs/product.md#access-rules says, actions answer 401 / 403), the database, and where the request
 * came from for the audit log.
 */
export async function requireStaff(request: Request, info: { request_id: string; ip: string }): Promise<{ user: SessionUser; staff: Staff; db: Db; origin: AuditOrigin }> {
  const user = await requireUser(request, { roles: ["admin"] });
  const { db } = await getAuth();
  return { user, staff: { id: user.id, email: user.email }, db, origin: { request_id: info.request_id, ip: info.ip } };
}
