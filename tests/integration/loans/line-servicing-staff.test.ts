import "../identity-support";
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import {
  auditLog,
  creditLineChanges,
  creditLines,
  notifications,
  outbox,
  type CreditLineRow,
} from "~/server/db/schema";
import { verifyLedger } from "~/server/ledger/verify.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { drawOnLine, payLine } from "~/server/loans/lines-of-credit.server";
import { runLineServicing } from "~/server/loans/line-servicing.server";
import { memberLineDetail } from "~/server/loans/line-views.server";
import {
  changeLineRate,
  closeLineByStaff,
  closeOwnLine,
  freezeLine,
  lowerLineLimit,
  staffLineView,
  unfreezeLine,
} from "~/server/loans/line-staff-actions.server";
import { seedConsent } from "~/server/electronic-delivery/electronic-delivery.server";
import { paperDeliveryMembers } from "~/server/electronic-delivery/electronic-delivery.server";
import { accrueInterest } from "~/domain/loans/servicing";
import { addCalendarDays } from "~/domain/payment-dates";
import { openTestDatabase } from "../test-database";
import { fundedMember, staff as newStaff } from "../../factories";

/**
 * Staff servicing of an open line of credit (docs/product.md#line-of-credit-servicing, issue 33):
 * a frozen line refuses draws while payments and interest go on; a closed line is repaid and then
 * shows closed and paid; an APR increase is used by the nightly job from its effective date 45 days
 * after the notice, a decrease at once; a lower limit never goes below what is owed. The member is
 * told in the app and by email, or on the paper list without consent to electronic delivery. The
 * ledger verifies after each.
 */
let database: Database;
let db: Db;
let staff: { id: string; email: string };
const origin = { request_id: "line-servicing-staff", ip: "198.51.100.36" };
const at = (day: string) => new Date(`${day}T15:00:00Z`);
const key = () => crypto.randomUUID();

beforeAll(async () => {
  database = await openTestDatabase({ pool_max: 4 });
  db = database.db;
  staff = await newStaff(db);
});
afterAll(async () => {
  await database?.close();
});
afterEach(async () => {
  expect((await verifyLedger(db)).problems).toEqual([]);
});

/** A member with an open $5,000 line at 12.5% opened on `opened_on`; `consented`: electronic delivery. */
async function openLine(opened_on: string, consented = true) {
  const funded = await fundedMember(db, { checking_cents: 2_000_00, savings_cents: 200_00 });
  if (consented) await seedConsent(db, funded.member.id, at(opened_on));
  const applied = await applyForLoan(
    db,
    funded.member,
    {
      product_slug: "line-of-credit",
      amount_cents: 5_000_00,
      term_months: null,
      purpose: "Repairs",
      annual_income_cents: 70_000_00,
      employer: "Seacoast Boatworks",
      idempotency_key: key(),
    },
    origin,
    at(opened_on),
  );
  if (!applied.ok) throw new Error(applied.message);
  const decided = await decideApplication(
    db,
    {
      staff,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: 125_000, term_months: null },
    },
    at(opened_on),
  );
  if (!decided.ok) throw new Error(decided.message);
  const accepted = await acceptOffer(db, funded.member, applied.application_id, origin, at(opened_on));
  if (!accepted.ok) throw new Error(accepted.message);
  const [line] = await db.select().from(creditLines).where(eq(creditLines.application_id, applied.application_id));
  return { ...funded, line: line! };
}

const lineRow = async (id: number): Promise<CreditLineRow> =>
  (await db.select().from(creditLines).where(eq(creditLines.id, id)))[0]!;
const draw = (o: Awaited<ReturnType<typeof openLine>>, amount_cents: number, day: string) =>
  drawOnLine(
    db,
    o.member,
    { line_id: o.line.id, to_account_id: o.checking.id, amount_cents, idempotency_key: key() },
    origin,
    at(day),
  );
const pay = (o: Awaited<ReturnType<typeof openLine>>, amount: Parameters<typeof payLine>[2]["amount"], day: string) =>
  payLine(
    db,
    o.member,
    { line_id: o.line.id, from_account_id: o.checking.id, amount, idempotency_key: key() },
    origin,
    at(day),
  );
const emailsTo = async (email: string) => db.select().from(outbox).where(eq(outbox.to_email, email));

