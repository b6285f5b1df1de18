import type { UserRole } from "~/server/db/schema";

/**
 * The roles of docs/product.md#people-and-roles. A missing (or unknown) stored role counts as a
 * member ("user").
 */
export type EffectiveRole = UserRole;

export function effectiveRole(stored: string | null | undefined): EffectiveRole {
  if (stored === "admin" || stored === "pending" || stored === "reviewer" || stored === "accountant") return stored;
  return "user";
}
