import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { logger } from "~/server/logger.server";
import { and, eq, sql } from "drizzle-orm";
import webpush from "web-push";
import type { Database } from "~/server/db/client.server";
import { auditLog, pushDeliveries, smsMessages, smsNumbers, NOTIFICATION_KINDS } from "~/server/db/schema";
import { notify, notifyAll } from "~/server/notifications/notifications.server";
import { addPushDevice } from "~/server/notifications/push.server";
import { getChannelChoices, saveChannelChoices } from "~/server/notifications/channels.server";
import {
  addSmsNumber,
  deliverSms,
  deliverSmsMessage,
  removeSmsNumber,
  resendSmsCode,
  smsNumberOf,
  SmsDeliveryFailed,
  verifySmsNumber,
  type SmsProvider,
} from "~/server/notifications/sms.server";
import { NOTIFICATION_GROUPS, NOTIFICATION_KIND_GROUPS, type ChannelChoices } from "~/domain/notification-channels";
import { SMS_CODE_TRIES } from "~/domain/sms";
import { openTestDatabase } from "../test-database";
import { person } from "../../factories";
import { browserSubscription, startPushService, type LocalPushService } from "./push-service";
import { codeIn, startSmsProvider, type LocalSmsProvider } from "./sms-provider";

/**
 * Notification channels (docs/decisions/0029-notification-channels.md): the member's choices per
 * group decide which notifications are pushed and which texted; a mobile number is confirmed by a
 * code texted through a local fake provider (Twilio's Messages API), and texts are sent at most
 * once, retried after a refusal.
 */
const keys = webpush.generateVAPIDKeys();
const KEYS = { public_key: keys.publicKey, private_key: keys.privateKey };
let database: Database;
let push: LocalPushService;
let sms: LocalSmsProvider;
let provider: SmsProvider;
const origin = { request_id: "test", ip: "127.0.0.1" };

beforeAll(async () => {
  push = await startPushService();
  sms = await startSmsProvider();
  provider = {
    name: "Local test provider",
    messages_url: `${sms.origin}/2010-04-01/Accounts/AC123/Messages.json`,
    from_number: "+15005550006",
    account_sid: "AC123",
    auth_token: "test-auth-token",
  };
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
  await push?.close();
  await sms?.close();
});
beforeEach(async () => {
  sms.received.length = 0;
  sms.setAnswer(() => 201);
  // Each test counts its own texts: what earlier tests left waiting is set aside.
  await database.db
    .update(smsMessages)
    .set({ status: "failed", error: "set aside by the test" })
    .where(eq(smsMessages.status, "queued"));
});

const all = (chosen: boolean) => Object.fromEntries(NOTIFICATION_GROUPS.map((g) => [g, chosen])) as ChannelChoices;
/** The code is sent by the test (awaited), not in the background. */
const later = () => ({ provider, send_now: false }) as const;
const runJob = (at = new Date()) => deliverSms(database.db, at, { provider });

/** A member with a verified number (the code caught at the fake provider). */
async function memberWithNumber(number = "+1 (202) 555-0143") {
  const member = await person(database.db, "user");
  const added = await addSmsNumber(database.db, member, { number }, origin, later());
  expect(added.status).toBe("code_sent");
  const { message_id } = added as { message_id: number };
  expect(await deliverSmsMessage(database.db, message_id, new Date(), { provider })).toBe("sent");
  const verified = await verifySmsNumber(database.db, member, codeIn(sms.received.at(-1)), origin);
  expect(verified).toEqual({ status: "verified", masked: "•••• 0143" });
  sms.received.length = 0;
  return member;
}

describe("notification groups", () => {
  it("the database's notification_group() agrees with the domain's table for every kind", async () => {
    for (const kind of NOTIFICATION_KINDS) {
      const result = await database.db.execute<{ g: string }>(sql`select notification_group(${kind}) as g`);
      expect([kind, result.rows[0]!.g]).toEqual([kind, NOTIFICATION_KIND_GROUPS[kind]]);
    }
  });
});

