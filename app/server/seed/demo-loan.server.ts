import crypto from "node:crypto";
import { count, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { loanApplications, loans, users } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { applyForLoan, decideApplication } from "~/server/loans/applications.server";
import { acceptOffer } from "~/server/loans/offer-acceptance.server";
import { runLoanServicing, setAutopay } from "~/server/loans/servicing.server";
import { loanProduct } from "~/server/loans/products.server";
import { memberAccounts } from "~/server/ledger/accounts.server";
import { businessDate } from "~/domain/ledger-rules";
import { addMonths, monthBounds, monthOfDate } from "~/domain/statements";

/**
 * The demo's loan (demo mode): Sam Okafor's personal loan, paid out on the 10th three months ago
 * with autopay from checking, so the demo shows a loan with its history, its payments and its
 * monthly statements (docs/product.md#loan-statements). Made through the loan code itself with the
 * dates set back: applied, approved by the demo's staff, accepted, then serviced on each due date
 * and today (interest accrued, autopay taken). Only on a demo with no loan yet: the servicing runs
 * set back in time would otherwise touch other members' loans.
 */
const DEMO_BORROWER = "sam.okafor@harborview.example";
const DEMO_STAFF = "staff@harborview.example";
const origin = { request_id: "demo-seed", ip: "127.0.0.1" };

export async function seedDemoLoan(db: Db, now: Date = new Date()): Promise<boolean> {
  if (!institution().demo || !loanProduct("personal")) return false;
  const [sam] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, DEMO_BORROWER));
  const [staff] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, DEMO_STAFF));
  if (!sam || !staff) return false;
  const [{ n: booked_before } = { n: 0 }] = await db.select({ n: count() }).from(loans);
  const [earlier] = await db
    .select({ id: loanApplications.id })
    .from(loanApplications)
    .where(eq(loanApplications.member_id, sam.id))
    .limit(1);
  if (booked_before > 0 || earlier) return false;
  const checking = (await memberAccounts(db, sam.id)).find((a) => a.type === "checking");
  if (!checking) return false;

  const today = businessDate(institution().time_zone, now);
  const paid_out = `${addMonths(monthOfDate(today), -3)}-10`;
  const on = (day: string) => new Date(`${day}T15:00:00Z`);
  const applied = await applyForLoan(
    db,
    sam,
    {
      product_slug: "personal",
      amount_cents: 6_000_00,
      term_months: 36,
      purpose: "Replacing the car's engine",
      annual_income_cents: 64_000_00,
      employer: "Seacoast Boatworks",
      idempotency_key: crypto.randomUUID(),
    },
    origin,
    on(paid_out),
  );
  if (!applied.ok) throw new Error(`demo loan: ${applied.message}`);
  const decided = await decideApplication(
    db,
    {
      staff,
      origin,
      application_id: applied.application_id,
      decision: { outcome: "approve", rate_ppm: 89_900, term_months: 36 },
    },
    on(paid_out),
  );
  if (!decided.ok) throw new Error(`demo loan: ${decided.message}`);
  const accepted = await acceptOffer(db, sam, applied.application_id, origin, on(paid_out));
  if (!accepted.ok) throw new Error(`demo loan: ${accepted.message}`);
  const [loan] = await db.select({ id: loans.id }).from(loans).where(eq(loans.application_id, applied.application_id));
  await setAutopay(db, sam, loan!.id, checking.id, origin, on(paid_out));
  // The nights since, in a few runs: each accrues every day since the last (the carried fraction
  // makes a run of many days accrue what the nights one by one would have), on a due date takes
  // the autopay, and on a month's last day leaves the month's end as the nightly job would, for
  // its statement. The nightly job goes on from today.
  const days: string[] = [];
  for (let n = 0; n <= 3; n++) {
    const month = addMonths(monthOfDate(paid_out), n);
    days.push(`${month}-10`, monthBounds(month).end);
  }
  for (const day of days.filter((d) => d > paid_out && d < today).sort()) await runLoanServicing(db, on(day));
  await runLoanServicing(db, on(today));
  return true;
}
