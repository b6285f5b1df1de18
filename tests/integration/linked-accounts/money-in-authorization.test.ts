import "../admin-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, ledgerTransactions, linkedAccounts, moneyInPulls, outbox } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as moveRoute from "~/routes/member/move-money-in";
import { confirmLinkedAccount, linkAccount } from "~/server/linked-accounts/linked-accounts.server";
import { exportPayments } from "~/server/rails/export.server";
import { linkAccountSchema } from "~/domain/linked-accounts";
import { institution } from "~/config/institution.server";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { lastTransferCode } from "../member-support";

/**
 * Who may move money in (docs/product.md#move-money-in): a signed-in member, from their own
 * verified link into their own account. A visitor is sent to sign in; an applicant, a reviewer and
 * staff are sent to their own home (the page) or refused (a post); another member cannot pull from
 * the member's link nor into the member's account. A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];
const ORIGIN = { request_id: "money-in-matrix-0001", ip: "203.0.113.94" };

let database: Database;
let people: SignedIn<Persona>;
let link_id = 0;
let member_account = 0;
let other_account = 0;
let member_email = "";

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  member_account = cast.member.checking.id;
  other_account = cast.other_member.checking.id;
  member_email = cast.member.member.email;
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
  const verified = await confirmLinkedAccount(
    db,
    cast.member.member,
    link_id,
    [row!.micro_first_cents, row!.micro_second_cents],
    ORIGIN,
  );
  if (!verified.ok) throw new Error("not verified");
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

const PATH = "/dashboard/linked-accounts/move-money-in";
const context = routeContext({ request_id: "money-in-matrix-0002", ip: "203.0.113.95" });
const page = (persona: Persona) =>
  run(() => moveRoute.loader({ request: people.get(persona, PATH), params: {}, context: context() } as never));
const post = (persona: Persona, form: Record<string, string>) =>
  moveRoute.action({ request: people.post(persona, PATH, form), params: {}, context: context() } as never);

async function state() {
  const db = database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const [transactions] = await db.select({ n: count() }).from(ledgerTransactions);
  const pulls = await db.select().from(moneyInPulls).orderBy(moneyInPulls.id);
  const links = await db.select().from(linkedAccounts).orderBy(linkedAccounts.id);
  return { audit: Number(audit!.n), transactions: Number(transactions!.n), pulls, links };
}

function pullForm(over: Record<string, string> = {}) {
  return {
    linked_account_id: String(link_id),
    to_account_id: String(member_account),
    amount: "25.00",
    idempotency_key: crypto.randomUUID(),
    ...over,
  };
}

/** The words the review step shows, to post back with the confirmation. */
async function reviewed(persona: Persona, form: Record<string, string>) {
  const outcome = await run(() => post(persona, { intent: "review", ...form }));
  return { outcome, text: (outcome.value as { authorization_text?: string }).authorization_text ?? "" };
}

