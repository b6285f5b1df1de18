/**
 * Who works in the back office (docs/product.md#people-and-roles): staff ("admin") do
 * everything there; a reviewer handles applications, members' details (masked), messages and
 * sign-in codes, and none of the money controls. The server refuses a reviewer every action that
 * moves money or changes an account, whatever the page shows.
 */
export const STAFF_ROLES = ["admin", "reviewer"] as const;
// The accountant (docs/product.md#books) is a back-office role of its own, outside STAFF_ROLES:
// every /admin page that asks requireStaff refuses them without having to know they exist.
export type StaffRole = (typeof STAFF_ROLES)[number];

export function isStaffRole(role: string | null | undefined): role is StaffRole {
  return role === "admin" || role === "reviewer";
}

/**
 * Everyone who signs in to the back office rather than the banking app: staff, reviewers and
 * accountants. They sign in with a passkey when the profile requires it, and have no member
 * pages. An accountant is not staff in `isStaffRole`'s sense: they reach the books and nothing
 * else of the back office (docs/product.md#books).
 */
export function worksInBackOffice(role: string | null | undefined): boolean {
  return role === "admin" || role === "reviewer" || role === "accountant";
}

/** Who reads the institution's books (docs/product.md#books): staff and accountants. */
export const BOOKS_ROLES = ["admin", "accountant"] as const;
export type BooksRole = (typeof BOOKS_ROLES)[number];

/** Posting, reversing, adjusting, holds, freezing, account edits: staff with money powers only. */
export function mayMoveMoney(role: string | null | undefined): boolean {
  return role === "admin";
}

/**
 * Who a person in the member directory is (docs/product.md#member-directory): the list and the
 * details name each kind the same way, from the stored role.
 */
export type PersonKind = "applicant" | "member" | "staff" | "reviewer" | "accountant";

export function personKind(role: string | null | undefined): PersonKind {
  if (role === "admin") return "staff";
  if (role === "reviewer" || role === "accountant") return role;
  return role === "pending" ? "applicant" : "member";
}

export const PERSON_KIND_LABELS: Record<PersonKind, string> = {
  applicant: "Applicant",
  member: "Member",
  staff: "Staff",
  reviewer: "Reviewer",
  accountant: "Accountant",
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
  return !worksInBackOffice(role);
}

/** The answer to a staff member whose role may not do what they asked (403). */
export const NOT_ALLOWED_MESSAGE = "You do not have access to this.";