describe("freezing a line's draws", () => {
  it("refuses a draw while payments and interest go on; told in the app and by email; unfrozen, draws again", async () => {
    const o = await openLine("2026-03-02");
    expect(await draw(o, 1_000_00, "2026-03-02")).toMatchObject({ ok: true });
    const before = await lineRow(o.line.id);
    expect(
      await freezeLine(db, { staff, origin, line_id: o.line.id, reason: "nonsense", note: "x" }, at("2026-03-05")),
    ).toMatchObject({ ok: false, field: "reason" });
    expect(
      await freezeLine(db, { staff, origin, line_id: o.line.id, reason: "fraud", note: "  " }, at("2026-03-05")),
    ).toMatchObject({ ok: false, field: "note" });
    expect(await lineRow(o.line.id)).toEqual(before);

    const frozen = await freezeLine(
      db,
      { staff, origin, line_id: o.line.id, reason: "fraud", note: "Card testing seen on checking" },
      at("2026-03-05"),
    );
    expect(frozen).toMatchObject({ ok: true });
    expect(
      await freezeLine(db, { staff, origin, line_id: o.line.id, reason: "fraud", note: "again" }, at("2026-03-05")),
    ).toMatchObject({ ok: false, kind: "conflict" });

    const refused = await draw(o, 10_00, "2026-03-06");
    expect(refused).toMatchObject({ ok: false, kind: "conflict", message: expect.stringContaining("frozen") });
    expect(await pay(o, { kind: "amount", amount_cents: 100_00 }, "2026-03-06")).toMatchObject({ ok: true });
    const interest_before = (await lineRow(o.line.id)).accrued_interest_cents;
    await runLineServicing(db, at("2026-03-10"));
    expect((await lineRow(o.line.id)).accrued_interest_cents).toBeGreaterThan(interest_before);

    const detail = (await memberLineDetail(db, o.member.id, o.line.id, at("2026-03-10")))!;
    expect(detail.state).toBe("frozen");
    expect(detail.draws_stopped).toContain("Payments still work");
    const bell = await db.select().from(notifications).where(eq(notifications.member_id, o.member.id));
    expect(bell.map((n) => n.title)).toContain("Draws on your personal line of credit are frozen");
    const mail = await emailsTo(o.member.email);
    const freezeMail = mail.find((m) => m.subject.includes("frozen"))!;
    expect(freezeMail.text_body).toContain("suspected fraud");
    expect(freezeMail.text_body).toContain("Equal Credit Opportunity Act");
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "line.freeze"), eq(auditLog.subject_id, String(o.line.id))));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor_id).toBe(staff.id);

    expect(
      await unfreezeLine(db, { staff, origin, line_id: o.line.id, note: "Cleared" }, at("2026-03-11")),
    ).toMatchObject({
      ok: true,
    });
    expect(await draw(o, 10_00, "2026-03-11")).toMatchObject({ ok: true });
    const view = (await staffLineView(db, o.line.id, at("2026-03-11")))!;
    expect(view.history.map((h) => [h.kind, h.actor_email])).toEqual([
      ["unfreeze", staff.email],
      ["freeze", staff.email],
    ]);
  });

  it("a member on paper is told in the app and put on the paper list, not emailed", async () => {
    const o = await openLine("2026-03-02", false);
    expect(
      await freezeLine(
        db,
        { staff, origin, line_id: o.line.id, reason: "delinquency", note: "Two cycles unpaid" },
        at("2026-03-05"),
      ),
    ).toMatchObject({ ok: true });
    const [change] = await db.select().from(creditLineChanges).where(eq(creditLineChanges.line_id, o.line.id));
    expect(change!.notice_channel).toBe("mail");
    expect((await emailsTo(o.member.email)).filter((m) => m.subject.includes("frozen"))).toEqual([]);
    const paper = (await paperDeliveryMembers(db)).find((p) => p.member_id === o.member.id)!;
    expect(paper.notices_to_mail).toBeGreaterThanOrEqual(1);
  });
});

describe("closing a line", () => {
  it("by staff: no more draws, repaid under its terms, then closed and paid", async () => {
    const o = await openLine("2026-03-02");
    expect(await draw(o, 500_00, "2026-03-02")).toMatchObject({ ok: true });
    expect(
      await closeLineByStaff(
        db,
        { staff, origin, line_id: o.line.id, reason: "delinquency", note: "Charged off plan" },
        at("2026-03-09"),
      ),
    ).toMatchObject({ ok: true, message: expect.stringContaining("closed to draws") });
    expect(await draw(o, 10_00, "2026-03-10")).toMatchObject({ ok: false, message: expect.stringContaining("closed") });
    expect(
      await changeLineRate(db, { staff, origin, line_id: o.line.id, rate_ppm: 150_000, note: "x" }, at("2026-03-10")),
    ).toMatchObject({ ok: false, kind: "conflict" });
    expect((await memberLineDetail(db, o.member.id, o.line.id, at("2026-03-10")))!.state).toBe("closing");
    await runLineServicing(db, at("2026-03-12"));
    expect(await pay(o, { kind: "payoff" }, "2026-03-12")).toMatchObject({ ok: true });
    const closed = await lineRow(o.line.id);
    expect(closed).toMatchObject({ status: "closed", closed_on: "2026-03-12", closing_reason: "delinquency" });
    expect((await memberLineDetail(db, o.member.id, o.line.id, at("2026-03-12")))!.state).toBe("closed");
    // Nothing more happens to a closed line.
    await runLineServicing(db, at("2026-04-20"));
    expect(await lineRow(o.line.id)).toEqual(closed);
  });

  it("by the member: their own line only, closed at once when nothing is owed", async () => {
    const o = await openLine("2026-03-02");
    const other = await openLine("2026-03-02");
    expect(await closeOwnLine(db, other.member, o.line.id, origin, at("2026-03-04"))).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    expect((await lineRow(o.line.id)).status).toBe("active");
    expect(await closeOwnLine(db, o.member, o.line.id, origin, at("2026-03-04"))).toMatchObject({ ok: true });
    expect(await lineRow(o.line.id)).toMatchObject({ status: "closed", closing_reason: "member_request" });
    expect(await closeOwnLine(db, o.member, o.line.id, origin, at("2026-03-04"))).toMatchObject({ ok: false });
  });
});

