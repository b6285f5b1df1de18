import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, electronicDeliveryChoices, electronicDeliverySamples } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as consentRoute from "~/routes/member/electronic-delivery";
import * as sampleRoute from "~/routes/member/electronic-delivery-sample";
import * as accountRoute from "~/routes/settings/account";
import * as paperRoute from "~/routes/admin/paper-delivery";
import * as disclosuresRoute from "~/routes/admin/disclosures";
import * as paperCsvRoute from "~/routes/admin/paper-delivery-csv";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * Who may reach electronic delivery (docs/product.md#electronic-delivery, #paper-delivery): the
 * consent page, its sample PDF and its choices are a member's own; the paper list and its CSV are
 * staff's (never a reviewer's: it holds addresses). Every other person is sent away or refused,
 * and a refused request records nothing: no choice, no sample code, no audit row.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];
const MEMBERS: Persona[] = ["member", "other_member"];

let database: Database;
let people: SignedIn<Persona>;
let member_email = "";
let other_member_id = "";
const context = routeContext({ request_id: "esign-matrix-0001", ip: "203.0.113.82" });

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const cast = await matrixCast(database.db);
  member_email = cast.member.member.email;
  other_member_id = cast.other_member.member.id;
  people = await SignedIn.as(database.db, {
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

/** Everything the routes could write. */
async function written() {
  const n = async (table: typeof auditLog | typeof electronicDeliveryChoices | typeof electronicDeliverySamples) =>
    Number((await database.db.select({ n: count() }).from(table))[0]!.n);
  return {
    choices: await n(electronicDeliveryChoices),
    samples: await n(electronicDeliverySamples),
    audit: await n(auditLog),
  };
}

const load = (module: { loader: (args: never) => unknown }, persona: Persona, path: string) =>
  run(
    () =>
      module.loader({
        request: people.get(persona, path),
        params: {},
        context: context(),
      } as never) as Promise<unknown>,
  );

describe("pages", () => {
  for (const persona of PERSONAS) {
    it(`/dashboard/electronic-delivery and its sample PDF for ${persona}`, async () => {
      const before = await written();
      const page = await load(consentRoute, persona, "/dashboard/electronic-delivery");
      const sample = await load(sampleRoute, persona, "/dashboard/electronic-delivery/sample.pdf");
      if (MEMBERS.includes(persona)) {
        expect(page.status).toBe(200);
        expect(page.value).toMatchObject({ delivery: "paper", answered: false });
        expect(sample.status).toBe(200);
        expect(sample.body).toBe("[application/pdf]");
        return;
      }
      expectSentAway(page, persona, "/dashboard/electronic-delivery");
      expectSentAway(sample, persona, "/dashboard/electronic-delivery/sample.pdf");
      expect(await written()).toEqual(before);
    });

    it(`/admin/paper-delivery and its CSV for ${persona}`, async () => {
      const before = await written();
      const page = await load(paperRoute, persona, "/admin/paper-delivery");
      const csv = await load(paperCsvRoute, persona, "/admin/paper-delivery.csv");
      if (persona === "staff") {
        expect(page.status).toBe(200);
        expect(page.body).toContain(member_email);
        expect(csv.status).toBe(200);
        expect(csv.body).toContain(member_email);
        return;
      }
      expectSentAway(page, persona, "/admin/paper-delivery");
      expectSentAway(csv, persona, "/admin/paper-delivery.csv");
      expect(page.body).not.toContain(member_email);
      expect(csv.body).not.toContain(member_email);
      expect(await written()).toEqual(before);
    });

    it(`/admin/disclosures (change-in-terms notices) for ${persona}`, async () => {
      const before = await written();
      const page = await load(disclosuresRoute, persona, "/admin/disclosures");
      if (persona === "staff") {
        expect(page.status).toBe(200);
        expect(page.value).toMatchObject({ changes: expect.any(Array) });
        return;
      }
      expectSentAway(page, persona, "/admin/disclosures");
      expect(await written()).toEqual(before);
    });
  }
});

describe("actions", () => {
  const NOT_MEMBERS: Persona[] = ["anonymous", "applicant", "reviewer", "staff"];
  const post = (persona: Persona, form: Record<string, string>) =>
    consentRoute.action({
      request: people.post(persona, "/dashboard/electronic-delivery", form),
      params: {},
      context: context(),
    } as never);

  itRefuses(
    "Agree to electronic delivery",
    NOT_MEMBERS,
    (p) => post(p, { intent: "consent", code: "ACDEFG", agree: "yes" }),
    {
      unchanged: written,
    },
  );
  itRefuses("I prefer paper by mail", NOT_MEMBERS, (p) => post(p, { intent: "paper" }), { unchanged: written });
  // Account Settings serves staff too; withdrawing is a member's alone.
  itRefuses(
    "Withdraw consent in Account Settings",
    ["anonymous", "applicant", "reviewer", "staff"] as Persona[],
    (p) =>
      accountRoute.action({
        request: people.post(p, "/settings/account", { intent: "paper-delivery" }),
        params: {},
        context: context(),
      } as never),
    { unchanged: written },
  );

  it("another member's code does not consent for this one, and an unknown intent changes nothing", async () => {
    const before = await written();
    await load(sampleRoute, "other_member", "/dashboard/electronic-delivery/sample.pdf");
    const [theirs] = await database.db
      .select()
      .from(electronicDeliverySamples)
      .where(eq(electronicDeliverySamples.member_id, other_member_id));
    const after_sample = await written();
    const outcome = await run(() => post("member", { intent: "consent", code: theirs!.code, agree: "yes" }));
    expect(outcome.status).toBe(400);
    expect((await written()).choices).toBe(before.choices);
    const unknown = await run(() => post("member", { intent: "delete" }));
    expect(unknown.status).toBe(400);
    expect(await written()).toEqual(after_sample);
  });

  it("a member declines and is recorded once, as a member's own choice", async () => {
    const before = await written();
    expect((await run(() => post("member", { intent: "paper" }))).status).toBe(200);
    expect((await written()).choices).toBe(before.choices + 1);
  });
});