describe("the Move money in page", () => {
  for (const persona of PERSONAS) {
    it(`${PATH} for ${persona}`, async () => {
      const result = await page(persona);
      if (persona === "member" || persona === "other_member") {
        expect(result.status).toBe(200);
        const data = result.value as { links: { id: number }[] };
        expect(data.links.some((l) => l.id === link_id)).toBe(persona === "member");
        if (persona === "other_member") expect(result.body).not.toContain("Rainy day");
        expect(result.body).not.toContain("55501234");
        return;
      }
      expect(result.status).toBe(302);
      expectSentAway(result, persona, PATH);
    });
  }

  const OUTSIDERS = PERSONAS.filter((p) => p !== "member" && p !== "other_member");
  itRefuses("review", OUTSIDERS, (persona) => post(persona, { intent: "review", ...pullForm() }), {
    unchanged: state,
  });
  itRefuses("passkey challenge", OUTSIDERS, (persona) => post(persona, { intent: "passkey", ...pullForm() }), {
    unchanged: state,
  });
  itRefuses(
    "confirm",
    OUTSIDERS,
    (persona) => post(persona, { intent: "confirm", agree: "yes", authorization_text: "x", ...pullForm() }),
    { unchanged: state },
  );

  it("another member can neither pull from the member's link nor into the member's account; nothing changes", async () => {
    const before = await state();
    for (const form of [pullForm({ to_account_id: String(other_account) }), pullForm()]) {
      const { outcome } = await reviewed("other_member", form);
      expect(outcome.status).toBe(422);
      expect(outcome.body).not.toContain("Rainy day");
      const confirm = await run(() =>
        post("other_member", { intent: "confirm", agree: "yes", authorization_text: "x", ...form }),
      );
      expect(confirm.status).toBe(422);
    }
    const into = await run(() =>
      post("other_member", { intent: "review", ...pullForm({ to_account_id: String(member_account) }) }),
    );
    expect(into.status).toBe(422);
    expect(await state()).toEqual(before);
  });

  it("bad input is refused next to the field, an unknown intent is a bad request; nothing changes", async () => {
    const before = await state();
    for (const amount of ["0", "-5", "abc", "1.234", ""]) {
      const bad = await run(() => post("member", { intent: "review", ...pullForm({ amount }) }));
      expect(bad.status, amount).toBe(400);
    }
    const over = await run(() =>
      post("member", {
        intent: "review",
        ...pullForm({ amount: ((institution().limits.money_in.daily_max_cents + 1) / 100).toFixed(2) }),
      }),
    );
    expect(over.status).toBe(422);
    expect(over.body).toContain("more today");
    // Confirming without ticking the box, or with other words than those shown.
    const form = pullForm();
    const { text } = await reviewed("member", form);
    expect(text).toContain("$25.00");
    const unticked = await run(() => post("member", { intent: "confirm", authorization_text: text, ...form }));
    expect(unticked.status).toBe(400);
    expect(unticked.body).toContain("Please agree to the authorization");
    const other_words = await run(() =>
      post("member", { intent: "confirm", agree: "yes", authorization_text: `${text} `, ...form }),
    );
    expect(other_words.status).toBe(409);
    expect((await run(() => post("member", { intent: "pull", ...form }))).status).toBe(400);
    expect(await state()).toEqual(before);
  });

  it("the member reviews and confirms: the pull is asked for with the words shown, audited with the request", async () => {
    const form = pullForm();
    const { outcome, text } = await reviewed("member", form);
    expect(outcome.value).toMatchObject({ step: "confirm", needs_code: false });
    const done = await run(() =>
      post("member", { intent: "confirm", agree: "yes", authorization_text: text, ...form }),
    );
    expect(done.value).toMatchObject({ step: "done" });
    const [pull] = await database.db
      .select()
      .from(moneyInPulls)
      .where(eq(moneyInPulls.idempotency_key, form.idempotency_key));
    expect(pull).toMatchObject({ authorization_text: text, amount_cents: 2_500, account_id: member_account });
    const audit = await database.db.select().from(auditLog).where(eq(auditLog.action, "money_in.request"));
    expect(audit.map((a) => a.request_id)).toEqual(["money-in-matrix-0002"]);
  });

  it("above the profile's amount a code emailed to the member confirms it; a wrong code changes nothing", async () => {
    const amount = ((institution().limits.money_in.code_above_cents + 100) / 100).toFixed(2);
    const form = pullForm({ amount });
    const { outcome, text } = await reviewed("member", form);
    expect(outcome.value).toMatchObject({ step: "confirm", needs_code: true });
    const before = await state();
    const wrong = await run(() =>
      post("member", { intent: "confirm", agree: "yes", authorization_text: text, otp: "000000", ...form }),
    );
    expect(wrong.status).toBe(422);
    expect(await state()).toMatchObject({ pulls: before.pulls, transactions: before.transactions });
    const code = await lastTransferCode(database.db, member_email);
    const done = await run(() =>
      post("member", { intent: "confirm", agree: "yes", authorization_text: text, otp: code, ...form }),
    );
    expect(done.value).toMatchObject({ step: "done" });
    const mails = await database.db.select().from(outbox).where(eq(outbox.to_email, member_email));
    expect(mails.length).toBeGreaterThan(0);
  });
});
