import "../admin-support";
import { describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { auditLog, ledgerAccounts, memberAlerts, memberSettings } from "~/server/db/schema";
import * as alertsRoute from "~/routes/member/alerts";
import { addAlert } from "~/server/alerts/alerts.server";
import { ALERT_MESSAGES } from "~/domain/alerts";
import { itKeepsToTheMember, memberOwnMatrix } from "../authorization-matrix";

/**
 * Who may see and change alerts (docs/product.md#alerts): a signed-in member, their own only. A
 * visitor is sent to sign in; an applicant, a reviewer and staff are sent to their own home (the
 * page) or refused (a post); another member sees none of the member's alerts and can neither
 * change nor remove them ("not found"), nor set one on the member's account. A refused request
 * changes nothing.
 */
const PATH = "/settings/alerts";
const ORIGIN = { request_id: "alerts-matrix-0001", ip: "203.0.113.90" };

const matrix = memberOwnMatrix({
  path: PATH,
  route: alertsRoute,
  request: { request_id: "alerts-matrix-0002", ip: "203.0.113.91" },
  prepare: async (db, member) => {
    const added = await addAlert(
      db,
      member.member,
      { account_id: member.checking.id, kind: "balance_below", amount_cents: 123_45 },
      ORIGIN,
    );
    if (!added.ok) throw new Error(added.message);
    return { alert_id: added.alert.id };
  },
});
const { page, post } = matrix;
const alertId = () => matrix.prepared.alert_id;

/** Everything a post here could change. */
async function state() {
  const db = matrix.database.db;
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

describe("the Alerts page: the member's own only", () => {
  itKeepsToTheMember(matrix, PATH, {
    sees: (persona, result) => {
      const data = result.value as { alerts: { id: number }[]; accounts: { id: number }[] };
      expect(data.alerts.some((a) => a.id === alertId())).toBe(persona === "member");
      expect(data.accounts.some((a) => a.id === matrix.member.checking.id)).toBe(persona === "member");
      if (persona === "other_member")
        expect(result.body).not.toContain(matrix.member.checking.account_number.slice(-4) + '"');
    },
    posts: [
      {
        intent: "add",
        form: () => ({ account_id: String(matrix.member.checking.id), kind: "deposit_posted", amount: "" }),
      },
      { intent: "edit", form: () => ({ alert_id: String(alertId()), amount: "5.00" }) },
      { intent: "remove", form: () => ({ alert_id: String(alertId()) }) },
      { intent: "new-device", form: () => ({ new_device: "off" }) },
    ],
    state,
    hides: "123.45",
    // Another member may turn their own new-device alert off: that is theirs, not the member's.
    skip: (intent, persona) => intent === "new-device" && persona === "other_member",
  });

  it("an alert for all accounts: refused to everyone but members; another member's watches only their own accounts", async () => {
    const form = { intent: "add", account_id: "all", kind: "payment_returned", amount: "" };
    for (const persona of ["anonymous", "applicant", "reviewer", "staff"] as const) {
      const before = await state();
      expect([401, 403]).toContain((await post(persona, form)).status);
      expect(await state()).toEqual(before);
    }
    expect((await post("other_member", form)).value).toMatchObject({ ok: true });
    const rows = await matrix.database.db
      .select({ member_id: memberAlerts.member_id, account_id: memberAlerts.account_id })
      .from(memberAlerts)
      .where(eq(memberAlerts.kind, "payment_returned"));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.member_id === matrix.member.member.id)).toBe(false);
    const mine = [matrix.member.checking.id, matrix.member.savings.id];
    expect(rows.some((r) => r.account_id !== null && mine.includes(r.account_id))).toBe(false);
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
      account_id: String(matrix.member.checking.id),
      kind: "balance_below",
      amount: "12.345",
    });
    expect(result.status).toBe(400);
    expect(result.body).toContain(ALERT_MESSAGES.amount_invalid);
    const edit = await post("member", { intent: "edit", alert_id: String(alertId()), amount: "" });
    expect(edit.status).toBe(400);
    expect(edit.body).toContain(ALERT_MESSAGES.amount_missing);
    expect(await state()).toEqual(before);
  });

  it("the member adds, changes and removes their own alerts", async () => {
    const added = await post("member", {
      intent: "add",
      account_id: String(matrix.member.savings.id),
      kind: "transaction_above",
      amount: "1,000",
    });
    expect(added).toMatchObject({
      status: 200,
      value: { ok: true, message: "Alert added: Transaction above $1,000.00." },
    });
    const edited = await post("member", { intent: "edit", alert_id: String(alertId()), amount: "50" });
    expect(edited).toMatchObject({ status: 200, value: { ok: true, message: "Alert changed: Balance below $50.00." } });
    const removed = await post("member", { intent: "remove", alert_id: String(alertId()) });
    expect(removed).toMatchObject({ status: 200, value: { ok: true } });
    const off = await post("member", { intent: "new-device", new_device: "off" });
    expect(off).toMatchObject({ status: 200, value: { ok: true } });
    const data = (await page("member")).value as { alerts: { kind: string }[]; new_device_sign_in: boolean };
    expect(data.alerts.map((a) => a.kind)).toEqual(["transaction_above"]);
    expect(data.new_device_sign_in).toBe(false);
  });
});
