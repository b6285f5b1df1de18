import "../admin-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { creditLines, loans } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import * as indexRoute from "~/routes/admin/index";
import { person } from "../admin-support";
import { openTestDatabase } from "../test-database";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * A member's loans and lines of credit on their page in the back office
 * (docs/product.md#member-details): staff and reviewers see each booked loan and line, named with
 * its state and linked to its page, and no figures; a member without any sees "none"; members,
 * applicants, accountants and visitors are sent away from the page as before.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "accountant" | "staff";
const SENT_AWAY = ["anonymous", "applicant", "member", "other_member", "accountant"] as const;

let database: Database;
let people: SignedIn<Persona>;
let member_id = "";
let other_member_id = "";
let loan_id = 0;
let line_id = 0;
const origin = { request_id: "setup", ip: "203.0.113.1" };
const context = routeContext({ request_id: "member-loans-matrix", ip: "203.0.113.85" });

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 50_000 }, other_member: { checking_cents: 50_000 } });
  member_id = cast.member.member.id;
  other_member_id = cast.other_member.member.id;
  // The factory's members have placeholder application fields that do not decrypt: cleared.
  await db.execute(
    sql`update member_profiles set date_of_birth_enc = null, id_number_enc = null where user_id in (${member_id}, ${other_member_id})`,
  );
  const book = async (product_slug: string, amount_cents: number, term_months: number | null, rate_ppm: number) => {
    const applied = await applyForLoan(
      db,
      cast.member.member,
      {
        product_slug,
        amount_cents,
        term_months,
        purpose: "Repairs",
        annual_income_cents: 60_000_00,
        employer: "Lakeside Clinic",
        idempotency_key: crypto.randomUUID(),
      },
      origin,
    );
    if (!applied.ok) throw new Error(applied.message);
    const decided = await decideApplication(db, {
      staff: cast.staff,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm, term_months },
    });
    if (!decided.ok) throw new Error(decided.message);
    const accepted = await acceptOffer(db, cast.member.member, applied.application_id, origin);
    if (!accepted.ok) throw new Error(accepted.message);
    return applied.application_id;
  };
  const loan_application = await book("personal", 4_000_00, 36, 89_900);
  loan_id = (await db.select().from(loans).where(eq(loans.application_id, loan_application)))[0]!.id;
  const line_application = await book("line-of-credit", 3_000_00, null, 129_900);
  line_id = (await db.select().from(creditLines).where(eq(creditLines.application_id, line_application)))[0]!.id;
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    accountant: (await person(db, "accountant")).id,
    applicant: cast.applicant.id,
    member: member_id,
    other_member: other_member_id,
  });
});
afterAll(async () => {
  await database?.close();
});

const path = (id: string) => `/admin?index&member=${id}`;
const load = (persona: Persona, id = member_id) =>
  run(() => indexRoute.loader({ request: people.get(persona, path(id)), params: {}, context: context() } as never));

describe("a member's loans on their back-office page", () => {
  for (const persona of ["staff", "reviewer"] as const)
    it(`${persona} sees each loan and line, linked by id, with its state and no figures`, async () => {
      const outcome = await load(persona);
      expect(outcome.kind).toBe("ok");
      const credit = (outcome.value as { member: { credit: unknown } }).member.credit;
      expect(credit).toEqual({
        loans: [
          { id: loan_id, number: expect.stringMatching(/^L-\d{6}$/), product_name: "Personal Loan", status: "active" },
        ],
        lines: [
          {
            id: line_id,
            number: expect.stringMatching(/^LC-\d{6}$/),
            product_name: "Personal Line of Credit",
            state: "open",
          },
        ],
      });
      // Names and states only: not the amount lent, the limit or the member's name again.
      for (const field of ["principal_cents", "credit_limit_cents", "member_name", "disbursed_on"])
        expect(JSON.stringify(credit)).not.toContain(field);
    });

  it("a member without loans has an empty list", async () => {
    const outcome = await load("staff", other_member_id);
    expect((outcome.value as { member: { credit: unknown } }).member.credit).toEqual({ loans: [], lines: [] });
  });

  for (const persona of SENT_AWAY)
    it(`${persona} is sent away and sees none of it`, async () => {
      const outcome = await load(persona);
      expectSentAway(outcome, persona, "/admin");
      expect(outcome.body).not.toContain("Personal Loan");
      expect(outcome.body).not.toContain("Line of Credit");
    });
});
