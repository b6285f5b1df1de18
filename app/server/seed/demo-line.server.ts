import crypto from "node:crypto";
import { count, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { creditLines, loanApplications, users } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { drawOnLine, payLine } from "~/server/loans/lines-of-credit.server";
import { runLineServicing } from "~/server/loans/line-servicing.server";
import { loanProduct } from "~/server/loans/products.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { businessDate } from "~/domain/ledger-rules";
import { addMonths, monthOfDate } from "~/domain/statements";

/**
 * The demo's line of credit (demo mode): Priya Shah's personal line of credit, opened on the 5th
 * three months ago with a draw into checking, a payment and a second draw since, so the demo shows
 * a line with its closed billing cycles and their periodic statements
 * (docs/product.md#line-statements). Made through the line's own code with the dates set back, as
 * the demo's loan is (./demo-loan.server.ts): applied, approved by the demo's staff, accepted,
 * drawn and paid, then serviced on each of those days and today (interest, each cycle's close and
 * minimum). Only on a demo with no line yet: the servicing run set back in time would otherwise
 * touch other members' lines.
 */
const DEMO_BORROWER = "priya.shah@harborview.example";
const DEMO_STAFF = "staff@harborview.example";
const origin = { request_id: "demo-seed", ip: "127.0.0.1" };

export async function seedDemoLine(db: Db, now: Date = new Date()): Promise<boolean> {
  if (!institution().demo || !loanProduct("line-of-credit")) return false;
  const [priya] = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(eq(users.email, DEMO_BORROWER));
  const [staff] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, DEMO_STAFF));
  if (!priya || !staff) return false;
  const [{ n: lines_before } = { n: 0 }] = await db.select({ n: count() }).from(creditLines);
  const [earlier] = await db
    .select({ id: loanApplications.id })
    .from(loanApplications)
    .where(eq(loanApplications.member_id, priya.id))
    .limit(1);
  if (lines_before > 0 || earlier) return false;
  const checking = (await memberAccounts(db, priya.id)).find((a) => a.type === "checking");
  if (!checking) return false;

  const today = businessDate(institution().time_zone, now);
  const opened_on = `${addMonths(monthOfDate(today), -3)}-05`;
  const on = (day: string) => new Date(`${day}T15:00:00Z`);
  const applied = await applyForLoan(
    db,
    priya,
    {
      product_slug: "line-of-credit",
      amount_cents: 5_000_00,
      term_months: null,
      purpose: "Home repairs as they come up",
      annual_income_cents: 82_000_00,
      employer: "Portsmouth Regional Hospital",
      idempotency_key: crypto.randomUUID(),
    },
    origin,
    on(opened_on),
  );
  if (!applied.ok) throw new Error(`demo line: ${applied.message}`);
  const product = loanProduct("line-of-credit")!;
  const decided = await decideApplication(
    db,
    {
      staff,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: product.rate_min_ppm, term_months: null },
    },
    on(opened_on),
  );
  if (!decided.ok) throw new Error(`demo line: ${decided.message}`);
  const accepted = await acceptOffer(db, priya, applied.application_id, origin, on(opened_on));
  if (!accepted.ok) throw new Error(`demo line: ${accepted.message}`);
  const [line] = await db
    .select({ id: creditLines.id })
    .from(creditLines)
    .where(eq(creditLines.application_id, applied.application_id));

  // The line's days: each in order, the nightly servicing first (interest, a cycle's close), then
  // what Priya did that day. The carried fraction makes a run of many days accrue what the nights
  // one by one would have.
  const draw = (amount_cents: number) => async (day: string) => {
    const answer = await drawOnLine(
      db,
      priya,
      { line_id: line!.id, to_account_id: checking.id, amount_cents, idempotency_key: `demo-line-draw-${day}` },
      origin,
      on(day),
    );
    if (!answer.ok) throw new Error(`demo line: ${answer.message}`);
  };
  const pay = (amount_cents: number) => async (day: string) => {
    const answer = await payLine(
      db,
      priya,
      {
        line_id: line!.id,
        from_account_id: checking.id,
        amount: { kind: "amount", amount_cents },
        idempotency_key: `demo-line-payment-${day}`,
      },
      origin,
      on(day),
    );
    if (!answer.ok) throw new Error(`demo line: ${answer.message}`);
  };
  const days: [string, ((day: string) => Promise<void>) | null][] = [
    [opened_on, draw(1_200_00)],
    [`${addMonths(monthOfDate(today), -2)}-05`, null],
    [`${addMonths(monthOfDate(today), -2)}-20`, pay(150_00)],
    [`${addMonths(monthOfDate(today), -1)}-05`, null],
    [`${addMonths(monthOfDate(today), -1)}-12`, draw(300_00)],
    [`${addMonths(monthOfDate(today), -1)}-25`, pay(100_00)],
  ];
  for (const [day, act] of days.filter(([d]) => d < today)) {
    if (day > opened_on) await runLineServicing(db, on(day));
    await act?.(day);
  }
  await runLineServicing(db, on(today));
  return true;
}
