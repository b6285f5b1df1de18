import { LOCAL_PUSH_ORIGIN, VAPID_PUBLIC_KEY } from "./push-env";
import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { pushSubscriptions } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as accountRoute from "~/routes/settings/account";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { browserSubscription } from "./push-service";
import { person } from "../../factories";

/**
 * Who may turn notifications on a device on and off (docs/product.md#settings, Web Push): a
 * member, for their own devices only. Staff get no notifications, so no push section and no push
 * intent; a visitor or an applicant is refused; another member cannot remove the member's device,
 * by id or by its URL. A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let member_id = "";
let device_id = 0;
const device = browserSubscription(`${LOCAL_PUSH_ORIGIN}/push/members-phone`);
const context = routeContext({ request_id: "push-matrix-0001", ip: "203.0.113.81" });

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const cast = await matrixCast(database.db);
  member_id = cast.member.member.id;
  people = await SignedIn.as(database.db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: member_id,
    other_member: cast.other_member.member.id,
  });
  const outcome = await run(() =>
    post("member", { intent: "push-subscribe", subscription: JSON.stringify(device.json) }),
  );
  expect(outcome).toMatchObject({ kind: "ok" });
  const [row] = await database.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.member_id, member_id));
  device_id = row!.id;
});
afterAll(async () => {
  await database?.close();
});

function post(persona: Persona, form: Record<string, string>) {
  return accountRoute.action({
    request: people.post(persona, "/settings/account", form),
    params: {},
    context: context(),
  } as never);
}

/** Every device row, live or removed: what any push intent could change. */
async function devices() {
  return database.db
    .select({
      id: pushSubscriptions.id,
      member_id: pushSubscriptions.member_id,
      removed_at: pushSubscriptions.removed_at,
    })
    .from(pushSubscriptions)
    .orderBy(asc(pushSubscriptions.id));
}

describe("Account Settings: notifications on devices", () => {
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
      const push = (outcome.value as { account: { push: { public_key: string; devices: { id: number }[] } | null } })
        .account.push;
      if (persona === "member")
        expect(push).toMatchObject({ public_key: VAPID_PUBLIC_KEY, devices: [{ id: device_id }] });
      else if (persona === "other_member")
        expect(push).toMatchObject({ public_key: VAPID_PUBLIC_KEY, devices: [], choices: { security: true } });
      else expect(push, persona).toBeNull();
    });
  }

  const another = browserSubscription(`${LOCAL_PUSH_ORIGIN}/push/someone-elses`);
  itRefuses(
    "adding a device",
    ["anonymous", "applicant", "reviewer", "staff"],
    (persona) => post(persona, { intent: "push-subscribe", subscription: JSON.stringify(another.json) }),
    { unchanged: devices },
  );
  itRefuses(
    "removing the member's device",
    ["anonymous", "applicant", "reviewer", "staff"],
    (persona) => post(persona, { intent: "push-remove", subscription_id: String(device_id) }),
    { unchanged: devices },
  );
  itRefuses(
    "turning the member's device off by its URL",
    ["anonymous", "applicant", "reviewer", "staff"],
    (persona) => post(persona, { intent: "push-unsubscribe", endpoint: device.json.endpoint }),
    { unchanged: devices },
  );

  it("another member cannot remove the member's device, by id (404) or by its URL (nothing changes)", async () => {
    const before = await devices();
    expect(
      await run(() => post("other_member", { intent: "push-remove", subscription_id: String(device_id) })),
    ).toMatchObject({ kind: "refused", status: 404 });
    await run(() => post("other_member", { intent: "push-unsubscribe", endpoint: device.json.endpoint }));
    expect(await devices()).toEqual(before);
  });

  it("a subscription that is not a browser's, or to a server that is no push service, is refused (400)", async () => {
    const before = await devices();
    for (const subscription of ["{}", JSON.stringify({ ...another.json, endpoint: "https://attacker.example/x" })])
      expect(await run(() => post("member", { intent: "push-subscribe", subscription }))).toMatchObject({
        kind: "refused",
        status: 400,
      });
    expect(await devices()).toEqual(before);
  });

  it("a published demo sign-in is offered no notifications on devices, and refused one (403)", async () => {
    // A member with a published demo sign-in's address (demo mode: the default profile).
    const alex = await person(database.db, "user", { email: "alex.morgan@harborview.example" });
    const demo = await SignedIn.as(database.db, { demo: alex.id });
    const page = await run(() =>
      accountRoute.loader({ request: demo.get("demo", "/settings/account"), params: {}, context: context() } as never),
    );
    expect((page.value as { account: { push: unknown } }).account.push).toBeNull();
    const before = await devices();
    const outcome = await run(() =>
      accountRoute.action({
        request: demo.post("demo", "/settings/account", {
          intent: "push-subscribe",
          subscription: JSON.stringify(another.json),
        }),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 403 });
    expect(await devices()).toEqual(before);
  });

  it("the member removes their own device", async () => {
    expect(
      await run(() => post("member", { intent: "push-remove", subscription_id: String(device_id) })),
    ).toMatchObject({
      kind: "ok",
    });
    const [row] = (await devices()).filter((d) => d.id === device_id);
    expect(row!.removed_at).not.toBeNull();
  });
});
