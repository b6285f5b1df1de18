import "../admin-support";
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { auditLog, ledgerTransactions, linkedAccounts, moneyInPulls, outbox } from "~/server/db/schema";
import * as moveRoute from "~/routes/member/move-money-in";
import { institution } from "~/config/institution.server";
import {
  itKeepsToTheMember,
  itRefuses,
  memberOwnMatrix,
  MEMBER_OWN_PERSONAS,
  run,
  type MemberOwnPersona,
} from "../authorization-matrix";
import { lastTransferCode } from "../member-support";
import { RAINY_DAY_ACCOUNT_NUMBER, rainyDayLink } from "./linked-support";

/**
 * Who may move money in (docs/product.md#move-money-in): a signed-in member, from their own
 * verified link into their own account. A visitor is sent to sign in; an applicant, a reviewer and
 * staff are sent to their own home (the page) or refused (a post); another member cannot pull from
 * the member's link nor into the member's account. A refused request changes nothing.
 */
const ORIGIN = { request_id: "money-in-matrix-0001", ip: "203.0.113.94" };
const PATH = "/dashboard/linked-accounts/move-money-in";
const matrix = memberOwnMatrix({
  path: PATH,
  route: moveRoute,
  request: { request_id: "money-in-matrix-0002", ip: "203.0.113.95" },
  prepare: async (db, member, cast) => ({
    ...(await rainyDayLink(db, member.member, cast.staff, ORIGIN, { verified: true })),
    member_account: member.checking.id,
    other_account: cast.other_member.checking.id,
    member_email: member.member.email,
  }),
});
/** The action as the route runs it, its answer not yet read (itRefuses and run read it). */
const post = (persona: MemberOwnPersona, form: Record<string, string>) =>
  moveRoute.action({
    request: matrix.people.post(persona, PATH, form),
    params: {},
    context: matrix.context(),
  } as never);

async function state() {
  const db = matrix.database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const [transactions] = await db.select({ n: count() }).from(ledgerTransactions);
  const pulls = await db.select().from(moneyInPulls).orderBy(moneyInPulls.id);
  const links = await db.select().from(linkedAccounts).orderBy(linkedAccounts.id);
  return { audit: Number(audit!.n), transactions: Number(transactions!.n), pulls, links };
}

function pullForm(over: Record<string, string> = {}) {
  return {
    linked_account_id: String(matrix.prepared.link_id),
    to_account_id: String(matrix.prepared.member_account),
    amount: "25.00",
    idempotency_key: crypto.randomUUID(),
    ...over,
  };
}

/** The words the review step shows, to post back with the confirmation. */
async function reviewed(persona: MemberOwnPersona, form: Record<string, string>) {
  const outcome = await run(() => post(persona, { intent: "review", ...form }));
  return { outcome, text: (outcome.value as { authorization_text?: string }).authorization_text ?? "" };
}

describe("the Move money in page", () => {
  itKeepsToTheMember(matrix, PATH, {
    sees: (persona, result) => {
      const data = result.value as { links: { id: number }[] };
      expect(data.links.some((l) => l.id === matrix.prepared.link_id)).toBe(persona === "member");
      if (persona === "other_member") expect(result.body).not.toContain("Rainy day");
      expect(result.body).not.toContain(RAINY_DAY_ACCOUNT_NUMBER);
    },
    posts: [],
    state,
    hides: "Rainy day",
  });

  const OUTSIDERS = MEMBER_OWN_PERSONAS.filter((p) => p !== "member" && p !== "other_member");
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
    for (const form of [pullForm({ to_account_id: String(matrix.prepared.other_account) }), pullForm()]) {
      const { outcome } = await reviewed("other_member", form);
      expect(outcome.status).toBe(422);
      expect(outcome.body).not.toContain("Rainy day");
      const confirm = await run(() =>
        post("other_member", { intent: "confirm", agree: "yes", authorization_text: "x", ...form }),
      );
      expect(confirm.status).toBe(422);
    }
    const into = await run(() =>
      post("other_member", {
        intent: "review",
        ...pullForm({ to_account_id: String(matrix.prepared.member_account) }),
      }),
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
    const [pull] = await matrix.database.db
      .select()
      .from(moneyInPulls)
      .where(eq(moneyInPulls.idempotency_key, form.idempotency_key));
    expect(pull).toMatchObject({
      authorization_text: text,
      amount_cents: 2_500,
      account_id: matrix.prepared.member_account,
    });
    const audit = await matrix.database.db.select().from(auditLog).where(eq(auditLog.action, "money_in.request"));
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
    const code = await lastTransferCode(matrix.database.db, matrix.prepared.member_email);
    const done = await run(() =>
      post("member", { intent: "confirm", agree: "yes", authorization_text: text, otp: code, ...form }),
    );
    expect(done.value).toMatchObject({ step: "done" });
    const mails = await matrix.database.db
      .select()
      .from(outbox)
      .where(eq(outbox.to_email, matrix.prepared.member_email));
    expect(mails.length).toBeGreaterThan(0);
  });
});
