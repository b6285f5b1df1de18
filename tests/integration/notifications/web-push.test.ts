import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import webpush from "web-push";
import type { Database } from "~/server/db/client.server";
import { auditLog, pushDeliveries, pushSubscriptions } from "~/server/db/schema";
import { notify, notifyAll } from "~/server/notifications/notifications.server";
import {
  addPushDevice,
  deliverPushes,
  listPushDevices,
  PushDeliveryFailed,
  readSubscription,
  removePushDevice,
} from "~/server/notifications/push.server";
import { openTestDatabase } from "../test-database";
import { fundedMember, person } from "../../factories";
import { addAlert } from "~/server/alerts/alerts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { browserSubscription, decryptPush, startPushService, verifyVapid, type LocalPushService } from "./push-service";

/**
 * Web Push end to end on the server side (docs/decisions/0023-web-push.md): a member's device is
 * added, a notification queues a push in its own transaction, the push-delivery job posts it to a
 * local push service, and the test reads that request as a browser would: decrypted with the
 * subscription's private key (node:crypto, RFC 8291) and its VAPID JWT verified (RFC 8292).
 */
const keys = webpush.generateVAPIDKeys();
const KEYS = { public_key: keys.publicKey, private_key: keys.privateKey };
let database: Database;
let push: LocalPushService;
let extra: string[];
const origin = { request_id: "test", ip: "127.0.0.1" };

beforeAll(async () => {
  process.env.SESSION_SECRET ??= "integration-test-session-secret-0123456789";
  process.env.LOG_LEVEL = "silent";
  push = await startPushService();
  extra = [push.origin];
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
  await push?.close();
});
beforeEach(() => {
  push.received.length = 0;
  push.setAnswer(() => 201);
});

let n = 0;
async function memberWithDevice() {
  const member = await person(database.db, "user");
  const device = browserSubscription(`${push.origin}/push/${member.id}-${++n}`);
  const added = await addPushDevice(
    database.db,
    member,
    { subscription_json: JSON.stringify(device.json), device: "Chrome 131 on Linux" },
    origin,
    { extra_origins: extra, keys: KEYS },
  );
  expect(added).toMatchObject({ ok: true, already_added: false });
  return { member, device, subscription_id: (added as { id: number }).id };
}

const run = (at = new Date()) => deliverPushes(database.db, at, { keys: KEYS, extra_origins: extra });

