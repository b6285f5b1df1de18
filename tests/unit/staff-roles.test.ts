import { describe, expect, it } from "vitest";
import {
  BOOKS_ROLES,
  isStaffRole,
  mayMoveMoney,
  personKind,
  showsApplicationStatus,
  worksInBackOffice,
} from "~/domain/staff-roles";
import { effectiveRole } from "~/server/auth/roles.server";
import { destinationAfterSignIn, homePathFor } from "~/server/auth/session.server";

/** The reviewer role (docs/product.md#people-and-roles): staff in the back office, without money powers. */
describe("staff roles", () => {
  it("a reviewer is staff without money powers; only admin moves money", () => {
    expect(effectiveRole("reviewer")).toBe("reviewer");
    expect(isStaffRole("reviewer")).toBe(true);
    expect(isStaffRole("admin")).toBe(true);
    expect(isStaffRole("user")).toBe(false);
    expect(mayMoveMoney("admin")).toBe(true);
    for (const role of ["reviewer", "user", "pending", null, undefined, "Admin"])
      expect(mayMoveMoney(role)).toBe(false);
  });

  it("a reviewer's home is the back office, and after sign-in only back-office pages are kept", () => {
    const reviewer = { role: "reviewer" as const, application_status: null };
    expect(homePathFor(reviewer)).toBe("/admin");
    expect(destinationAfterSignIn(reviewer, "/admin/messages")).toBe("/admin/messages");
    expect(destinationAfterSignIn(reviewer, "/dashboard")).toBe("/admin");
  });
});

/** The accountant (docs/product.md#books): the institution's books only, no member powers. */
describe("the accountant role", () => {
  it("is a back-office role of its own: not staff, no money powers, reads the books", () => {
    expect(effectiveRole("accountant")).toBe("accountant");
    expect(isStaffRole("accountant")).toBe(false);
    expect(mayMoveMoney("accountant")).toBe(false);
    expect(worksInBackOffice("accountant")).toBe(true);
    expect(worksInBackOffice("user")).toBe(false);
    expect(BOOKS_ROLES).toEqual(["admin", "accountant"]);
    expect(personKind("accountant")).toBe("accountant");
    expect(showsApplicationStatus("accountant")).toBe(false);
  });

  it("an accountant's home is the books, and after sign-in only the books' pages are kept", () => {
    const accountant = { role: "accountant" as const, application_status: null };
    expect(homePathFor(accountant)).toBe("/admin/books");
    expect(destinationAfterSignIn(accountant, "/admin/books/trial-balance?date=2026-11-30")).toBe(
      "/admin/books/trial-balance?date=2026-11-30",
    );
    for (const elsewhere of ["/admin", "/admin/audit", "/admin/booksx", "/dashboard"])
      expect(destinationAfterSignIn(accountant, elsewhere), elsewhere).toBe("/admin/books");
  });
});
