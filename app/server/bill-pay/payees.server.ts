import type { Actor } from "~/domain/actor";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { billPayees, type BillPayee } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { maskPayeeAccount, type PayeeForm } from "~/domain/bill-pay";

import { type BillPayResult, refused, inTransaction, lockMember, findOrSavePayee } from "./bill-pay.server";

/**
 * A member's saved payees (docs/product.md#bill-pay): the list, adding one (or finding the same
 * one saved), removing one; payments already scheduled to a removed payee stay scheduled.
 */
export interface PayeeView {
  id: number;
  name: string;
  masked_account: string;
  address: string | null;
}

function payeeView(p: BillPayee): PayeeView {
  return { id: p.id, name: p.name, masked_account: maskPayeeAccount(p.account_number), address: p.address };
}

export async function listPayees(db: DbOrTx, member_id: string): Promise<PayeeView[]> {
  const rows = await db
    .select()
    .from(billPayees)
    .where(and(eq(billPayees.member_id, member_id), isNull(billPayees.removed_at)))
    .orderBy(asc(billPayees.name), asc(billPayees.id));
  return rows.map(payeeView);
}

export async function addPayee(
  db: Db,
  member: Actor,
  form: PayeeForm,
  origin: AuditOrigin,
): Promise<BillPayResult<{ payee: PayeeView; created: boolean }>> {
  return inTransaction(db, async (tx) => {
    await lockMember(tx, member.id);
    const saved = await findOrSavePayee(tx, member, form, origin);
    return saved.ok ? { ok: true, payee: payeeView(saved.payee), created: saved.created } : saved;
  });
}

/** Removes a saved payee from the list (kept for the history); its scheduled payments stay. */
export async function removePayee(
  db: Db,
  member: Actor,
  payee_id: number,
  origin: AuditOrigin,
): Promise<BillPayResult<{ name: string }>> {
  return inTransaction(db, async (tx) => {
    const [payee] = await tx.select().from(billPayees).where(eq(billPayees.id, payee_id)).for("update");
    if (!payee || payee.member_id !== member.id || payee.removed_at)
      return refused("This payee was not found.", undefined, "not_found");
    await tx.update(billPayees).set({ removed_at: new Date() }).where(eq(billPayees.id, payee.id));
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "bill_pay.payee_remove",
      subject_type: "bill_payee",
      subject_id: payee.id,
      member_id: member.id,
      before: { name: payee.name },
      request_id: origin.request_id,
      ip: origin.ip,
    });
    return { ok: true, name: payee.name };
  });
}
