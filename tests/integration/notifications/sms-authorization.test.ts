import "./push-env";
import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { notificationChannelChoices, smsMessages, smsNumbers } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { institution } from "~/config/institution.server";
import * as accountRoute from "~/routes/settings/account";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { codeIn, startSmsProvider, type LocalSmsProvider } from "./sms-provider";
import { person } from "../../factories";

// The provider's secrets, before anything reads the environment (this file runs isolated).
process.env.SMS_ACCOUNT_SID = "AC0123456789";
process.env.SMS_AUTH_TOKEN = "sms-authorization-test-token";

/**
 * Who may add, confirm and remove a mobile number and choose what is texted or pushed
 * (docs/product.md#text-messages): a member, for themself only. Staff get no notifications; a
 * visitor or an applicant is refused; another member changes nothing of the member's; the shared
 * demo sign-ins are refused; without a provider nothing is offered. A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];
const OUTSIDERS = ["anonymous", "applicant", "reviewer", "staff"] as const;

let database: Database;
let people: SignedIn<Persona>;
let sms: LocalSmsProvider;
let member_id = "";
const context = routeContext({ request_id: "sms-matrix-0001", ip: "203.0.113.82" });

beforeAll(async () => {
  sms = await startSmsProvider();
  institution().sms = {
    kind: "twilio-messages",
    name: "Local test provider",
    api_url: sms.origin,
    from_number: "+15005550006",
  };
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
});
afterAll(async () => {
  institution().sms = undefined;
  await database?.close();
  await sms?.close();
});

function post(persona: Persona, form: Record<string, string>) {
  return accountRoute.action({
    request: people.post(persona, "/settings/account", form),
    params: {},
    context: context(),
  } as never);
}
const page = (persona: Persona) =>
  run(() =>
    accountRoute.loader({ request: people.get(persona, "/settings/account"), params: {}, context: context() } as never),
  );

/** Everything an SMS or choice intent could change. */
async function state() {
  return {
    numbers: await database.db
      .select({
        id: smsNumbers.id,
        member_id: smsNumbers.member_id,
        verified_at: smsNumbers.verified_at,
        removed_at: smsNumbers.removed_at,
        attempts: smsNumbers.code_attempts,
      })
      .from(smsNumbers)
      .orderBy(asc(smsNumbers.id)),
    messages: await database.db.select({ id: smsMessages.id }).from(smsMessages).orderBy(asc(smsMessages.id)),
    choices: await database.db.select().from(notificationChannelChoices),
  };
}