describe("push follows the member's choices", () => {
  it("pushes every group by default, none of a group turned off, and records the change", async () => {
    const member = await person(database.db, "user");
    const device = browserSubscription(`${push.origin}/push/${member.id}`);
    const added = await addPushDevice(
      database.db,
      member,
      { subscription_json: JSON.stringify(device.json), device: "Chrome on Linux" },
      origin,
      { extra_origins: [push.origin], keys: KEYS },
    );
    const subscription_id = (added as { id: number }).id;
    expect((await getChannelChoices(database.db, member.id)).push).toEqual(all(true));
    await notify(database.db, { member_id: member.id, kind: "card_activity", title: "Card locked", body: "." });
    await saveChannelChoices(database.db, member, "push", { ...all(true), cards: false }, origin);
    await notify(database.db, { member_id: member.id, kind: "card_activity", title: "Card unlocked", body: "." });
    await notifyAll(database.db, [
      { member_id: member.id, kind: "transfer_received", title: "You received $5.00", body: "." },
      { member_id: member.id, kind: "card_activity", title: "Purchase declined", body: "." },
    ]);
    const queued = await database.db.execute<{ title: string }>(sql`
      select n.title from push_deliveries d join notifications n on n.id = d.notification_id
       where d.subscription_id = ${subscription_id} order by d.id`);
    expect(queued.rows.map((r) => r.title)).toEqual(["Card locked", "You received $5.00"]);
    const [entry] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.member_id, member.id), eq(auditLog.action, "auth.notifications.push_choices_changed")));
    expect(entry!.after).toEqual({ cards: false });
    expect(await database.db.select().from(pushDeliveries).where(eq(pushDeliveries.subscription_id, -1))).toEqual([]);
  });
});

describe("a mobile number", () => {
  it("is stored encrypted, shown masked, and confirmed with the code texted through the provider", async () => {
    const member = await person(database.db, "user");
    const added = await addSmsNumber(database.db, member, { number: "+44 20 7946 0958" }, origin, later());
    expect(added).toMatchObject({ status: "code_sent", masked: "•••• 0958" });
    const [row] = await database.db.select().from(smsNumbers).where(eq(smsNumbers.member_id, member.id));
    expect(row!.number.startsWith("v1.")).toBe(true);
    expect(row!.number).not.toContain("7946");
    expect(row!.verified_at).toBeNull();
    const [message] = await database.db.select().from(smsMessages).where(eq(smsMessages.member_id, member.id));
    expect(message!.body).not.toMatch(/\d{6}/);
    await deliverSmsMessage(database.db, (added as { message_id: number }).message_id, new Date(), { provider });
    const [text] = sms.received;
    expect(text).toMatchObject({
      path: "/2010-04-01/Accounts/AC123/Messages.json",
      to: "+442079460958",
      from: "+15005550006",
      authorization: `Basic ${Buffer.from("AC123:test-auth-token").toString("base64")}`,
    });
    expect(await verifySmsNumber(database.db, member, codeIn(text), origin)).toMatchObject({ status: "verified" });
    expect(await smsNumberOf(database.db, member.id)).toMatchObject({ masked: "•••• 0958", code_expires_at: null });
    // Audited, masked.
    const entries = await database.db.select().from(auditLog).where(eq(auditLog.member_id, member.id));
    expect(entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(["auth.sms.number_added", "auth.sms.number_verified"]),
    );
    expect(JSON.stringify(entries)).not.toContain("7946");
  });

  it("refuses a number that is not E.164, and a wrong code; after 5 wrong codes even the right one", async () => {
    const member = await person(database.db, "user");
    expect(await addSmsNumber(database.db, member, { number: "202 555 0143" }, origin, later())).toEqual({
      status: "invalid",
    });
    expect(await addSmsNumber(database.db, member, { number: "+0 202 555 0143" }, origin, later())).toEqual({
      status: "invalid",
    });
    expect(await smsNumberOf(database.db, member.id)).toBeNull();
    const added = await addSmsNumber(database.db, member, { number: "+12025550111" }, origin, later());
    await deliverSmsMessage(database.db, (added as { message_id: number }).message_id, new Date(), { provider });
    const code = codeIn(sms.received.at(-1));
    const wrong = code === "000000" ? "111111" : "000000";
    expect(await verifySmsNumber(database.db, member, wrong, origin)).toEqual({ status: "wrong", tries_left: 4 });
    for (let i = 2; i < SMS_CODE_TRIES; i++) await verifySmsNumber(database.db, member, wrong, origin);
    expect(await verifySmsNumber(database.db, member, wrong, origin)).toEqual({ status: "tries_used" });
    expect(await verifySmsNumber(database.db, member, code, origin)).toEqual({ status: "tries_used" });
    // A new code works; the old one no longer does.
    const resent = await resendSmsCode(database.db, member, origin, later());
    await deliverSmsMessage(database.db, (resent as { message_id: number }).message_id, new Date(), { provider });
    const fresh = codeIn(sms.received.at(-1));
    if (fresh !== code)
      expect(await verifySmsNumber(database.db, member, code, origin)).toMatchObject({ status: "wrong" });
    expect(await verifySmsNumber(database.db, member, fresh, origin)).toMatchObject({ status: "verified" });
  });

  it("refuses an expired code, and more than 3 codes an hour", async () => {
    const member = await person(database.db, "user");
    const added = await addSmsNumber(database.db, member, { number: "+12025550122" }, origin, later());
    await deliverSmsMessage(database.db, (added as { message_id: number }).message_id, new Date(), { provider });
    await database.db
      .update(smsNumbers)
      .set({ code_expires_at: new Date(Date.now() - 1000) })
      .where(eq(smsNumbers.member_id, member.id));
    expect(await verifySmsNumber(database.db, member, codeIn(sms.received.at(-1)), origin)).toEqual({
      status: "expired",
    });
    expect((await resendSmsCode(database.db, member, origin, later())).status).toBe("code_sent");
    expect((await resendSmsCode(database.db, member, origin, later())).status).toBe("code_sent");
    expect((await resendSmsCode(database.db, member, origin, later())).status).toBe("too_many_codes");
    expect((await addSmsNumber(database.db, member, { number: "+12025550133" }, origin, later())).status).toBe(
      "too_many_codes",
    );
    // Only the newest code's text is still waiting: each new code withdrew the older unsent one.
    const queued = await database.db
      .select()
      .from(smsMessages)
      .where(and(eq(smsMessages.member_id, member.id), eq(smsMessages.status, "queued")));
    expect(queued).toHaveLength(1);
  });

  it("offers nothing without a provider", async () => {
    const member = await person(database.db, "user");
    expect(await addSmsNumber(database.db, member, { number: "+12025550144" }, origin, { provider: null })).toEqual({
      status: "not_configured",
    });
    expect(await deliverSms(database.db, new Date(), { provider: null })).toMatchObject({
      sms: "not configured",
      tried: 0,
    });
  });
});

