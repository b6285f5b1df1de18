import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, memberProfiles, outbox, staffRoleGrants, users } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { listOutbox } from "~/server/mail/outbox.server";
import { requestNewStaff } from "~/server/admin/staff-grants.server";
import { STAFF_GRANT_MESSAGES } from "~/domain/staff-grants";
import * as indexRoute from "~/routes/admin/index";
import * as queuesRoute from "~/routes/admin/queues";
import { openTestDatabase } from "../test-database";
import { ORIGIN, person, setUpTokenFor } from "../admin-support";
import { itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { fieldErrors } from "../../form-reply";

/**
 * Staff role grants under dual control (docs/product.md#staff-role-grants): a staff or reviewer
 * account, or a member raised to one of those roles, is a request that another admin approves in
 * Queues; nothing changes before; every step is audited; the requester, a reviewer, members,
 * applicants and visitors are refused and change nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "another_member" | "reviewer" | "maker" | "second_admin";
const OUTSIDERS: Persona[] = ["anonymous", "applicant", "member", "another_member", "reviewer"];

let database: Database;
let people: SignedIn<Persona>;
let maker: { id: string; email: string };
let second: { id: string; email: string };
let memberId = "";
let applicantId = "";

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  maker = cast.staff;
  second = await person(db, "admin");
  memberId = cast.member.member.id;
  applicantId = cast.applicant.id;
  people = await SignedIn.as(db, {
    maker: maker.id,
    second_admin: second.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: memberId,
    another_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "grants-request-0001", ip: "203.0.113.61" });
const admin = (persona: Persona, form: Record<string, string>) =>
  indexRoute.action({ request: people.post(persona, "/admin?index", form), params: {}, context: context() } as never);
const queues = (persona: Persona, form: Record<string, string>) =>
  queuesRoute.action({ request: people.post(persona, "/admin/queues", form), params: {}, context: context() } as never);

function staffForm(email: string, role: "admin" | "reviewer" = "admin"): Record<string, string> {
  return {
    intent: "create_member",
    email,
    first_name: "Nia",
    last_name: "Granted",
    phone: "(555) 010-0000",
    street: "1 Road",
    city: "Dover",
    state: "NH",
    postal_code: "03820",
    role,
  };
}

/** Everything a grant action could change. */
async function state() {
  const db = database.db;
  const [audits] = await db.select({ n: count() }).from(auditLog);
  const [people] = await db.select({ n: count() }).from(users);
  const grants = await db
    .select({ id: staffRoleGrants.id, status: staffRoleGrants.status, user_id: staffRoleGrants.user_id })
    .from(staffRoleGrants)
    .orderBy(staffRoleGrants.id);
  const roles = await db.select({ id: users.id, role: users.role }).from(users).orderBy(users.id);
  return { audits: Number(audits!.n), people: Number(people!.n), grants, roles };
}

async function grantFor(email: string) {
  const [row] = await database.db
    .select()
    .from(staffRoleGrants)
    .where(eq(staffRoleGrants.email, email))
    .orderBy(desc(staffRoleGrants.id))
    .limit(1);
  return row;
}

async function userByEmail(email: string) {
  const [row] = await database.db.select({ id: users.id, role: users.role }).from(users).where(eq(users.email, email));
  return row;
}

describe("asking for a staff role", () => {
  it("Create New User with a staff role files a request and creates nobody; the request is audited", async () => {
    for (const role of ["admin", "reviewer"] as const) {
      const email = `new-${role}-${Date.now()}@example.com`;
      const outcome = await run(() => admin("maker", staffForm(email, role)));
      expect(outcome, role).toMatchObject({ kind: "redirect" });
      expect(outcome.location).toContain("notice=grant_requested");
      expect(await userByEmail(email), role).toBeUndefined();
      expect(await grantFor(email)).toMatchObject({
        kind: "create",
        role,
        status: "pending",
        requested_by: maker.id,
        user_id: null,
      });
      const [audit] = await database.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.action, "staff_grant.request"))
        .orderBy(desc(auditLog.id))
        .limit(1);
      expect(audit).toMatchObject({ actor_id: maker.id, subject_type: "staff_role_grant", ip: "203.0.113.61" });
      expect(audit!.after).toMatchObject({ kind: "create", email, role, status: "pending" });
    }
  });

  it("no password is typed for staff: the form needs none, and a member still needs one", async () => {
    const member = await run(() => admin("maker", { ...staffForm(`member-${Date.now()}@example.com`), role: "user" }));
    expect(member).toMatchObject({ kind: "refused", status: 400 });
    expect(fieldErrors(JSON.parse(member.body)).password).toBe("Please enter a temporary password");
  });

  it("a second request for the same address, or an address already in use, gets its message next to the email and changes nothing", async () => {
    const email = `twice-${Date.now()}@example.com`;
    expect((await run(() => admin("maker", staffForm(email)))).kind).toBe("redirect");
    const before = await state();
    const again = await run(() => admin("second_admin", staffForm(email, "reviewer")));
    expect(again).toMatchObject({ kind: "refused", status: 409 });
    expect(fieldErrors(JSON.parse(again.body)).email).toBe(
      "A staff role request for this address is already waiting for approval.",
    );
    const taken = await run(() => admin("maker", staffForm(maker.email)));
    expect(taken).toMatchObject({ kind: "refused", status: 409 });
    expect(fieldErrors(JSON.parse(taken.body)).email).toBe("An account with this email already exists.");
    expect(await state()).toEqual(before);
  });

  itRefuses(
    "Create New User with a staff role",
    OUTSIDERS,
    (persona) => admin(persona, staffForm(`refused-${persona}-${Date.now()}@example.com`)),
    { unchanged: state, hides: "@example.com" },
  );
  itRefuses(
    "Request staff role for a member",
    OUTSIDERS,
    (persona) => admin(persona, { intent: "request_staff_role", member_id: memberId, staff_role: "admin" }),
    { unchanged: state, hides: "@example.com" },
  );
});

