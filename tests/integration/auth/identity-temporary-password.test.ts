import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import { auditLog, passwordChangeRequirements, sessions } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import { CreateMemberSchema } from "~/domain/application-review";
import { PASSWORD_TOO_COMMON, PASSWORD_TOO_SHORT, PASSWORDS_DO_NOT_MATCH } from "~/domain/password";
import { createMemberByStaff, mustChangePassword } from "~/server/admin/create-member.server";
import { startSignIn } from "~/server/auth/sign-in.server";
import * as loginRoute from "~/routes/auth/login";
import * as changePasswordRoute from "~/routes/auth/change-password";
import * as sessionRoute from "~/routes/auth/session";
import * as memberLayoutRoute from "~/routes/member/layout";
import * as dashboardRoute from "~/routes/member/dashboard";
import * as accountRoute from "~/routes/settings/account";
import * as adminIndexRoute from "~/routes/admin/index";
import * as resetPasswordRoute from "~/routes/auth/reset-password";
import { openTestDatabase } from "../test-database";
import { fieldErrors } from "../../form-reply";
import { Browser, lastCodeTo, outcome } from "../identity-support";
import { applicant, ORIGIN, person, signedIn, staffThroughGrant, uniqueIp } from "../admin-support";

/**
 * Create New User (docs/product.md#passwords): the password staff give is temporary. At first
 * sign-in the person lands on /change-password; every other signed-in page and action sends them
 * there until they choose a new password (the usual password rules), which clears the requirement,
 * ends their other sessions, is audited and leads on to /dashboard. Also the route's authorization
 * matrix.
 */
const TEMPORARY = "Granite harbor seventy 4";
const NEW_PASSWORD = "Lanterns over quiet water 12";

let database: Database;
let staff: { id: string; email: string };
let counter = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  staff = await person(database.db, "admin");
});
afterAll(async () => {
  await database?.close();
});

function context(ip = "203.0.113.80") {
  const provider = new RouterContextProvider();
  provider.set(requestInfoContext, { request_id: "temp-password-0001", ip, nonce: "" });
  return provider;
}

function request(cookie: string | null, path: string, form?: Record<string, string>): Request {
  const headers = new Headers({ origin: "http://localhost:3000" });
  if (cookie) headers.set("cookie", cookie);
  if (!form) return new Request(`http://localhost:3000${path}`, { headers });
  headers.set("content-type", "application/x-www-form-urlencoded");
  return new Request(`http://localhost:3000${path}`, { method: "POST", headers, body: new URLSearchParams(form) });
}

type Outcome =
  | { kind: "redirect"; status: number; location: string; set_cookies: string[] }
  | { kind: "refused"; status: number; body: string }
  | { kind: "ok"; status: number; body: string };

/** Runs a loader or action the way React Router does and says what the browser would get. */
async function run(fn: () => Promise<unknown>): Promise<Outcome> {
  let value: unknown;
  try {
    value = await fn();
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response) {
    if (value.status >= 300 && value.status < 400)
      return {
        kind: "redirect",
        status: value.status,
        location: value.headers.get("location") ?? "",
        set_cookies: value.headers.getSetCookie(),
      };
    return { kind: value.status >= 400 ? "refused" : "ok", status: value.status, body: await value.clone().text() };
  }
  const init = (value as { init?: { status?: number } } | null)?.init;
  const payload = (value as { data?: unknown } | null)?.data ?? value;
  const status = init?.status ?? 200;
  return { kind: status >= 400 ? "refused" : "ok", status, body: JSON.stringify(payload) ?? "" };
}

const args = (r: Request, ip?: string) => ({ request: r, params: {}, context: context(ip) }) as never;

/** A member created by staff with the temporary password (staff accounts come from a role grant instead). */
async function createdByStaff(): Promise<{ id: string; email: string }> {
  counter += 1;
  const email = `temporary${counter}-${Date.now()}@example.com`;
  const member = CreateMemberSchema.parse({
    email,
    password: TEMPORARY,
    first_name: "Robin",
    last_name: `Temp${counter}`,
    phone: "(555) 010-4444",
    street: "4 Pier Road",
    city: "Rye",
    state: "NH",
    postal_code: "03870",
    role: "user",
  });
  const result = await createMemberByStaff(database.db, { staff, member, origin: ORIGIN });
  if (result.status !== "created") throw new Error(`not created: ${result.status}`);
  return { id: result.user_id, email };
}

