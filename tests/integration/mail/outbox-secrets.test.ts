import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import { auditLog, outbox } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import * as outboxRoute from "~/routes/admin/outbox";
import { completePasswordReset, requestPasswordReset } from "~/server/auth/password.server";
import { startSignIn } from "~/server/auth/sign-in.server";
import { demoInbox } from "~/server/auth/demo-info.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { openTestDatabase } from "../test-database";
import { person, signedIn, uniqueIp } from "../admin-support";
import { Browser, outcome } from "../identity-support";

/**
 * Without SMTP the outbox is the only mailbox, and staff read it at /admin/outbox. A usable
 * sign-in code or reset link there would let any staff member sign in as the member, so the staff
 * view shows what was sent, to whom and when, never the secret; every view is audited, and so is
 * every password reset request and completion. The demo inbox (demo addresses only) keeps showing
 * codes to demo visitors.
 */
let database: Database;
let staff: { id: string; email: string };
let staffCookie = "";
const PASSWORD = "Harbor lights at dusk 7";

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  staff = await person(database.db, "admin");
  staffCookie = await signedIn(database.db, staff.id);
});
afterAll(async () => {
  await database?.close();
});

function context() {
  const provider = new RouterContextProvider();
  provider.set(requestInfoContext, { request_id: "outbox-request-0001", ip: "203.0.113.80", nonce: "" });
  return provider;
}

async function staffOutboxView(
  path = "/admin/outbox",
): Promise<{ items: { id: number; to_email: string; kind: string; subject: string; text_body: string }[] }> {
  const request = new Request(`http://localhost:3000${path}`, { headers: { cookie: staffCookie } });
  return (await outboxRoute.loader({ request, params: {}, context: context() } as never)) as never;
}

/** The deliverable text of the newest message of a kind to an address, read from the table itself. */
async function deliverable(to: string, kind: string): Promise<string> {
  const [row] = await database.db
    .select({ text: outbox.text_body })
    .from(outbox)
    .where(and(eq(outbox.to_email, to), eq(outbox.kind, kind)))
    .orderBy(desc(outbox.id))
    .limit(1);
  if (!row) throw new Error(`no ${kind} message to ${to}`);
  return row.text;
}

async function auditRows(action: string) {
  return database.db.select().from(auditLog).where(eq(auditLog.action, action)).orderBy(desc(auditLog.id));
}

describe("the staff outbox view", () => {
  it("shows who was sent what and when, but no reset token and no sign-in code", async () => {
    const member = await person(database.db, "user");
    await requestPasswordReset(database.db, new Browser(uniqueIp()).meta(), member.email);
    const signIn = await startSignIn(database.db, new Browser(uniqueIp()).meta(), {
      email: member.email,
      password: PASSWORD,
    });
    expect(outcome(signIn)).toBe("challenge");

    const token =
      /reset-password\?token=([A-Za-z0-9_%-]+)/.exec(await deliverable(member.email, "password_reset"))?.[1] ?? "";
    const code = /code is: (\d{6})/.exec(await deliverable(member.email, "sign_in_code"))?.[1] ?? "";
    expect(token.length).toBeGreaterThan(8);
    expect(code).toMatch(/^\d{6}$/);

    const view = await staffOutboxView();
    const mine = view.items.filter((m) => m.to_email === member.email);
    expect(mine.map((m) => m.kind).sort()).toEqual(["password_reset", "sign_in_code"]);
    expect(mine.find((m) => m.kind === "sign_in_code")?.subject).toBe("Your sign-in code");
    expect(mine.find((m) => m.kind === "sign_in_code")?.text_body).toContain("••••••");
    const shown = JSON.stringify(view);
    expect(shown).not.toContain(token);
    expect(shown).not.toContain(decodeURIComponent(token));
    expect(shown).not.toContain(code);
    expect(shown).not.toMatch(/reset-password\?token=/);

    // The demo inbox still shows the code to the demo visitor (a fictional example.com address).
    const inbox = await demoInbox(database.db, member.email);
    expect(inbox?.messages.find((m) => m.kind === "sign_in_code")?.code).toBe(code);
  });

  it("withholds the text of a secret-carrying message stored without a redacted form", async () => {
    const to = "no-redacted-form@example.com";
    await sendEmail(database.db, {
      to,
      kind: "sign_in_code",
      subject: "Your sign-in code",
      text: "Your code is: 135790",
    });
    const view = await staffOutboxView();
    const message = view.items.find((m) => m.to_email === to);
    expect(message?.subject).toBe("Your sign-in code");
    expect(message?.text_body).not.toContain("135790");
  });

  it("records every view in the audit log, with the staff member and the messages shown", async () => {
    const before = (await auditRows("outbox.view")).length;
    const view = await staffOutboxView();
    const rows = await auditRows("outbox.view");
    expect(rows).toHaveLength(before + 1);
    expect(rows[0]).toMatchObject({
      actor_id: staff.id,
      actor_email: staff.email,
      subject_type: "outbox",
      request_id: "outbox-request-0001",
      ip: "203.0.113.80",
    });
    expect(rows[0]!.after).toMatchObject({
      before_id: null,
      messages: view.items.length,
      newest_id: view.items[0]!.id,
    });
  });
});

describe("password reset in the audit log", () => {
  it("records the request and the completion for the member, and a refused reuse of the link", async () => {
    const member = await person(database.db, "user");
    const meta = new Browser(uniqueIp()).meta();
    await requestPasswordReset(database.db, meta, member.email, { request_id: "reset-request-0001" });
    const [requested] = await auditRows("auth.password_reset.requested");
    expect(requested).toMatchObject({
      member_id: member.id,
      actor_email: member.email,
      request_id: "reset-request-0001",
      ip: meta.ip,
    });
    expect(requested!.after).toEqual({ outcome: "sent" });

    const token = decodeURIComponent(
      /reset-password\?token=([A-Za-z0-9_%-]+)/.exec(await deliverable(member.email, "password_reset"))?.[1] ?? "",
    );
    expect(
      await completePasswordReset(
        database.db,
        meta,
        { token, password: "A new harbor password 88" },
        { request_id: "reset-complete-0001" },
      ),
    ).toEqual({ ok: true });
    const [completed] = await auditRows("auth.password_reset.completed");
    expect(completed).toMatchObject({ member_id: member.id, request_id: "reset-complete-0001", ip: meta.ip });
    // The audit row holds no secret.
    expect(JSON.stringify(completed)).not.toContain(token);

    expect(
      await completePasswordReset(database.db, meta, { token, password: "Yet another password 99" }),
    ).toMatchObject({
      ok: false,
      kind: "bad_input",
      code: "invalid_link",
    });
    const [refused] = await auditRows("auth.password_reset.refused");
    expect(refused!.after).toEqual({ reason: "invalid_link" });
  });

  it("records a request for an address without an account, saying so only to staff", async () => {
    const meta = new Browser(uniqueIp()).meta();
    expect(await requestPasswordReset(database.db, meta, "Nobody-Here@example.com")).toEqual({ ok: true });
    const [requested] = await auditRows("auth.password_reset.requested");
    expect(requested).toMatchObject({ member_id: null, subject_type: "email", subject_id: "nobody-here@example.com" });
    expect(requested!.after).toEqual({ outcome: "no_account" });
  });
});
