import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { paymentControls } from "~/server/db/schema";

/**
 * The staff switch that pauses every outgoing external payment (docs/product.md#refusals:
 * "Transaction Denied" / "All transactions temporarily suspended"). One row, id 1, created by the
 * migration. The back office sets it (`setOutgoingPaymentsPaused`); the member app reads it per
 * request.
 */
export interface PaymentControls {
  outgoing_paused: boolean;
  reason: string | null;
  updated_by: string | null;
  updated_at: Date | null;
}

export async function paymentControlsState(db: DbOrTx): Promise<PaymentControls> {
  const [row] = await db.select().from(paymentControls).where(eq(paymentControls.id, 1));
  if (!row) return { outgoing_paused: false, reason: null, updated_by: null, updated_at: null };
  return {
    outgoing_paused: row.outgoing_paused,
    reason: row.reason,
    updated_by: row.updated_by,
    updated_at: row.updated_at,
  };
}

export async function outgoingPaymentsPaused(db: DbOrTx): Promise<boolean> {
  return (await paymentControlsState(db)).outgoing_paused;
}

export async function setOutgoingPaymentsPaused(
  db: DbOrTx,
  input: { paused: boolean; reason?: string | null; updated_by: string },
): Promise<void> {
  await db
    .insert(paymentControls)
    .values({ id: 1, outgoing_paused: input.paused, reason: input.reason ?? null, updated_by: input.updated_by })
    .onConflictDoUpdate({
      target: paymentControls.id,
      set: {
        outgoing_paused: input.paused,
        reason: input.reason ?? null,
        updated_by: input.updated_by,
        updated_at: sql`now()`,
      },
    });
}