/** The real two-step sign-in through /login's action; returns the browser and where it was sent. */
async function signInThroughLogin(
  email: string,
  password: string,
  redirectTo?: string,
): Promise<{ browser: Browser; location: string }> {
  const browser = new Browser(uniqueIp());
  const extra: Record<string, string> = redirectTo ? { redirectTo } : {};
  const step1 = await run(() =>
    loginRoute.action(args(request(null, "/login", { intent: "password", email, password, ...extra }), browser.ip)),
  );
  if (step1.kind !== "redirect") throw new Error(`step 1: ${JSON.stringify(step1)}`);
  browser.apply(step1.set_cookies);
  const code = await lastCodeTo(database.db, email);
  const step2 = await run(() =>
    loginRoute.action(args(request(browser.cookieHeader(), "/login", { intent: "code", code, ...extra }), browser.ip)),
  );
  if (step2.kind !== "redirect") throw new Error(`step 2: ${JSON.stringify(step2)}`);
  browser.apply(step2.set_cookies);
  return { browser, location: step2.location };
}

function changeForm(
  current_password: string,
  new_password: string,
  confirm_password = new_password,
): Record<string, string> {
  return { current_password, new_password, confirm_password };
}

describe("a temporary password at first sign-in", () => {
  it("signing in with it leads to /change-password, and every page and action sends the person back there", async () => {
    const member = await createdByStaff();
    expect(await mustChangePassword(database.db, member.id)).toBe(true);
    const { browser, location } = await signInThroughLogin(member.email, TEMPORARY);
    expect(location).toBe("/change-password");
    const cookie = browser.cookieHeader();

    const page = await run(() => changePasswordRoute.loader(args(request(cookie, "/change-password"))));
    expect(page.kind).toBe("ok");
    expect(page.kind === "ok" && page.body).toContain(member.email);

    for (const [path, load] of [
      ["/dashboard", memberLayoutRoute.loader],
      ["/dashboard/transactions", memberLayoutRoute.loader],
      ["/settings/account", accountRoute.loader],
    ] as const) {
      const outcome = await run(() => load(args(request(cookie, path))));
      expect(outcome, path).toMatchObject({
        kind: "redirect",
        location: `/change-password?redirectTo=${encodeURIComponent(path)}`,
      });
    }
    // A client-side navigation asks for the page's data address; the page is what is remembered.
    const viaData = await run(() =>
      memberLayoutRoute.loader(
        args(request(cookie, "/dashboard/transactions.data?page=2&_routes=routes%2Fmember%2Flayout")),
      ),
    );
    expect(viaData).toMatchObject({
      kind: "redirect",
      location: `/change-password?redirectTo=${encodeURIComponent("/dashboard/transactions?page=2")}`,
    });
    // Actions too (a plain form post follows the redirect to the page).
    const transfer = await run(() =>
      dashboardRoute.action(args(request(cookie, "/dashboard", { intent: "transfer", amount: "1.00" }))),
    );
    expect(transfer).toMatchObject({ kind: "redirect", location: "/change-password" });
    const settings = await run(() =>
      accountRoute.action(args(request(cookie, "/settings/account", { intent: "notifications", login_alerts: "on" }))),
    );
    expect(settings).toMatchObject({ kind: "redirect", location: "/change-password" });
    // Keeping the session alive still works on the page.
    const keepAlive = await run(() => sessionRoute.action(args(request(cookie, "/session", {}))));
    expect(keepAlive.kind).toBe("ok");
  });

  it("refuses a wrong temporary password and new passwords that break the rules, with their messages", async () => {
    const member = await createdByStaff();
    const { browser } = await signInThroughLogin(member.email, TEMPORARY);
    const cookie = browser.cookieHeader();
    const cases: [Record<string, string>, string, string][] = [
      [
        changeForm("Not the temporary one 1", NEW_PASSWORD),
        "current_password",
        "The temporary password is not correct.",
      ],
      [changeForm(TEMPORARY, "short pass"), "new_password", PASSWORD_TOO_SHORT],
      [changeForm(TEMPORARY, "Password2024!"), "new_password", PASSWORD_TOO_COMMON],
      [changeForm(TEMPORARY, NEW_PASSWORD, `${NEW_PASSWORD}x`), "confirm_password", PASSWORDS_DO_NOT_MATCH],
      [
        changeForm(TEMPORARY, TEMPORARY),
        "new_password",
        "Your new password must be different from the temporary password.",
      ],
      [changeForm("", NEW_PASSWORD), "current_password", "Please enter your current password"],
    ];
    for (const [form, field, message] of cases) {
      const outcome = await run(() => changePasswordRoute.action(args(request(cookie, "/change-password", form))));
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      expect(outcome.kind === "refused" && fieldErrors(JSON.parse(outcome.body))[field]).toBe(message);
    }
    expect(await mustChangePassword(database.db, member.id)).toBe(true);
    const refused = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "auth.current_password.wrong"), eq(auditLog.subject_id, member.id)));
    expect(refused).toHaveLength(1);
    expect(refused[0]!.after).toMatchObject({ purpose: "temporary_password", recent_wrong_passwords: 1 });
  });

  it("a good new password clears the requirement, ends other sessions, is audited and leads to /dashboard", async () => {
    const member = await createdByStaff();
    const other = await signedIn(database.db, member.id);
    const { browser } = await signInThroughLogin(member.email, TEMPORARY);
    const before = await database.db.select().from(sessions).where(eq(sessions.userId, member.id));
    expect(before).toHaveLength(2);

    const outcome = await run(() =>
      changePasswordRoute.action(
        args(request(browser.cookieHeader(), "/change-password", changeForm(TEMPORARY, NEW_PASSWORD))),
      ),
    );
    expect(outcome).toMatchObject({ kind: "redirect", location: "/dashboard" });
    if (outcome.kind !== "redirect") return;
    browser.apply(outcome.set_cookies);

    expect(await mustChangePassword(database.db, member.id)).toBe(false);
    const [requirement] = await database.db
      .select()
      .from(passwordChangeRequirements)
      .where(eq(passwordChangeRequirements.user_id, member.id));
    expect(requirement!.cleared_at).toBeInstanceOf(Date);
    const after = await database.db.select().from(sessions).where(eq(sessions.userId, member.id));
    expect(after).toHaveLength(1);
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "auth.password.temporary_replaced"), eq(auditLog.subject_id, member.id)));
    expect(audit).toMatchObject({
      actor_id: member.id,
      actor_email: member.email,
      after: { must_change_password: false, other_sessions_ended: true },
    });

    // The other browser is signed out; this one now reaches the dashboard.
    expect(await run(() => memberLayoutRoute.loader(args(request(other, "/dashboard"))))).toMatchObject({
      kind: "redirect",
      location: "/login?redirectTo=%2Fdashboard",
    });
    expect(await run(() => memberLayoutRoute.loader(args(request(other, "/dashboard.data"))))).toMatchObject({
      kind: "redirect",
      location: "/login?redirectTo=%2Fdashboard",
    });
    expect((await run(() => memberLayoutRoute.loader(args(request(browser.cookieHeader(), "/dashboard"))))).kind).toBe(
      "ok",
    );
    // The page is done with: it sends them home.
    expect(
      await run(() => changePasswordRoute.loader(args(request(browser.cookieHeader(), "/change-password")))),
    ).toMatchObject({ kind: "redirect", location: "/dashboard" });

    // The temporary password no longer works; the new one does, straight to the dashboard.
    expect(
      await startSignIn(database.db, new Browser(uniqueIp()).meta(), { email: member.email, password: TEMPORARY }),
    ).toMatchObject({ ok: false, code: "invalid" });
    const again = await signInThroughLogin(member.email, NEW_PASSWORD);
    expect(again.location).toBe("/dashboard");
  });

  it("keeps where the person was going: /dashboard/transactions after the change", async () => {
    const member = await createdByStaff();
    const { browser, location } = await signInThroughLogin(member.email, TEMPORARY, "/dashboard/transactions");
    expect(location).toBe("/change-password?redirectTo=%2Fdashboard%2Ftransactions");
    const outcome = await run(() =>
      changePasswordRoute.action(
        args(
          request(browser.cookieHeader(), "/change-password", {
            ...changeForm(TEMPORARY, NEW_PASSWORD),
            redirectTo: "/dashboard/transactions",
          }),
        ),
      ),
    );
    expect(outcome).toMatchObject({ kind: "redirect", location: "/dashboard/transactions" });
  });

  it("a staff account made through a role grant chooses its own password with the set-up link, then signs in with the email code to /admin", async () => {
    const approver = await person(database.db, "admin");
    const made = await staffThroughGrant(database.db, { role: "admin", requester: staff, approver });
    // No one knows a password for it before the link is used.
    const before = await startSignIn(database.db, { ip: uniqueIp(), user_agent: "test", cookie: "" } as never, {
      email: made.email,
      password: TEMPORARY,
    });
    expect(outcome(before)).toBe("invalid");
    const reset = await run(() =>
      resetPasswordRoute.action(
        args(
          request(null, "/reset-password", {
            token: made.token,
            password: NEW_PASSWORD,
            confirm_password: NEW_PASSWORD,
          }),
        ),
      ),
    );
    expect(reset).toMatchObject({ kind: "redirect", location: "/login?notice=reset" });
    expect(await mustChangePassword(database.db, made.id)).toBe(false);
    const { browser, location } = await signInThroughLogin(made.email, NEW_PASSWORD);
    expect(location).toBe("/admin");
    const admin = await run(() => adminIndexRoute.loader(args(request(browser.cookieHeader(), "/admin"))));
    expect(admin.kind).toBe("ok");
    // The link works once.
    const again = await run(() =>
      resetPasswordRoute.action(
        args(
          request(null, "/reset-password", {
            token: made.token,
            password: "Another quiet harbor 77",
            confirm_password: "Another quiet harbor 77",
          }),
        ),
      ),
    );
    expect(again).toMatchObject({ kind: "refused", status: 400 });
  });
});

