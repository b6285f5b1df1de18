import "../identity-support";
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { linkedAccounts, moneyInPulls } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { relyingParty } from "~/server/auth/passkeys.server";
import { finishPasskeyRegistration, startPasskeyRegistration } from "~/server/auth/passkey-registration.server";
import { confirmLinkedAccount, linkAccount } from "~/server/linked-accounts/linked-accounts.server";
import { exportPayments } from "~/server/rails/export.server";
import { institution } from "~/config/institution.server";
import { linkAccountSchema } from "~/domain/linked-accounts";
import { moneyInAction, type MoneyInAnswer } from "~/routes/member/move-money-in.server";
import { fileDatabase } from "../test-database";
import { Browser, outcome } from "../identity-support";
import { openMember } from "../ledger-fixtures";
import { assertion, newCredential, registrationResponse } from "../../soft-authenticator";
import { person, staff as newStaff } from "../../factories";

/**
 * A pull above the profile's amount confirmed with a passkey instead of the emailed code
 * (docs/product.md#move-money-in, #step-up-codes): the challenge is bound to this pull, so its
 * answer confirms this pull only, once.
 */
const database = fileDatabase({ onOpen: (d) => setAppDatabase(d) });
const PASSWORD = "Tidewater morning 42";
const origin = { request_id: "money-in-passkey", ip: "198.51.100.9" };

function formOf(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
}

describe("confirming a pull with a passkey", () => {
  it("the passkey's answer for this pull confirms it; for another amount it does not, and nothing moves", async () => {
    const db = database.db;
    const made = await person(db, "user", { password: PASSWORD, name: "Passkey Member" });
    const member = { id: made.id, email: made.email, name: "Passkey Member" };
    const { checking } = await openMember(db, { member_id: member.id, checking_cents: 1_000 });
    // A passkey, added as Account Settings adds one.
    const started = await startPasskeyRegistration(db, new Browser().meta(), member, PASSWORD);
    if (!started.ok) throw new Error(`registration did not start: ${outcome(started)}`);
    const credential = newCredential(member.id);
    const rp = relyingParty();
    const registered = await finishPasskeyRegistration(db, member, {
      name: "Phone",
      response_json: JSON.stringify(
        registrationResponse(credential, { challenge: started.options.challenge, origin: rp.origin, rp_id: rp.rp_id }),
      ),
    });
    expect(outcome(registered)).toBe("ok");
    // A verified link.
    const linked = await linkAccount(
      db,
      member,
      linkAccountSchema.parse({
        routing_number: "121000248",
        account_number: "4000123456789",
        account_type: "checking",
        nickname: "Home",
      }),
      origin,
    );
    const staff = await newStaff(db);
    expect((await exportPayments(db, "ach", staff, origin)).ok).toBe(true);
    const [row] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, linked.id));
    expect(
      (await confirmLinkedAccount(db, member, linked.id, [row!.micro_first_cents, row!.micro_second_cents], origin)).ok,
    ).toBe(true);

    const amount = ((institution().limits.money_in.code_above_cents + 5_000) / 100).toFixed(2);
    const fields = {
      linked_account_id: String(linked.id),
      to_account_id: String(checking.id),
      amount,
      idempotency_key: crypto.randomUUID(),
    };
    const review = await moneyInAction(member, "review", formOf(fields), origin);
    const confirm = review.answer as Extract<MoneyInAnswer, { step: "confirm" }>;
    expect(confirm).toMatchObject({ step: "confirm", needs_code: true, passkey: true });

    const challengeFor = async (f: Record<string, string>) => {
      const asked = await moneyInAction(member, "passkey", formOf(f), origin);
      const options = (asked.answer as Extract<MoneyInAnswer, { step: "passkey" }>).options as { challenge: string };
      return JSON.stringify(
        assertion(credential, { challenge: options.challenge, origin: rp.origin, rp_id: rp.rp_id }),
      );
    };
    // An answer for another amount does not confirm this pull.
    const other = await challengeFor({ ...fields, amount: (Number(amount) + 1).toFixed(2) });
    const crossed = await moneyInAction(
      member,
      "confirm",
      formOf({ ...fields, agree: "yes", authorization_text: confirm.authorization_text, passkey_response: other }),
      origin,
    );
    expect(crossed.status).toBe(422);
    expect(await db.select().from(moneyInPulls).where(eq(moneyInPulls.member_id, member.id))).toHaveLength(0);

    const right = await challengeFor(fields);
    const done = await moneyInAction(
      member,
      "confirm",
      formOf({ ...fields, agree: "yes", authorization_text: confirm.authorization_text, passkey_response: right }),
      origin,
    );
    expect(done.answer).toMatchObject({ step: "done" });
    expect(await db.select().from(moneyInPulls).where(eq(moneyInPulls.member_id, member.id))).toHaveLength(1);
  });
});