describe("Web Push delivery", () => {
  it("sends a notification as an encrypted push with a valid VAPID signature, once", async () => {
    const { member, device } = await memberWithDevice();
    await notify(database.db, {
      member_id: member.id,
      kind: "transfer_received",
      title: "You received $25.00",
      body: "From Sam Okafor to Checking.",
    });
    const counts = await run();
    expect(counts).toMatchObject({ web_push: "configured", tried: 1, delivered: 1, failed: 0 });
    expect(push.received).toHaveLength(1);
    const [request] = push.received;
    expect(request!.headers["content-encoding"]).toBe("aes128gcm");
    expect(Number(request!.headers.ttl)).toBe(86400);
    expect(request!.headers.topic).toMatch(/^n\d+$/);
    const claims = verifyVapid(request!.headers.authorization, keys.publicKey);
    expect(claims.aud).toBe(push.origin);
    expect(claims.sub).toMatch(/^mailto:/);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(claims.exp * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
    const payload = JSON.parse(decryptPush(request!.body, device)) as Record<string, string>;
    expect(payload).toEqual({
      title: "You received $25.00",
      body: "From Sam Okafor to Checking.",
      url: "/dashboard/notifications",
      tag: expect.stringMatching(/^notification-\d+$/),
    });
    // Sent once: the next run has nothing to send.
    expect((await run()).tried).toBe(0);
    expect(push.received).toHaveLength(1);
  });

  it("queues a push for every device of the member, and for bulk notifications too", async () => {
    const { member, device } = await memberWithDevice();
    const second = browserSubscription(`${push.origin}/push/second-${member.id}`);
    await addPushDevice(
      database.db,
      member,
      { subscription_json: JSON.stringify(second.json), device: "Firefox 133 on Windows 11" },
      origin,
      { extra_origins: extra, keys: KEYS },
    );
    await notifyAll(database.db, [
      { member_id: member.id, kind: "payment_sent", title: "Payment sent", body: "Your payment went out." },
    ]);
    await run();
    expect(push.received.map((r) => r.path).sort()).toEqual(
      [new URL(device.json.endpoint).pathname, `/push/second-${member.id}`].sort(),
    );
    const second_request = push.received.find((r) => r.path.includes("second"))!;
    expect(JSON.parse(decryptPush(second_request.body, second)).title).toBe("Payment sent");
  });

  it("pushes an alert a posting meets (issue 32: alerts by push when turned on), once; a repeat of the posting's key pushes nothing", async () => {
    const m = await fundedMember(database.db, { checking_cents: 500_00, savings_cents: 0 });
    const device = browserSubscription(`${push.origin}/push/alert-${m.member.id}`);
    await addPushDevice(
      database.db,
      m.member,
      { subscription_json: JSON.stringify(device.json), device: "Safari 18 on iPhone" },
      origin,
      { extra_origins: extra, keys: KEYS },
    );
    const alert = await addAlert(
      database.db,
      m.member,
      { account_id: m.checking.id, kind: "transaction_above", amount_cents: 1_00 },
      origin,
    );
    expect(alert.ok).toBe(true);
    const posting = {
      idempotency_key: `alert-push-${m.member.id}`,
      initiator: "member:test",
      created_by: "member:test",
      kind: "transfer" as const,
      entries: transferEntries(m.checking.id, m.savings.id, 5_00),
    };
    expect(await postTransfer(database.db, posting)).toMatchObject({ ok: true });
    await run();
    expect(push.received).toHaveLength(1);
    expect(JSON.parse(decryptPush(push.received[0]!.body, device)).title).toMatch(/^Withdrawal of \$5\.00 on Checking/);
    expect(await postTransfer(database.db, posting)).toMatchObject({ ok: true, replayed: true });
    await run();
    expect(push.received).toHaveLength(1);
  });

  it("queues nothing when the notification's transaction rolls back", async () => {
    const { member, subscription_id } = await memberWithDevice();
    await expect(
      database.db.transaction(async (tx) => {
        await notify(tx, { member_id: member.id, kind: "card_activity", title: "Card locked", body: "x" });
        throw new Error("the event failed");
      }),
    ).rejects.toThrow("the event failed");
    const queued = await database.db
      .select()
      .from(pushDeliveries)
      .where(eq(pushDeliveries.subscription_id, subscription_id));
    expect(queued).toHaveLength(0);
  });

  it("removes a device its push service says is gone (410), and sends it nothing more", async () => {
    const { member, subscription_id } = await memberWithDevice();
    push.setAnswer(() => 410);
    await notify(database.db, { member_id: member.id, kind: "card_activity", title: "Card locked", body: "Locked." });
    await notify(database.db, { member_id: member.id, kind: "card_activity", title: "Card unlocked", body: "Open." });
    const counts = await run();
    expect(counts).toMatchObject({ tried: 1, devices_removed: 1 });
    const [row] = await database.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.id, subscription_id));
    expect(row!.removed_reason).toBe("gone");
    expect(await listPushDevices(database.db, member.id)).toEqual([]);
    await notify(database.db, { member_id: member.id, kind: "card_activity", title: "Again", body: "." });
    push.setAnswer(() => 201);
    expect((await run()).tried).toBe(0);
  });

  it("tries a refused push again later, and the run fails when no push service accepted any", async () => {
    const { member, subscription_id } = await memberWithDevice();
    push.setAnswer(() => 503);
    await notify(database.db, { member_id: member.id, kind: "statement_ready", title: "Statement", body: "Ready." });
    await expect(run()).rejects.toBeInstanceOf(PushDeliveryFailed);
    // Waits a minute before the next try.
    push.setAnswer(() => 201);
    expect((await run()).tried).toBe(0);
    const later = await run(new Date(Date.now() + 61_000));
    expect(later.delivered).toBe(1);
    const [delivery] = await database.db
      .select()
      .from(pushDeliveries)
      .where(eq(pushDeliveries.subscription_id, subscription_id));
    expect(delivery).toMatchObject({ attempts: 2, error: null });
    expect(delivery!.sent_at).not.toBeNull();
  });

  it("counts a push's age on the database's clock, not the job clock, which may run days ahead", async () => {
    const { member } = await memberWithDevice();
    await notify(database.db, {
      member_id: member.id,
      kind: "transfer_received",
      title: "You received $12.00",
      body: "From Priya Shah to Checking.",
    });
    // JOB_CLOCK=adjustable moved three days forward (the demo, the browser tests): the push is new.
    const counts = await run(new Date(Date.now() + 3 * 24 * 3600_000));
    expect(counts).toMatchObject({ tried: 1, delivered: 1 });
  });

  it("sends nothing without VAPID keys", async () => {
    const { member } = await memberWithDevice();
    await notify(database.db, { member_id: member.id, kind: "statement_ready", title: "Statement", body: "Ready." });
    expect(await deliverPushes(database.db, new Date(), { keys: null })).toMatchObject({
      web_push: "not configured",
      tried: 0,
    });
    expect(push.received).toHaveLength(0);
  });
});