describe("/change-password authorization", () => {
  type Persona = "anonymous" | "pending" | "member" | "staff" | "temporary";
  const cookies: Partial<Record<Persona, string>> = {};
  beforeAll(async () => {
    const pending = await applicant(database.db);
    cookies.pending = await signedIn(database.db, pending.id);
    cookies.member = await signedIn(database.db, (await person(database.db, "user")).id);
    cookies.staff = await signedIn(database.db, staff.id);
    cookies.temporary = await signedIn(database.db, (await createdByStaff()).id);
  });

  const page: Record<Persona, Partial<Outcome>> = {
    anonymous: { kind: "redirect", location: "/login?redirectTo=%2Fchange-password" },
    pending: { kind: "redirect", location: "/pending-approval" },
    // Nothing to change: on to their home.
    member: { kind: "redirect", location: "/dashboard" },
    staff: { kind: "redirect", location: "/admin" },
    temporary: { kind: "ok" },
  };
  const action: Record<Exclude<Persona, "temporary">, Partial<Outcome>> = {
    anonymous: { kind: "refused", status: 401 },
    pending: { kind: "refused", status: 403 },
    member: { kind: "redirect", location: "/dashboard" },
    staff: { kind: "redirect", location: "/admin" },
  };

  for (const persona of Object.keys(page) as Persona[]) {
    it(`the page for ${persona}`, async () => {
      expect(
        await run(() => changePasswordRoute.loader(args(request(cookies[persona] ?? null, "/change-password")))),
      ).toMatchObject(page[persona]);
    });
  }
  for (const persona of Object.keys(action) as Exclude<Persona, "temporary">[]) {
    it(`the action for ${persona} changes no password`, async () => {
      const audits = await database.db
        .select({ id: auditLog.id })
        .from(auditLog)
        .where(eq(auditLog.action, "auth.password.temporary_replaced"));
      expect(
        await run(() =>
          changePasswordRoute.action(
            args(
              request(
                cookies[persona] ?? null,
                "/change-password",
                changeForm("Harbor lights at dusk 7", NEW_PASSWORD),
              ),
            ),
          ),
        ),
      ).toMatchObject(action[persona]);
      expect(
        await database.db
          .select({ id: auditLog.id })
          .from(auditLog)
          .where(eq(auditLog.action, "auth.password.temporary_replaced")),
      ).toHaveLength(audits.length);
    });
  }
});
