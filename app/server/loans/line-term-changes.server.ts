import { and, asc, eq, lte } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { creditLineChanges, creditLines, type CreditLineChangeRow, type CreditLineRow } from "~/server/db/schema";
import type { RateFrom } from "~/domain/loans/line-statement";

/**
 * An APR change in effect from its day (docs/product.md#line-of-credit-servicing): the line's
 * interest accrual (./lines-of-credit.server.ts accrueTo) asks for the changes due by the day it
 * accrues to, accrues the days before each change's effective date at the rate then, and puts the
 * change in effect before going on. So the nightly job, a draw or a payment all use the new rate
 * from its day, whichever reaches the line first. Imports only the schema: the line's module
 * imports this one.
 */

/** The line's scheduled APR changes effective on or before `to`, in the order they take effect. */
export async function rateChangesDue(db: DbOrTx, line_id: number, to: string): Promise<CreditLineChangeRow[]> {
  return db
    .select()
    .from(creditLineChanges)
    .where(
      and(
        eq(creditLineChanges.line_id, line_id),
        eq(creditLineChanges.kind, "rate"),
        eq(creditLineChanges.status, "scheduled"),
        lte(creditLineChanges.effective_on, to),
      ),
    )
    .orderBy(asc(creditLineChanges.effective_on), asc(creditLineChanges.id));
}

/** The line's APR becomes the change's (the caller holds the line's lock and accrued to its day). */
export async function putRateInEffect(
  db: DbOrTx,
  line: CreditLineRow,
  change: CreditLineChangeRow,
): Promise<CreditLineRow> {
  await db.update(creditLineChanges).set({ status: "in_effect" }).where(eq(creditLineChanges.id, change.id));
  const [after] = await db
    .update(creditLines)
    .set({ rate_ppm: change.rate_to_ppm! })
    .where(eq(creditLines.id, line.id))
    .returning();
  return after!;
}

/**
 * The line's APR by the day each took effect, oldest first: its rate at opening, then each change
 * put in effect on its effective day (what the accrual used, day by day; a change still scheduled
 * has not applied to any day yet). For the statement's periodic rates (1026.7(b)(4)).
 */
export async function lineRates(db: DbOrTx, line: CreditLineRow): Promise<RateFrom[]> {
  const changes = await db
    .select()
    .from(creditLineChanges)
    .where(
      and(
        eq(creditLineChanges.line_id, line.id),
        eq(creditLineChanges.kind, "rate"),
        eq(creditLineChanges.status, "in_effect"),
      ),
    )
    .orderBy(asc(creditLineChanges.effective_on), asc(creditLineChanges.id));
  if (changes.length === 0) return [{ from: line.opened_on, rate_ppm: line.rate_ppm }];
  return [
    { from: line.opened_on, rate_ppm: changes[0]!.rate_from_ppm! },
    ...changes.map((c) => ({ from: c.effective_on, rate_ppm: c.rate_to_ppm! })),
  ];
}