describe("deciding a staff role request", () => {
  let grantId = 0;
  let email = "";
  beforeAll(async () => {
    email = `decide-${Date.now()}@example.com`;
    await run(() => admin("maker", staffForm(email, "admin")));
    grantId = (await grantFor(email))!.id;
  });

  it("the approver sees the address the role is for, and who asked", async () => {
    const page = (await queuesRoute.loader({
      request: people.get("second_admin", "/admin/queues"),
      params: {},
      context: context(),
    } as never)) as {
      staff_grants: { id: number; email: string; requested_by_email: string }[];
      counts: Record<string, number>;
    };
    expect(page.staff_grants.find((g) => g.id === grantId)).toMatchObject({ email, requested_by_email: maker.email });
    expect(page.counts.staff_grants).toBeGreaterThanOrEqual(1);
  });

  for (const intent of ["approve_staff_grant", "decline_staff_grant"] as const) {
    itRefuses(
      intent,
      OUTSIDERS,
      (persona) => queues(persona, { intent, grant_id: String(grantId), reason: "Not this one" }),
      { unchanged: state, hides: "@example.com" },
    );
    it(`${intent} by the admin who asked is refused (403) and changes nothing`, async () => {
      const before = await state();
      const outcome = await run(() =>
        queues("maker", { intent, grant_id: String(grantId), reason: "Approving my own" }),
      );
      expect(outcome).toMatchObject({ kind: "refused", status: 403 });
      expect(JSON.parse(outcome.body).message).toBe(STAFF_GRANT_MESSAGES.own_request);
      expect(await state()).toEqual(before);
    });
  }

  it("the database itself refuses an approver who is the requester", async () => {
    await expect(
      database.db
        .update(staffRoleGrants)
        .set({ status: "approved", decided_by: maker.id, decided_at: new Date() })
        .where(eq(staffRoleGrants.id, grantId)),
    ).rejects.toThrow();
    expect((await grantFor(email))!.status).toBe("pending");
  });

  it("another admin approves: the account exists now, staff role, no bank accounts; the set-up link goes to the address only; audited", async () => {
    const outcome = await run(() =>
      queues("second_admin", { intent: "approve_staff_grant", grant_id: String(grantId) }),
    );
    expect(outcome).toMatchObject({ kind: "ok", status: 200 });
    expect(JSON.parse(outcome.body).message).toBe(STAFF_GRANT_MESSAGES.approved_create);
    const user = await userByEmail(email);
    expect(user).toMatchObject({ role: "admin" });
    expect(await grantFor(email)).toMatchObject({ status: "approved", decided_by: second.id, user_id: user!.id });
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, user!.id));
    expect(profile).toMatchObject({ source: "staff", status: "approved", first_name: "Nia" });
    const accounts = await database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from ledger_accounts where member_id = ${user!.id}`,
    );
    expect(accounts.rows[0]!.n).toBe(0);
    expect(await setUpTokenFor(database.db, email)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // Staff reading the outbox never see a usable link.
    const shown = (await listOutbox(database.db, { limit: 20 })).find((m) => m.to_email === email);
    expect(shown?.text_body).not.toMatch(/reset-password\?token=/);
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "staff_grant.approve"), eq(auditLog.subject_id, String(grantId))));
    expect(audit).toMatchObject({ actor_id: second.id, member_id: user!.id });
    expect(audit!.after).toMatchObject({ email, role: "admin", requested_by_email: maker.email, status: "approved" });

    const before = await state();
    const twice = await run(() => queues("second_admin", { intent: "approve_staff_grant", grant_id: String(grantId) }));
    expect(twice).toMatchObject({ kind: "refused", status: 409 });
    expect(await state()).toEqual(before);
  });

  it("a decline needs a reason; with one, nothing is granted and the reason is kept and audited", async () => {
    const declineEmail = `decline-${Date.now()}@example.com`;
    await run(() => admin("maker", staffForm(declineEmail, "reviewer")));
    const id = (await grantFor(declineEmail))!.id;
    const before = await state();
    const missing = await run(() =>
      queues("second_admin", { intent: "decline_staff_grant", grant_id: String(id), reason: "  " }),
    );
    expect(missing).toMatchObject({ kind: "refused", status: 400 });
    expect(fieldErrors(JSON.parse(missing.body)).reason).toBe("Please give the reason for declining");
    expect(await state()).toEqual(before);
    const declined = await run(() =>
      queues("second_admin", {
        intent: "decline_staff_grant",
        grant_id: String(id),
        reason: "Not a staff member of ours",
      }),
    );
    expect(declined).toMatchObject({ kind: "ok" });
    expect(await grantFor(declineEmail)).toMatchObject({
      status: "declined",
      decline_reason: "Not a staff member of ours",
      decided_by: second.id,
    });
    expect(await userByEmail(declineEmail)).toBeUndefined();
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "staff_grant.decline"), eq(auditLog.subject_id, String(id))));
    expect(audit).toMatchObject({ actor_id: second.id });
  });

  it("an unknown request is a 404 that changes nothing", async () => {
    const before = await state();
    expect(
      await run(() => queues("second_admin", { intent: "approve_staff_grant", grant_id: "999999" })),
    ).toMatchObject({ kind: "refused", status: 404 });
    expect(await state()).toEqual(before);
  });
});

describe("raising a member to staff", () => {
  it("is a request: the member keeps their role until another admin approves, then is a reviewer and is told by email", async () => {
    const outcome = await run(() =>
      admin("maker", { intent: "request_staff_role", member_id: memberId, staff_role: "reviewer" }),
    );
    expect(outcome).toMatchObject({ kind: "ok" });
    expect(JSON.parse(outcome.body).message).toBe(STAFF_GRANT_MESSAGES.requested);
    const [before] = await database.db
      .select({ role: users.role, email: users.email })
      .from(users)
      .where(eq(users.id, memberId));
    expect(before!.role).toBe("user");
    const grant = await grantFor(before!.email);
    expect(grant).toMatchObject({ kind: "raise", role: "reviewer", user_id: memberId, status: "pending" });
    // The one who asked cannot approve it.
    expect(
      await run(() => queues("maker", { intent: "approve_staff_grant", grant_id: String(grant!.id) })),
    ).toMatchObject({ kind: "refused", status: 403 });
    const approved = await run(() =>
      queues("second_admin", { intent: "approve_staff_grant", grant_id: String(grant!.id) }),
    );
    expect(JSON.parse(approved.body).message).toBe(STAFF_GRANT_MESSAGES.approved_raise);
    const [after] = await database.db.select({ role: users.role }).from(users).where(eq(users.id, memberId));
    expect(after!.role).toBe("reviewer");
    const [mail] = await database.db
      .select({ subject: outbox.subject })
      .from(outbox)
      .where(eq(outbox.to_email, before!.email))
      .orderBy(desc(outbox.id))
      .limit(1);
    expect(mail!.subject).toBe("You now have back-office access");
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "staff_grant.approve"), eq(auditLog.subject_id, String(grant!.id))));
    expect(audit).toMatchObject({ actor_id: second.id, member_id: memberId, before: { role: "user" } });
  });

  it("an applicant is not raised (409), and nothing changes", async () => {
    const before = await state();
    const outcome = await run(() =>
      admin("maker", { intent: "request_staff_role", member_id: applicantId, staff_role: "admin" }),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 409 });
    expect(JSON.parse(outcome.body).message).toBe(STAFF_GRANT_MESSAGES.not_a_member);
    expect(await state()).toEqual(before);
  });
});

describe("the server command's request", () => {
  it("has no requester, so any admin may decide it; it is audited as the server command", async () => {
    const email = `command-${Date.now()}@example.com`;
    const result = await requestNewStaff(database.db, {
      requester: { kind: "server_command" },
      email,
      role: "reviewer",
      profile: { first_name: "Cmd", last_name: "Line" },
      origin: ORIGIN,
    });
    expect(result.ok).toBe(true);
    const grant = await grantFor(email);
    expect(grant).toMatchObject({ requested_by: null, requested_by_email: "server command: npm run staff:create" });
    const approved = await run(() => queues("maker", { intent: "approve_staff_grant", grant_id: String(grant!.id) }));
    expect(approved).toMatchObject({ kind: "ok" });
    expect(await userByEmail(email)).toMatchObject({ role: "reviewer" });
  });
});
