import { describe, expect, it } from "vitest";
import { isStaffRole, mayMoveMoney } from "~/domain/staff-roles";
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