/** The newest text the fake provider received (sent in the background after the request). */
async function nextText(count: number) {
  await expect.poll(() => sms.received.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(count);
  return sms.received[count - 1];
}

describe("Account Settings: text messages", () => {
  for (const persona of PERSONAS) {
    it(`the page for ${persona}`, async () => {
      const outcome = await page(persona);
      if (persona === "anonymous" || persona === "applicant")
        return expectSentAway(outcome, persona, "/settings/account");
      expect(outcome.kind, persona).toBe("ok");
      const account = (outcome.value as { account: { sms: unknown; push: { choices: unknown } | null } }).account;
      if (persona === "member" || persona === "other_member") {
        expect(account.sms).toMatchObject({ number: null, choices: { security: false, payments: false } });
        expect(account.push!.choices).toMatchObject({ security: true, cards: true });
      } else expect(account.sms, persona).toBeNull();
    });
  }

  itRefuses(
    "adding a mobile number",
    OUTSIDERS,
    (persona) => post(persona, { intent: "sms-add", number: "+12025550143" }),
    { unchanged: state },
  );
  itRefuses("confirming a number", OUTSIDERS, (persona) => post(persona, { intent: "sms-verify", code: "123456" }), {
    unchanged: state,
  });
  itRefuses("removing a number", OUTSIDERS, (persona) => post(persona, { intent: "sms-remove" }), { unchanged: state });
  itRefuses(
    "choosing what is texted",
    OUTSIDERS,
    (persona) => post(persona, { intent: "channel-choices", channel: "sms", sms_security: "on" }),
    { unchanged: state },
  );
  itRefuses(
    "choosing what is pushed",
    OUTSIDERS,
    (persona) => post(persona, { intent: "channel-choices", channel: "push" }),
    { unchanged: state },
  );

  it("a number that is not E.164 is refused next to the field (400) and changes nothing", async () => {
    const before = await state();
    const outcome = await run(() => post("member", { intent: "sms-add", number: "202 555 0143" }));
    expect(outcome).toMatchObject({ kind: "refused", status: 400 });
    expect(JSON.stringify(outcome)).toContain("international format");
    expect(await state()).toEqual(before);
  });

  it("the member adds a number, confirms it with the texted code, and chooses what is texted", async () => {
    expect(await run(() => post("member", { intent: "sms-add", number: "+1 202 555 0143" }))).toMatchObject({
      kind: "ok",
    });
    const text = await nextText(1);
    expect(text).toMatchObject({
      to: "+12025550143",
      from: "+15005550006",
      path: "/2010-04-01/Accounts/AC0123456789/Messages.json",
    });
    const pending = (await page("member")).value as { account: { sms: { number: unknown } } };
    expect(pending.account.sms.number).toMatchObject({ masked: "•••• 0143", verified: false });
    // Another member can neither confirm nor remove it.
    const before = await state();
    expect(await run(() => post("other_member", { intent: "sms-verify", code: codeIn(text) }))).toMatchObject({
      kind: "refused",
      status: 404,
    });
    expect(await run(() => post("other_member", { intent: "sms-remove" }))).toMatchObject({
      kind: "refused",
      status: 404,
    });
    expect(await state()).toEqual(before);
    expect(await run(() => post("member", { intent: "sms-verify", code: codeIn(text) }))).toMatchObject({ kind: "ok" });
    expect(
      await run(() =>
        post("member", { intent: "channel-choices", channel: "sms", sms_security: "on", sms_cards: "on" }),
      ),
    ).toMatchObject({ kind: "ok" });
    const after = (await page("member")).value as { account: { sms: unknown } };
    expect(after.account.sms).toMatchObject({
      number: { masked: "•••• 0143", verified: true },
      choices: { security: true, cards: true, payments: false },
    });
    const [row] = await database.db.select().from(smsNumbers).where(eq(smsNumbers.member_id, member_id));
    expect(row!.number).not.toContain("555");
  });

  it("a published demo sign-in is offered no text messages, and refused (403)", async () => {
    const alex = await person(database.db, "user", { email: "alex.morgan@harborview.example" });
    const demo = await SignedIn.as(database.db, { demo: alex.id });
    const shown = await run(() =>
      accountRoute.loader({ request: demo.get("demo", "/settings/account"), params: {}, context: context() } as never),
    );
    expect((shown.value as { account: { sms: unknown } }).account.sms).toBeNull();
    const before = await state();
    const outcome = await run(() =>
      accountRoute.action({
        request: demo.post("demo", "/settings/account", { intent: "sms-add", number: "+12025550199" }),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 403 });
    expect(await state()).toEqual(before);
  });

  it("without a provider, nothing is offered and every SMS intent is refused (404)", async () => {
    const configured = institution().sms;
    institution().sms = undefined;
    try {
      expect(((await page("member")).value as { account: { sms: unknown } }).account.sms).toBeNull();
      const before = await state();
      const forms: Record<string, string>[] = [
        { intent: "sms-add", number: "+12025550143" },
        { intent: "sms-remove" },
        { intent: "channel-choices", channel: "sms", sms_security: "on" },
      ];
      for (const form of forms)
        expect(await run(() => post("member", form))).toMatchObject({ kind: "refused", status: 404 });
      expect(await state()).toEqual(before);
    } finally {
      institution().sms = configured;
    }
  });

  it("the member removes their number", async () => {
    expect(await run(() => post("member", { intent: "sms-remove" }))).toMatchObject({ kind: "ok" });
    expect(((await page("member")).value as { account: { sms: { number: unknown } } }).account.sms.number).toBeNull();
  });
});
