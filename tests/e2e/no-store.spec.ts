import { expect, test } from "./fixtures";
import { ALEX, STAFF } from "./support";

/**
 * No cache may keep what a signed-in person saw (balances, history, the back office's revealed
 * date of birth and ID number, the outbox, the audit log): every answer to them says
 * `Cache-Control: no-store`, pages and their `.data` alike.
 */
const MEMBER_PATHS = [
  "/dashboard",
  "/dashboard.data",
  "/dashboard/transactions",
  "/dashboard/transactions.data",
  "/dashboard/transactions.csv",
  "/settings/account",
  "/settings/account.data",
  "/settings/profile",
  // Public pages too, once a session cookie comes with them: the header shows who is signed in.
  "/",
  "/_.data",
];
const STAFF_PATHS = [
  "/admin",
  "/admin.data",
  "/admin/outbox",
  "/admin/audit",
  "/admin/audit.csv",
  "/admin/messages",
  "/admin/reset-transfers",
];

test("every answer to a signed-in member is no-store", async ({ page, signInAs }) => {
  await signInAs(ALEX);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/dashboard/);
  for (const path of MEMBER_PATHS) {
    const response = await page.request.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(200);
    expect(response.headers()["cache-control"], path).toBe("no-store");
  }
});

test("every answer in the back office is no-store", async ({ signedIn }) => {
  const staff = await signedIn(STAFF);
  for (const path of STAFF_PATHS) {
    const response = await staff.request.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(200);
    expect(response.headers()["cache-control"], path).toBe("no-store");
  }
});

test("a signed-in area answered without a session (the way to sign in) is no-store as well", async ({ request }) => {
  for (const path of ["/dashboard", "/admin", "/settings/account", "/dashboard.data"]) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.headers()["cache-control"], path).toBe("no-store");
  }
});