describe("a member's devices", () => {
  it("stores the subscription encrypted, audits, and refuses what is not a browser's subscription", async () => {
    const { member, subscription_id, device } = await memberWithDevice();
    const [row] = await database.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.id, subscription_id));
    expect(row!.subscription.startsWith("v1.")).toBe(true);
    expect(row!.subscription).not.toContain(device.json.keys.auth);
    expect(row!.device).toBe("Chrome 131 on Linux");
    const audit = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.member_id, member.id), eq(auditLog.action, "auth.push.device_added")));
    expect(audit).toHaveLength(1);
    // The same device again is already added.
    expect(
      await addPushDevice(
        database.db,
        member,
        { subscription_json: JSON.stringify(device.json), device: "Chrome 131 on Linux" },
        origin,
        { extra_origins: extra, keys: KEYS },
      ),
    ).toMatchObject({ ok: true, already_added: true });
    for (const bad of [
      "not json",
      JSON.stringify({ ...device.json, endpoint: "https://attacker.example/collect" }),
      JSON.stringify({ ...device.json, endpoint: "http://fcm.googleapis.com/fcm/send/x" }),
      JSON.stringify({ ...device.json, keys: { p256dh: "short", auth: device.json.keys.auth } }),
      JSON.stringify({ endpoint: device.json.endpoint }),
    ])
      expect(
        await addPushDevice(database.db, member, { subscription_json: bad, device: "Chrome 131 on Linux" }, origin, {
          extra_origins: extra,
          keys: KEYS,
        }),
      ).toMatchObject({ ok: false, kind: "bad_input", code: "invalid" });
    expect(
      await addPushDevice(
        database.db,
        member,
        { subscription_json: JSON.stringify(device.json), device: "Chrome 131 on Linux" },
        origin,
        { extra_origins: extra, keys: null },
      ),
    ).toMatchObject({ ok: false, kind: "not_found", code: "not_configured" });
  });

  it("accepts the browsers' push services only", () => {
    const sub = browserSubscription("https://fcm.googleapis.com/fcm/send/abc");
    expect(readSubscription(JSON.stringify(sub.json), [])).not.toBeNull();
    for (const endpoint of [
      "https://updates.push.services.mozilla.com/wpush/v2/x",
      "https://web.push.apple.com/x",
      "https://wns2-par02p.notify.windows.com/w/?token=x",
    ])
      expect(readSubscription(JSON.stringify({ ...sub.json, endpoint }), [])).not.toBeNull();
    for (const endpoint of [
      "https://fcm.googleapis.com.attacker.example/x",
      "https://127.0.0.1/x",
      "https://fcm.googleapis.com:8443/x",
      "file:///etc/passwd",
    ])
      expect(readSubscription(JSON.stringify({ ...sub.json, endpoint }), [])).toBeNull();
  });

  it("turns a device off by id or by its URL; another member's device is not found and stays", async () => {
    const a = await memberWithDevice();
    const b = await memberWithDevice();
    expect(await removePushDevice(database.db, a.member, { id: b.subscription_id }, origin)).toMatchObject({
      ok: false,
      kind: "not_found",
      code: "not_found",
    });
    expect(await removePushDevice(database.db, a.member, { endpoint: b.device.json.endpoint }, origin)).toMatchObject({
      ok: false,
      kind: "not_found",
      code: "not_found",
    });
    expect(await listPushDevices(database.db, b.member.id)).toHaveLength(1);
    expect(await removePushDevice(database.db, a.member, { id: a.subscription_id }, origin)).toEqual({ ok: true });
    expect(await removePushDevice(database.db, b.member, { endpoint: b.device.json.endpoint }, origin)).toEqual({
      ok: true,
    });
    // A device turned off gets no pushes.
    await notify(database.db, { member_id: a.member.id, kind: "statement_ready", title: "S", body: "." });
    await run();
    expect(push.received.filter((r) => r.path === new URL(a.device.json.endpoint).pathname)).toEqual([]);
  });

  it("a browser that subscribed for another member moves to the member who subscribes now", async () => {
    const a = await memberWithDevice();
    const b = await person(database.db, "user");
    const moved = await addPushDevice(
      database.db,
      b,
      { subscription_json: JSON.stringify(a.device.json), device: "Chrome 131 on Linux" },
      origin,
      { extra_origins: extra, keys: KEYS },
    );
    expect(moved).toMatchObject({ ok: true, already_added: false });
    expect(await listPushDevices(database.db, a.member.id)).toEqual([]);
    expect(await listPushDevices(database.db, b.id, a.device.json.endpoint)).toMatchObject([{ this_device: true }]);
  });
});
