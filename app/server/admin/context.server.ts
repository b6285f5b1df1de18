import { requireUser, type SessionUser } from "~/server/auth/session.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import type { Actor } from "~/domain/actor";
import { data } from "react-router";
import { BOOKS_ROLES, STAFF_ROLES, mayMoveMoney, type BooksRole, type StaffRole } from "~/domain/staff-roles";

/** Who is asking, as every back-office service takes it: no database handle (see requireStaff). */
export interface StaffContext {
  user: SessionUser;
  /** The staff member, as the audit log records the actor. */
  staff: Actor;
  role: StaffRole;
  /** Where the request came from, for the audit log. */
  origin: AuditOrigin;
}

/**
 * The top of every /admin loader and action: a signed-in staff member (pages redirect others as
 * docs/product.md#access-rules says, actions answer 401 / 403) and where the request came from
 * for the audit log. Staff ("admin") only, unless the page also serves reviewers
 * (`{ reviewer: true }`: applications, members' details, messages, sign-in codes); then `role`
 * says which, and every money action checks `mayMoveMoney(role)` itself.
 *
 * It hands the route no database handle: the route passes `staff` and `origin` to the functions
 * of its view-model (`app/routes/admin/<screen>.server.ts`), which open the database themselves
 * (`withDatabase` in `~/server/db/db.server`); ESLint refuses a route that holds a handle.
 */
export async function requireStaff(
  request: Request,
  info: { request_id: string; ip: string },
  options: { reviewer?: boolean } = {},
): Promise<StaffContext> {
  const user = await requireUser(request, { roles: options.reviewer ? STAFF_ROLES : ["admin"] });
  const role: StaffRole = user.role === "reviewer" ? "reviewer" : "admin";
  return {
    user,
    staff: { id: user.id, email: user.email },
    role,
    origin: { request_id: info.request_id, ip: info.ip },
  };
}

/**
 * The top of every loader and action that moves money or changes payments for everyone (Add
 * Transactions, the pause switch, currency rates, the payment queues): `requireStaff` without its
 * reviewer option (others are redirected or answered 401 / 403), and `mayMoveMoney` asked again,
 * so that a role given back-office access later does not reach money by accident: a reviewer is
 * refused by the server with 403, whatever the page shows (docs/product.md#people-and-roles).
 */
export async function requireMoneyStaff(
  request: Request,
  info: { request_id: string; ip: string },
): Promise<StaffContext> {
  const context = await requireStaff(request, info);
  if (!mayMoveMoney(context.role)) throw data({ form_error: "You do not have access to this." }, { status: 403 });
  return context;
}

/**
 * The top of every /admin/books loader (docs/product.md#books): staff ("admin") or an accountant.
 * Others are redirected home (pages) or answered 401 / 403 (actions), as `requireStaff` does.
 * `staff` is the person as the audit log records the actor.
 */
export async function requireBooksReader(
  request: Request,
  info: { request_id: string; ip: string },
): Promise<{ user: SessionUser; staff: Actor; role: BooksRole; origin: AuditOrigin }> {
  const user = await requireUser(request, { roles: BOOKS_ROLES });
  return {
    user,
    staff: { id: user.id, email: user.email },
    role: user.role === "accountant" ? "accountant" : "admin",
    origin: { request_id: info.request_id, ip: info.ip },
  };
}
