import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db } from "~/server/db/client.server";
import { creditLines, loans } from "~/server/db/schema";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { drawOnLine } from "~/server/loans/lines-of-credit.server";
import { expect } from "vitest";
import type { matrixCast, Outcome } from "../authorization-matrix";

/**
 * A booked loan and an open line of credit for the loan tests: the member applies, staff approve,
 * the member accepts, each step through the services as the pages do, at `at` (now when not
 * given). A step refused fails the set-up with its message.
 */

type Cast = Awaited<ReturnType<typeof matrixCast>>;
type Staff = Cast["staff"];

export const SETUP_ORIGIN = { request_id: "setup", ip: "203.0.113.1" };

/** The member's application: a loan's amount and term, or a line's credit limit (term null). */
export async function applyFor(
  db: Db,
  member: Actor,
  request: { product_slug: string; amount_cents: number; term_months: number | null },
  at?: Date,
): Promise<number> {
  const applied = await applyForLoan(
    db,
    member,
    {
      ...request,
      purpose: "Car repairs",
      annual_income_cents: 48_000_00,
      employer: "Lakeside Clinic",
      idempotency_key: crypto.randomUUID(),
    },
    SETUP_ORIGIN,
    at,
  );
  if (!applied.ok) throw new Error(applied.message);
  return applied.application_id;
}

/** Staff approve the application at `rate_ppm` (a loan for `term_months`, a line with none). */
export async function approve(
  db: Db,
  staff: Staff,
  application_id: number,
  decision: { rate_ppm: number; term_months: number | null },
  at?: Date,
): Promise<void> {
  const decided = await decideApplication(
    db,
    { staff, origin: SETUP_ORIGIN, application_id, decision: { outcome: "approve", ...decision } },
    at,
  );
  if (!decided.ok) throw new Error(decided.message);
}

async function accept(db: Db, member: Actor, application_id: number, at?: Date): Promise<void> {
  const accepted = await acceptOffer(db, member, application_id, SETUP_ORIGIN, at);
  if (!accepted.ok) throw new Error(accepted.message);
}

/** The cast's member's personal loan, booked: $4,000 over 24 months at 7.99% unless told. */
export async function bookLoan(
  db: Db,
  cast: Cast,
  {
    amount_cents = 4_000_00,
    term_months = 24,
    rate_ppm = 79_900,
    at,
  }: { amount_cents?: number; term_months?: number; rate_ppm?: number; at?: Date } = {},
): Promise<number> {
  const member = cast.member.member;
  const application_id = await applyFor(db, member, { product_slug: "personal", amount_cents, term_months }, at);
  await approve(db, cast.staff, application_id, { rate_ppm, term_months }, at);
  await accept(db, member, application_id, at);
  return (await db.select().from(loans).where(eq(loans.application_id, application_id)))[0]!.id;
}

/**
 * The cast's member's line of credit, open: a $3,000 limit at 12.99% unless told, and `draw_cents`
 * drawn into their checking the same day when given.
 */
export async function openLine(
  db: Db,
  cast: Cast,
  {
    credit_limit_cents = 3_000_00,
    rate_ppm = 129_900,
    draw_cents,
    at,
  }: { credit_limit_cents?: number; rate_ppm?: number; draw_cents?: number; at?: Date } = {},
): Promise<number> {
  const member = cast.member.member;
  const application_id = await applyFor(
    db,
    member,
    { product_slug: "line-of-credit", amount_cents: credit_limit_cents, term_months: null },
    at,
  );
  await approve(db, cast.staff, application_id, { rate_ppm, term_months: null }, at);
  await accept(db, member, application_id, at);
  const line_id = (await db.select().from(creditLines).where(eq(creditLines.application_id, application_id)))[0]!.id;
  if (draw_cents) {
    const drew = await drawOnLine(
      db,
      member,
      {
        line_id,
        to_account_id: cast.member.checking.id,
        amount_cents: draw_cents,
        idempotency_key: crypto.randomUUID(),
      },
      SETUP_ORIGIN,
      at,
    );
    if (!drew.ok) throw new Error(drew.message);
  }
  return line_id;
}

/** The matrix's people by persona (user ids), for SignedIn.as: add the others a test needs. */
export function castPeople(cast: Cast) {
  return {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
    other_member: cast.other_member.member.id,
  };
}

/** The member's statement PDF as downloaded: a private attachment under its name, a PDF indeed. */
export async function expectStatementPdf(result: Outcome, file_name: string): Promise<void> {
  expect(result.status).toBe(200);
  const response = result.value as Response;
  expect(response.headers.get("content-type")).toBe("application/pdf");
  expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${file_name}"`);
  expect(response.headers.get("cache-control")).toBe("private, no-store");
  expect(
    Buffer.from(await response.arrayBuffer())
      .subarray(0, 5)
      .toString(),
  ).toBe("%PDF-");
}
