import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { passkeys, sessions } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as accountRoute from "~/routes/settings/account";
import * as loginRoute from "~/routes/auth/login";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { person, signedIn } from "../admin-support";

/**
 * Who may see and change passkeys and sessions (docs/product.md#passkeys,
 * docs/product.md#sessions-and-devices): Account Settings is every signed-in person's own; nobody,
 * staff included, can list, remove or confirm with another person's passkey, or end another
 * person's session, through it. A refused request changes nothing. The passkey intents of /login
 * need no session (signing in is how one gets one).
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff" | "accountant";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff", "accountant"];
const OTHERS: Persona[] = ["other_member", "reviewer", "staff", "accountant"];

let database: Database;
let people: SignedIn<Persona>;
let member_id = "";
let passkey_id = 0;
let second_session_id = "";

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  member_id = cast.member.member.id;
  const [row] = await db
    .insert(passkeys)
    .values({
      user_id: member_id,
      name: "Member's phone",
      credential_id: "credential-of-the-member",
      public_key: "cHVibGljLWtleQ",
      device_type: "multiDevice",
    })
    .returning({ id: passkeys.id });
  passkey_id = row!.id;
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    accountant: (await person(db, "accountant")).id,
    applicant: cast.applicant.id,
    member: member_id,
    other_member: cast.other_member.member.id,
  });
  // The member is also signed in on another device: the session made last.
  const before = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, member_id));
  await signedIn(db, member_id);
  const all = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, member_id));
  expect(all).toHaveLength(2);
  second_session_id = all.find((s) => !before.some((b) => b.id === s.id))!.id;
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "passkey-matrix-0001", ip: "203.0.113.80" });

function post(persona: Persona, form: Record<string, string>) {
  return accountRoute.action({
    request: people.post(persona, "/settings/account", form),
    params: {},
    context: context(),
  } as never);
}

async function memberState() {
  const db = database.db;
  const keys = await db
    .select({ id: passkeys.id })
    .from(passkeys)
    .where(and(eq(passkeys.user_id, member_id), isNull(passkeys.removed_at)));
  const live = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, member_id));
  return { keys: keys.map((k) => k.id), sessions: live.map((s) => s.id).sort() };
}

describe("Account Settings with passkeys and sessions", () => {
  for (const persona of PERSONAS) {
    it(`the page for ${persona}`, async () => {
      const outcome = await run(() =>
        accountRoute.loader({
          request: people.get(persona, "/settings/account"),
          params: {},
          context: context(),
        } as never),
      );
      if (persona === "anonymous" || persona === "applicant")
        return expectSentAway(outcome, persona, "/settings/account");
      expect(outcome.kind, persona).toBe("ok");
      const account = (outcome.value as { account: { passkeys: { name: string }[]; sessions: unknown[] } }).account;
      // Each person sees their own passkeys and sessions only.
      if (persona === "member") {
        expect(account.passkeys.map((p) => p.name)).toEqual(["Member's phone"]);
        expect(account.sessions).toHaveLength(2);
      } else {
        expect(outcome.body).not.toContain("Member's phone");
        expect(account.passkeys).toEqual([]);
        expect(account.sessions).toHaveLength(1);
      }
    });
  }

  itRefuses(
    "removing a passkey",
    ["anonymous", "applicant"],
    (persona) => post(persona, { intent: "passkey-remove", passkey_id: String(passkey_id), current_password: "x" }),
    { unchanged: memberState },
  );
  itRefuses(
    "ending a session",
    ["anonymous", "applicant"],
    (persona) => post(persona, { intent: "session-end", session_id: second_session_id }),
    { unchanged: memberState },
  );
  itRefuses(
    "ending all other sessions",
    ["anonymous", "applicant"],
    (persona) => post(persona, { intent: "sessions-end-others" }),
    { unchanged: memberState },
  );
  itRefuses(
    "starting a passkey",
    ["anonymous", "applicant"],
    (persona) => post(persona, { intent: "passkey-options", name: "Mine", current_password: "x" }),
    { unchanged: memberState },
  );

  for (const persona of OTHERS) {
    it(`${persona} cannot remove, or confirm the removal of, the member's passkey (404, nothing changed)`, async () => {
      const before = await memberState();
      for (const form of <Record<string, string>[]>[
        { intent: "passkey-remove", passkey_id: String(passkey_id), current_password: "anything at all 1" },
        { intent: "passkey-remove-options", passkey_id: String(passkey_id) },
        { intent: "passkey-remove-confirm", passkey_id: String(passkey_id), response: "{}" },
      ]) {
        const outcome = await run(() => post(persona, form));
        expect(outcome, `${persona} ${form.intent}`).toMatchObject({ kind: "refused", status: 404 });
        expect(outcome.body).not.toContain("Member's phone");
      }
      expect(await memberState()).toEqual(before);
    });

    it(`${persona} cannot end the member's session, and ending "all others" ends only their own`, async () => {
      const before = await memberState();
      const outcome = await run(() => post(persona, { intent: "session-end", session_id: second_session_id }));
      expect(outcome).toMatchObject({ kind: "refused", status: 404 });
      const all = await run(() => post(persona, { intent: "sessions-end-others" }));
      expect(all.kind).toBe("ok");
      expect(await memberState()).toEqual(before);
    });
  }

  it("the member ends their other session; a bad passkey id is 404", async () => {
    const bad = await run(() => post("member", { intent: "passkey-remove", passkey_id: "abc", current_password: "x" }));
    expect(bad).toMatchObject({ kind: "refused", status: 404 });
    const outcome = await run(() => post("member", { intent: "session-end", session_id: second_session_id }));
    expect(outcome.kind).toBe("ok");
    expect((await memberState()).sessions).toHaveLength(1);
  });
});

describe("/login's passkey intents", () => {
  it("answer a visitor with a challenge, and refuse a made-up answer with 401", async () => {
    const options = await run(() =>
      loginRoute.action({
        request: people.post("anonymous", "/login", { intent: "passkey-options" }),
        params: {},
        context: context(),
      } as never),
    );
    expect(options.kind).toBe("ok");
    expect((options.value as { options: { challenge: string; rpId: string } }).options.rpId).toBe("localhost");
    const refused = await run(() =>
      loginRoute.action({
        request: people.post("anonymous", "/login", { intent: "passkey", response: "{}" }),
        params: {},
        context: context(),
      } as never),
    );
    expect(refused).toMatchObject({ kind: "refused", status: 401 });
  });
});

describe("staff required to use passkeys", () => {
  it("staff without a passkey are sent to Account Settings from the back office, and refused its actions", async () => {
    const { institution } = await import("~/config/institution.server");
    const adminIndex = await import("~/routes/admin/index");
    institution().staff_passkeys_required = true;
    try {
      for (const persona of ["staff", "reviewer"] as const) {
        const page = await run(() =>
          adminIndex.loader({ request: people.get(persona, "/admin"), params: {}, context: context() } as never),
        );
        expect(page, persona).toMatchObject({
          kind: "redirect",
          location: "/settings/account?passkey=required#passkeys",
        });
        const act = await run(() =>
          adminIndex.action({
            request: people.post(persona, "/admin?index", { intent: "anything" }),
            params: {},
            context: context(),
          } as never),
        );
        expect(act, persona).toMatchObject({ kind: "refused", status: 403 });
        // Account Settings itself opens, saying why.
        const settings = await run(() =>
          accountRoute.loader({
            request: people.get(persona, "/settings/account"),
            params: {},
            context: context(),
          } as never),
        );
        expect((settings.value as { account: { passkey_required: boolean } }).account.passkey_required).toBe(true);
      }
      // Members are not affected.
      const member = await run(() =>
        accountRoute.loader({
          request: people.get("member", "/settings/account"),
          params: {},
          context: context(),
        } as never),
      );
      expect((member.value as { account: { passkey_required: boolean } }).account.passkey_required).toBe(false);
    } finally {
      institution().staff_passkeys_required = false;
    }
  });
});
