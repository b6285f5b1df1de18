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

/**
 * Who a person in the member directory is (docs/product.md#member-directory): the list and the
 * details name each kind the same way, from the stored role.
 */
export type PersonKind = "applicant" | "member" | "staff" | "reviewer";

export function personKind(role: string | null | undefined): PersonKind {
  return role === "admin" ? "staff" : role === "reviewer" ? "reviewer" : role === "pending" ? "applicant" : "member";
}

export const PERSON_KIND_LABELS: Record<PersonKind, string> = {
  applicant: "Applicant",
  member: "Member",
  staff: "Staff",
  reviewer: "Reviewer",
};

/**
 * The directory's date and its verb, the same in the list and the details: "Applied" for someone
 * who came through the online application (the application's date), "Created" for an account
 * staff opened (the day it was opened).
 */
export function joinedVerb(source: "application" | "staff"): "Applied" | "Created" {
  return source === "staff" ? "Created" : "Applied";
}

/** Staff and reviewers are not applicants: their rows show their role, not an application status. */
export function showsApplicationStatus(role: string | null | undefined): boolean {
  return !isStaffRole(role);
}

/** The answer to a staff member whose role may not do what they asked (403). */
export const NOT_ALLOWED_MESSAGE = "You do not have access to this.";
