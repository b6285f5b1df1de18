import { and, asc, eq, lte } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { creditLineChanges, creditLines, type CreditLineChangeRow, type CreditLineRow } from "~/server/db/schema";

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
