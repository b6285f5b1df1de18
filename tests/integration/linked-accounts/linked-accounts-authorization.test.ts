import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, linkedAccounts } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as linkedRoute from "~/routes/member/linked-accounts";
import { linkAccount } from "~/server/linked-accounts/linked-accounts.server";
import { exportPayments } from "~/server/rails/export.server";
import { linkAccountSchema } from "~/domain/linked-accounts";
import { openTestDatabase } from "../test-database";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * Who may see and change linked accounts (docs/product.md#linked-accounts): a signed-in member,
 * their own only. A visitor is sent to sign in; an applicant, a reviewer and staff are sent to
 * their own home (the page) or refused (a post); another member sees none of the member's and
 * cannot confirm or remove them ("not found"). A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];
const ORIGIN = { request_id: "linked-matrix-0001", ip: "203.0.113.92" };

let database: Database;
let people: SignedIn<Persona>;
let link_id = 0;
let amounts: [number, number] = [0, 0];

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  const linked = await linkAccount(
    db,
    cast.member.member,
    linkAccountSchema.parse({
      routing_number: "021000021",
      account_number: "55501234",
      account_type: "checking",
      nickname: "Rainy day fund",
    }),
    ORIGIN,
  );
  link_id = linked.id;
  const sent = await exportPayments(db, "ach", cast.staff, ORIGIN);
  if (!sent.ok) throw new Error(sent.message);
  const [row] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, link_id));
  amounts = [row!.micro_first_cents, row!.micro_second_cents];
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const PATH = "/dashboard/linked-accounts";
const context = routeContext({ request_id: "linked-matrix-0002", ip: "203.0.113.93" });
const page = (persona: Persona) =>
  run(() => linkedRoute.loader({ request: people.get(persona, PATH), params: {}, context: context() } as never));
const post = (persona: Persona, form: Record<string, string>) =>
  run(() => linkedRoute.action({ request: people.post(persona, PATH, form), params: {}, context: context() } as never));

async function state() {
  const db = database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const links = await db.select().from(linkedAccounts).orderBy(linkedAccounts.id);
  return { audit: Number(audit!.n), links };
}

const cents = (n: number) => `0.${String(n).padStart(2, "0")}`;
const LINK = {
  intent: "link",
  routing_number: "121000248",
  account_number: "99990000",
  account_type: "savings",
  nickname: "Not mine",
};

describe("the Linked accounts page: the member's own only", () => {
  for (const persona of PERSONAS) {
    it(`${PATH} for ${persona}`, async () => {
      const result = await page(persona);
      if (persona === "member" || persona === "other_member") {
        expect(result.status).toBe(200);
        const data = result.value as { accounts: { id: number }[] };
        expect(data.accounts.some((a) => a.id === link_id)).toBe(persona === "member");
        if (persona === "other_member") expect(result.body).not.toContain("Rainy day");
        // Never the full account number, not even to its owner.
        expect(result.body).not.toContain("55501234");
        return;
      }
      expect(result.status).toBe(302);
      expectSentAway(result, persona, PATH);
    });
  }

  const POSTS = [
    { intent: "confirm", form: () => ({ id: String(link_id), first: cents(amounts[0]), second: cents(amounts[1]) }) },
    { intent: "remove", form: () => ({ id: String(link_id) }) },
  ];
  for (const { intent, form } of POSTS) {
    for (const persona of PERSONAS.filter((p) => p !== "member")) {
      it(`${intent} of the member's link by ${persona} is refused and changes nothing`, async () => {
        const before = await state();
        const result = await post(persona, { intent, ...form() });
        if (persona === "other_member") {
          expect(result.status).toBe(404);
          expect(result.body).not.toContain("Rainy day");
        } else expect([401, 403]).toContain(result.status);
        expect(await state()).toEqual(before);
      });
    }
  }

  for (const persona of PERSONAS.filter((p) => p !== "member" && p !== "other_member")) {
    it(`link by ${persona} is refused and changes nothing`, async () => {
      const before = await state();
      const result = await post(persona, LINK);
      expect([401, 403]).toContain(result.status);
      expect(await state()).toEqual(before);
    });
  }

  it("bad input and an unknown intent are refused next to the field, changing nothing", async () => {
    const before = await state();
    const bad = await post("member", { ...LINK, routing_number: "121000249" });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain("Please enter a valid routing number");
    expect(
      (await post("member", { intent: "confirm", id: String(link_id), first: "1.50", second: "0.10" })).status,
    ).toBe(400);
    expect((await post("member", { intent: "delete", id: String(link_id) })).status).toBe(400);
    expect((await post("member", { intent: "remove", id: "x" })).status).toBe(404);
    expect(await state()).toEqual(before);
  });

  it("the member links, confirms and removes their own, each audited with the request", async () => {
    expect((await post("member", LINK)).value).toMatchObject({ ok: true, intent: "link" });
    const confirmed = await post("member", {
      intent: "confirm",
      id: String(link_id),
      first: cents(amounts[1]),
      second: cents(amounts[0]),
    });
    expect(confirmed.value).toMatchObject({ ok: true, intent: "confirm" });
    expect((await post("member", { intent: "remove", id: String(link_id) })).value).toMatchObject({ ok: true });
    const audit = await database.db.select().from(auditLog);
    expect(
      audit
        .filter((a) => a.action.startsWith("linked_account.") && a.request_id === "linked-matrix-0002")
        .map((a) => a.action),
    ).toEqual(["linked_account.link", "linked_account.confirm_verified", "linked_account.remove"]);
  });
});
