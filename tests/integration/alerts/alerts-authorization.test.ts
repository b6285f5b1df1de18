import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerAccounts, memberAlerts, memberSettings } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as alertsRoute from "~/routes/member/alerts";
import { addAlert } from "~/server/alerts/alerts.server";
import { ALERT_MESSAGES } from "~/domain/alerts";
import { openTestDatabase } from "../test-database";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import type { newMember } from "../member-support";

/**
 * Who may see and change alerts (docs/product.md#alerts): a signed-in member, their own only. A
 * visitor is sent to sign in; an applicant, a reviewer and staff are sent to their own home (the
 * page) or refused (a post); another member sees none of the member's alerts and can neither
 * change nor remove them ("not found"), nor set one on the member's account. A refused request
 * changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let member: Awaited<ReturnType<typeof newMember>>;
let alert_id = 0;
let other_id = "";
const ORIGIN = { request_id: "alerts-matrix-0001", ip: "203.0.113.90" };

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  member = cast.member;
  other_id = cast.other_member.member.id;
  const added = await addAlert(
    db,
    member.member,
    { account_id: member.checking.id, kind: "balance_below", amount_cents: 123_45 },
    ORIGIN,
  );
  if (!added.ok) throw new Error(added.message);
  alert_id = added.alert.id;
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const PATH = "/settings/alerts";
const context = routeContext({ request_id: "alerts-matrix-0002", ip: "203.0.113.91" });
const page = (persona: Persona) =>
  run(() => alertsRoute.loader({ request: people.get(persona, PATH), params: {}, context: context() } as never));
const post = (persona: Persona, form: Record<string, string>) =>
  run(() => alertsRoute.action({ request: people.post(persona, PATH, form), params: {}, context: context() } as never));

/** Everything a post here could change. */
async function state() {
  const db = database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const alerts = await db.select().from(memberAlerts).orderBy(memberAlerts.id);
  const flags = await db
    .select({ id: ledgerAccounts.id, on: ledgerAccounts.alerts_on })
    .from(ledgerAccounts)
    .where(eq(ledgerAccounts.alerts_on, true))
    .orderBy(ledgerAccounts.id);
  const settings = await db.select().from(memberSettings).orderBy(memberSettings.user_id);
  return { audit: Number(audit!.n), alerts, flags, settings };
}

const POSTS: Array<{ intent: string; form: () => Record<string, string> }> = [
  { intent: "add", form: () => ({ account_id: String(member.checking.id), kind: "deposit_posted", amount: "" }) },
  { intent: "edit", form: () => ({ alert_id: String(alert_id), amount: "5.00" }) },
  { intent: "remove", form: () => ({ alert_id: String(alert_id) }) },
  { intent: "new-device", form: () => ({ new_device: "off" }) },
];

describe("the Alerts page: the member's own only", () => {
  for (const persona of PERSONAS) {
    it(`${PATH} for ${persona}`, async () => {
      const result = await page(persona);
      if (persona === "member" || persona === "other_member") {
        expect(result.status).toBe(200);
        const data = result.value as { alerts: { id: number }[]; accounts: { id: number }[] };
        expect(data.alerts.some((a) => a.id === alert_id)).toBe(persona === "member");
        expect(data.accounts.some((a) => a.id === member.checking.id)).toBe(persona === "member");
        if (persona === "other_member")
          expect(result.body).not.toContain(member.checking.account_number.slice(-4) + '"');
        return;
      }
      expect(result.status).toBe(302);
      expectSentAway(result, persona, PATH);
    });
  }

  for (const { intent, form } of POSTS) {
    for (const persona of PERSONAS.filter((p) => p !== "member")) {
      // Another member may turn their own new-device alert off: that is theirs, not the member's.
      if (intent === "new-device" && persona === "other_member") continue;
      it(`${intent} by ${persona} is refused and changes nothing`, async () => {
        const before = await state();
        const result = await post(persona, { intent, ...form() });
        if (persona === "other_member") {
          expect(result.status).toBe(404);
          expect(result.body).not.toContain("123.45");
        } else expect([401, 403]).toContain(result.status);
        expect(await state()).toEqual(before);
      });
    }
  }

  it("an alert for all accounts: refused to everyone but members; another member's watches only their own accounts", async () => {
    const form = { intent: "add", account_id: "all", kind: "payment_returned", amount: "" };
    for (const persona of ["anonymous", "applicant", "reviewer", "staff"] as const) {
      const before = await state();
      expect([401, 403]).toContain((await post(persona, form)).status);
      expect(await state()).toEqual(before);
    }
    const added = await post("other_member", form);
    expect(added.value).toMatchObject({ ok: true });
    const rows = await database.db
      .select({ member_id: memberAlerts.member_id, account_id: memberAlerts.account_id })
      .from(memberAlerts)
      .where(eq(memberAlerts.kind, "payment_returned"));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.member_id === other_id)).toBe(true);
    expect(rows.map((r) => r.account_id)).not.toContain(member.checking.id);
    expect(rows.map((r) => r.account_id)).not.toContain(member.savings.id);
  });

  it("an unknown intent is a 400 and changes nothing", async () => {
    const before = await state();
    const result = await post("member", { intent: "nonsense" });
    expect(result.status).toBe(400);
    expect(await state()).toEqual(before);
  });

  it("bad input gets the field's message and changes nothing", async () => {
    const before = await state();
    const result = await post("member", {
      intent: "add",
      account_id: String(member.checking.id),
      kind: "balance_below",
      amount: "12.345",
    });
    expect(result.status).toBe(400);
    expect(result.body).toContain(ALERT_MESSAGES.amount_invalid);
    const edit = await post("member", { intent: "edit", alert_id: String(alert_id), amount: "" });
    expect(edit.status).toBe(400);
    expect(edit.body).toContain(ALERT_MESSAGES.amount_missing);
    expect(await state()).toEqual(before);
  });

  it("the member adds, changes and removes their own alerts", async () => {
    const added = await post("member", {
      intent: "add",
      account_id: String(member.savings.id),
      kind: "transaction_above",
      amount: "1,000",
    });
    expect(added).toMatchObject({
      status: 200,
      value: { ok: true, message: "Alert added: Transaction above $1,000.00." },
    });
    const edited = await post("member", { intent: "edit", alert_id: String(alert_id), amount: "50" });
    expect(edited).toMatchObject({ status: 200, value: { ok: true, message: "Alert changed: Balance below $50.00." } });
    const removed = await post("member", { intent: "remove", alert_id: String(alert_id) });
    expect(removed).toMatchObject({ status: 200, value: { ok: true } });
    const off = await post("member", { intent: "new-device", new_device: "off" });
    expect(off).toMatchObject({ status: 200, value: { ok: true } });
    const data = (await page("member")).value as { alerts: { kind: string }[]; new_device_sign_in: boolean };
    expect(data.alerts.map((a) => a.kind)).toEqual(["transaction_above"]);
    expect(data.new_device_sign_in).toBe(false);
  });
});
