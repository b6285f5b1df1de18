/**
 * Who works in the back office (docs/product.md#people-and-roles): staff ("admin") do
 * everything there; a reviewer handles applications, members' details (masked), messages and
 * sign-in codes, and none of the money controls. The server refuses a reviewer every action that
 * moves money or changes an account, whatever the page shows.
 */
export const STAFF_ROLES = ["admin", "reviewer"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export function isStaffRole(role: string | null | undefined): role is StaffRole {
  return role === "admin" || role === "reviewer";
}

/** Posting, reversing, adjusting, holds, freezing, account edits: staff with money powers only. */
export function mayMoveMoney(role: string | null | undefined): boolean {
  return role === "admin";
}