describe("text messages for notifications", () => {
  it("texts only the groups the member chose, once, with the bell's words", async () => {
    const member = await memberWithNumber();
    await notify(database.db, { member_id: member.id, kind: "transfer_received", title: "Not chosen", body: "." });
    await saveChannelChoices(database.db, member, "sms", { ...all(false), security: true, payments: true }, origin);
    await notify(database.db, {
      member_id: member.id,
      kind: "transfer_received",
      title: "You received $25.00",
      body: "From Sam Okafor to Checking.",
    });
    await notify(database.db, { member_id: member.id, kind: "statement_ready", title: "Statement ready", body: "." });
    await notify(database.db, { member_id: member.id, kind: "sign_in_alert", title: "New sign-in", body: "Chrome." });
    expect(await runJob()).toMatchObject({ sms: "configured", tried: 2, sent: 2, failed: 0 });
    expect(sms.received.map((t) => t.body)).toEqual([
      expect.stringMatching(/: You received \$25\.00\. From Sam Okafor to Checking\.$/),
      expect.stringMatching(/: New sign-in\. Chrome\.$/),
    ]);
    expect(sms.received[0]!.to).toBe("+12025550143");
    // Never twice.
    expect((await runJob()).tried).toBe(0);
    const sent = await database.db.select().from(smsMessages).where(eq(smsMessages.member_id, member.id));
    expect(
      sent.filter((m) => m.purpose === "notification").every((m) => m.status === "sent" && m.provider_message_id),
    ).toBe(true);
  });

  it("queues nothing when the notification rolls back, or for a number not confirmed", async () => {
    const member = await memberWithNumber();
    await saveChannelChoices(database.db, member, "sms", all(true), origin);
    await expect(
      database.db.transaction(async (tx) => {
        await notify(tx, { member_id: member.id, kind: "card_activity", title: "Card locked", body: "x" });
        throw new Error("the event failed");
      }),
    ).rejects.toThrow("the event failed");
    const other = await person(database.db, "user");
    await addSmsNumber(database.db, other, { number: "+12025550155" }, origin, later());
    await saveChannelChoices(database.db, other, "sms", all(true), origin);
    await notify(database.db, { member_id: other.id, kind: "card_activity", title: "Card locked", body: "x" });
    const queued = await database.db
      .select()
      .from(smsMessages)
      .where(
        and(eq(smsMessages.purpose, "notification"), sql`${smsMessages.member_id} in (${member.id}, ${other.id})`),
      );
    expect(queued).toEqual([]);
  });

  it("tries a text the provider refused (500) again after a minute; the run fails when none was taken", async () => {
    const member = await memberWithNumber();
    await saveChannelChoices(database.db, member, "sms", all(true), origin);
    sms.setAnswer(() => 500);
    await notify(database.db, { member_id: member.id, kind: "deposit_decision", title: "Deposit accepted", body: "." });
    const now = Date.now();
    const logged: unknown[] = [];
    const spies = (["warn", "error", "info"] as const).map((level) =>
      vi.spyOn(logger, level).mockImplementation(((...args: unknown[]) => void logged.push(args)) as never),
    );
    try {
      await expect(runJob(new Date(now))).rejects.toBeInstanceOf(SmsDeliveryFailed);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    // The provider's refusal is logged with the message's id, never the number or the text.
    expect(JSON.stringify(logged)).toContain("HTTP 500");
    expect(JSON.stringify(logged)).not.toMatch(/2025550143|Deposit accepted/);
    const [queued] = await database.db
      .select()
      .from(smsMessages)
      .where(and(eq(smsMessages.member_id, member.id), eq(smsMessages.purpose, "notification")));
    expect(queued).toMatchObject({ status: "queued", attempts: 1, error: "HTTP 500 (provider code 20500)" });
    sms.setAnswer(() => 201);
    expect((await runJob(new Date(now + 10_000))).tried).toBe(0);
    expect(await runJob(new Date(now + 61_000))).toMatchObject({ tried: 1, sent: 1 });
    const [sent] = await database.db.select().from(smsMessages).where(eq(smsMessages.id, queued!.id));
    expect(sent).toMatchObject({ status: "sent", attempts: 2, error: null });
    expect(sms.received.filter((t) => t.body.includes("Deposit accepted"))).toHaveLength(2);
  });

  it("does not retry a refusal that will not change (400), and sends nothing to a removed number", async () => {
    const member = await memberWithNumber();
    await saveChannelChoices(database.db, member, "sms", all(true), origin);
    sms.setAnswer(() => 400);
    await notify(database.db, { member_id: member.id, kind: "loan_update", title: "Loan decided", body: "." });
    expect(await runJob()).toMatchObject({ tried: 1, failed: 1 });
    sms.setAnswer(() => 201);
    await notify(database.db, { member_id: member.id, kind: "loan_update", title: "Loan accepted", body: "." });
    expect((await removeSmsNumber(database.db, member, origin)).status).toBe("removed");
    expect(await runJob()).toMatchObject({ tried: 1, sent: 0, failed: 1 });
    expect(sms.received.filter((t) => t.body.includes("Loan accepted"))).toEqual([]);
    await notify(database.db, { member_id: member.id, kind: "loan_update", title: "Loan funded", body: "." });
    expect((await runJob()).tried).toBe(0);
  });

  it("sends a text once when two processes try it together, and never again one left 'sending'", async () => {
    const member = await memberWithNumber();
    await saveChannelChoices(database.db, member, "sms", all(true), origin);
    await notify(database.db, { member_id: member.id, kind: "bill_paid", title: "Bill paid", body: "." });
    const [queued] = await database.db
      .select()
      .from(smsMessages)
      .where(and(eq(smsMessages.member_id, member.id), eq(smsMessages.purpose, "notification")));
    const outcomes = await Promise.all([
      deliverSmsMessage(database.db, queued!.id, new Date(), { provider }),
      deliverSmsMessage(database.db, queued!.id, new Date(), { provider }),
    ]);
    expect(outcomes.sort()).toEqual(["sent", "skipped"]);
    expect(sms.received.filter((t) => t.body.includes("Bill paid"))).toHaveLength(1);
    // A process stopped between the provider's answer and the record: the text stays unsent, never twice.
    await notify(database.db, { member_id: member.id, kind: "bill_paid", title: "Bill paid again", body: "." });
    await database.db
      .update(smsMessages)
      .set({ status: "sending", attempts: 1 })
      .where(and(eq(smsMessages.member_id, member.id), eq(smsMessages.status, "queued")));
    expect((await runJob(new Date(Date.now() + 3600_000))).tried).toBe(0);
    expect(sms.received.filter((t) => t.body.includes("Bill paid again"))).toEqual([]);
  });
});
