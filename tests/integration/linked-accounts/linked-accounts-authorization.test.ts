import "../admin-support";
import { describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import { auditLog, linkedAccounts } from "~/server/db/schema";
import * as linkedRoute from "~/routes/member/linked-accounts";
import { itKeepsToTheMember, memberOwnMatrix, MEMBER_OWN_PERSONAS } from "../authorization-matrix";
import { RAINY_DAY_ACCOUNT_NUMBER, rainyDayLink } from "./linked-support";

/**
 * Who may see and change linked accounts (docs/product.md#linked-accounts): a signed-in member,
 * their own only. A visitor is sent to sign in; an applicant, a reviewer and staff are sent to
 * their own home (the page) or refused (a post); another member sees none of the member's and
 * cannot confirm or remove them ("not found"). A refused request changes nothing.
 */
const ORIGIN = { request_id: "linked-matrix-0001", ip: "203.0.113.92" };
const PATH = "/dashboard/linked-accounts";
const matrix = memberOwnMatrix({
  path: PATH,
  route: linkedRoute,
  request: { request_id: "linked-matrix-0002", ip: "203.0.113.93" },
  prepare: (db, member, cast) => rainyDayLink(db, member.member, cast.staff, ORIGIN, { verified: false }),
});
const post = matrix.post;
/** The member's link, set in the matrix's beforeAll. */
const link_id = () => String(matrix.prepared.link_id);

async function state() {
  const db = matrix.database.db;
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
  itKeepsToTheMember(matrix, PATH, {
    sees: (persona, result) => {
      const data = result.value as { accounts: { id: number }[] };
      expect(data.accounts.some((a) => a.id === matrix.prepared.link_id)).toBe(persona === "member");
      if (persona === "other_member") expect(result.body).not.toContain("Rainy day");
      // Never the full account number, not even to its owner.
      expect(result.body).not.toContain(RAINY_DAY_ACCOUNT_NUMBER);
    },
    posts: [
      {
        intent: "confirm",
        form: () => {
          const [first, second] = matrix.prepared.amounts;
          return { id: link_id(), first: cents(first), second: cents(second) };
        },
      },
      { intent: "remove", form: () => ({ id: link_id() }) },
    ],
    state,
    hides: "Rainy day",
  });

  for (const persona of MEMBER_OWN_PERSONAS.filter((p) => p !== "member" && p !== "other_member")) {
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
    expect((await post("member", { intent: "confirm", id: link_id(), first: "1.50", second: "0.10" })).status).toBe(
      400,
    );
    expect((await post("member", { intent: "delete", id: link_id() })).status).toBe(400);
    expect((await post("member", { intent: "remove", id: "x" })).status).toBe(404);
    expect(await state()).toEqual(before);
  });

  it("the member links, confirms and removes their own, each audited with the request", async () => {
    expect((await post("member", LINK)).value).toMatchObject({ ok: true, intent: "link" });
    const confirmed = await post("member", {
      intent: "confirm",
      id: link_id(),
      first: cents(matrix.prepared.amounts[1]),
      second: cents(matrix.prepared.amounts[0]),
    });
    expect(confirmed.value).toMatchObject({ ok: true, intent: "confirm" });
    expect((await post("member", { intent: "remove", id: link_id() })).value).toMatchObject({ ok: true });
    const audit = await matrix.database.db.select().from(auditLog);
    expect(
      audit
        .filter((a) => a.action.startsWith("linked_account.") && a.request_id === "linked-matrix-0002")
        .map((a) => a.action),
    ).toEqual(["linked_account.link", "linked_account.confirm_verified", "linked_account.remove"]);
  });
});