describe("a change in terms", () => {
  it("an APR increase takes effect 45 days after its notice: the job accrues at the old rate before, the new from that day", async () => {
    const o = await openLine("2026-03-01");
    expect(await draw(o, 1_000_00, "2026-03-01")).toMatchObject({ ok: true });
    for (const [rate_ppm, message] of [
      [190_000, "The APR must be from 9.99% to 17.99% (the product's range)."],
      [125_000, "The line's APR is already 12.50%."],
    ] as const)
      expect(
        await changeLineRate(db, { staff, origin, line_id: o.line.id, rate_ppm, note: "Repricing" }, at("2026-03-10")),
      ).toMatchObject({ ok: false, field: "rate", message });
    const raised = await changeLineRate(
      db,
      { staff, origin, line_id: o.line.id, rate_ppm: 150_000, note: "Repricing after review" },
      at("2026-03-10"),
    );
    expect(raised).toMatchObject({ ok: true, message: expect.stringContaining("Apr 24, 2026") });
    expect(
      await changeLineRate(
        db,
        { staff, origin, line_id: o.line.id, rate_ppm: 160_000, note: "Again" },
        at("2026-03-11"),
      ),
    ).toMatchObject({ ok: false, field: "rate" });
    const notice = (await emailsTo(o.member.email)).find((m) => m.kind === "disclosure_notice")!;
    expect(notice.text_body).toContain("12.50% to 15.00%");
    expect(notice.text_body).toContain("1026.9(c)(2)");

    for (let day = "2026-03-02"; day <= "2026-04-23"; day = addCalendarDays(day, 1))
      await runLineServicing(db, at(day));
    expect((await lineRow(o.line.id)).rate_ppm).toBe(125_000);
    for (let day = "2026-04-24"; day <= "2026-05-10"; day = addCalendarDays(day, 1))
      await runLineServicing(db, at(day));
    const line = await lineRow(o.line.id);
    expect(line.rate_ppm).toBe(150_000);
    // March 1 to April 23 at 12.5%, April 24 to May 9 at 15%: what the job accrued night by night.
    const before = accrueInterest(1_000_00, 125_000, 54, 0);
    const after = accrueInterest(1_000_00, 150_000, 16, before.carry);
    expect(line.accrued_interest_cents).toBe(before.interest_cents + after.interest_cents);
    const [change] = await db.select().from(creditLineChanges).where(eq(creditLineChanges.line_id, o.line.id));
    expect(change).toMatchObject({ status: "in_effect", effective_on: "2026-04-24", rate_from_ppm: 125_000 });
  });

  it("an APR decrease takes effect at once; a lower limit never below what is owed", async () => {
    const o = await openLine("2026-03-01");
    expect(await draw(o, 2_000_00, "2026-03-01")).toMatchObject({ ok: true });
    expect(
      await changeLineRate(
        db,
        { staff, origin, line_id: o.line.id, rate_ppm: 99_900, note: "Loyalty" },
        at("2026-03-11"),
      ),
    ).toMatchObject({ ok: true });
    const lowered = await lineRow(o.line.id);
    expect(lowered.rate_ppm).toBe(99_900);
    expect(lowered.interest_accrued_to).toBe("2026-03-11");
    expect(lowered.accrued_interest_cents).toBe(accrueInterest(2_000_00, 125_000, 10, 0).interest_cents);

    const before = await lineRow(o.line.id);
    for (const [limit_cents, message] of [
      [2_000_00, expect.stringContaining("cannot go below what is owed")],
      [5_000_00, expect.stringContaining("lower than today's")],
      [null, "Enter the new credit limit in dollars."],
    ] as const)
      expect(
        await lowerLineLimit(
          db,
          { staff, origin, line_id: o.line.id, limit_cents, note: "Risk review" },
          at("2026-03-11"),
        ),
      ).toMatchObject({ ok: false, field: "limit", message });
    expect(await lineRow(o.line.id)).toEqual(before);
    expect(
      await lowerLineLimit(
        db,
        { staff, origin, line_id: o.line.id, limit_cents: 2_500_00, note: "Income fell" },
        at("2026-03-11"),
      ),
    ).toMatchObject({ ok: true });
    const detail = (await memberLineDetail(db, o.member.id, o.line.id, at("2026-03-11")))!;
    expect(detail.credit_limit_cents).toBe(2_500_00);
    expect(detail.available_cents).toBe(2_500_00 - detail.balance_cents);
    expect(detail.changes[0]!.summary).toBe("Credit limit lowered from $5,000.00 to $2,500.00");
    expect(detail.changes[0]!.note).toBe("Income fell");
  });
});
