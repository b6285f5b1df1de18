import { desc, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { glEntryRequests, type GlEntryRequest } from "~/server/db/schema";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { transferEntries } from "~/domain/ledger-rules";
import { refusal, type Refusal } from "~/domain/refusals";
import { GL_MESSAGES, type GlAccount } from "~/domain/books";
import type { Actor } from "~/domain/actor";

/**
 * General-ledger entries between institution accounts under dual control
 * (docs/product.md#books, docs/security.md#dual-control): proposing writes a request and moves
 * nothing; a second person (an accountant or staff, never the proposer) approves it, which posts
 * it through the ledger in the same transaction, or rejects it with a reason. Each step is audited.
 */

export async function proposeGlEntry(
  db: Db,
  input: {
    debit_account: GlAccount;
    credit_account: GlAccount;
    amount_cents: number;
    memo: string;
    staff: Actor;
    origin: AuditOrigin;
  },
): Promise<{ id: number }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(glEntryRequests)
      .values({
        debit_account: input.debit_account,
        credit_account: input.credit_account,
        amount_cents: input.amount_cents,
        memo: input.memo,
        requested_by: input.staff.id,
        requested_by_email: input.staff.email,
      })
      .returning({ id: glEntryRequests.id });
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "books.gl_entry.propose",
      subject_type: "gl_entry",
      subject_id: row!.id,
      after: {
        debit_account: input.debit_account,
        credit_account: input.credit_account,
        amount_cents: input.amount_cents,
        memo: input.memo,
      },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    });
    return { id: row!.id };
  });
}

export type GlDecision =
  | { ok: true; status: "posted" | "rejected"; message: string }
  | Refusal<"not_found" | "already_decided" | "own_entry" | "ledger_refused">;

export async function decideGlEntry(
  db: Db,
  input: { entry_id: number; decision: "approve" | "reject"; reason?: string; staff: Actor; origin: AuditOrigin },
): Promise<GlDecision> {
  const { staff, origin } = input;
  return inRefusableTransaction<GlDecision>(db, async (tx) => {
    const [entry] = await tx.select().from(glEntryRequests).where(eq(glEntryRequests.id, input.entry_id)).for("update");
    if (!entry) refuse(refusal("not_found", GL_MESSAGES.not_found, { code: "not_found" as const }));
    if (entry.status !== "awaiting_approval")
      refuse(refusal("conflict", GL_MESSAGES.already_decided, { code: "already_decided" as const }));
    if (entry.requested_by === staff.id)
      refuse(refusal("forbidden", GL_MESSAGES.own_entry, { code: "own_entry" as const }));
    const decided = { decided_by: staff.id, decided_by_email: staff.email, decided_at: new Date() };
    const audit = {
      actor_id: staff.id,
      actor_email: staff.email,
      subject_type: "gl_entry",
      subject_id: entry.id,
      request_id: origin.request_id,
      ip: origin.ip,
    };
    if (input.decision === "reject") {
      await tx
        .update(glEntryRequests)
        .set({ ...decided, status: "rejected", reject_reason: input.reason ?? "" })
        .where(eq(glEntryRequests.id, entry.id));
      await recordAudit(tx, {
        ...audit,
        action: "books.gl_entry.reject",
        before: { status: entry.status, requested_by: entry.requested_by },
        after: { status: "rejected", reason: input.reason },
      });
      return { ok: true as const, status: "rejected" as const, message: GL_MESSAGES.rejected };
    }
    const debit = await institutionAccount(tx, entry.debit_account as GlAccount);
    const credit = await institutionAccount(tx, entry.credit_account as GlAccount);
    const posted = await postTransfer(tx, {
      // One key per entry: an approval repeated can never post it twice.
      idempotency_key: `gl-entry-${entry.id}`,
      initiator: "books:gl",
      kind: "adjustment",
      category: "general_ledger",
      entries: transferEntries(debit.id, credit.id, entry.amount_cents),
      created_by: staff.id,
      memo: entry.memo,
      reference: `GL entry ${entry.id}`,
    });
    if (!posted.ok)
      refuse(
        refusal("conflict", `Failed: the ledger refused the entry (${posted.code}).`, {
          code: "ledger_refused" as const,
        }),
      );
    await tx
      .update(glEntryRequests)
      .set({ ...decided, status: "posted", transaction_id: posted.transaction.id })
      .where(eq(glEntryRequests.id, entry.id));
    await recordAudit(tx, {
      ...audit,
      action: "books.gl_entry.approve",
      before: { status: entry.status, requested_by: entry.requested_by },
      after: { status: "posted", transaction_id: posted.transaction.id, amount_cents: entry.amount_cents },
    });
    return { ok: true as const, status: "posted" as const, message: GL_MESSAGES.approved };
  });
}

/** The newest entries first: those waiting, then the decided ones, for the entries page. */
export async function listGlEntries(db: Db, limit = 50): Promise<GlEntryRequest[]> {
  return db.select().from(glEntryRequests).orderBy(desc(glEntryRequests.id)).limit(limit);
}
