import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { linkedAccounts, moneyInPulls, outbox, paymentExportFiles, users } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { postTransfer, releaseHold, reverseTransaction } from "~/server/ledger/ledger.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import type { NotificationInput } from "~/server/notifications/notifications.server";
import { recordAudit } from "~/server/audit/audit.server";
import type { Actor } from "~/domain/actor";
import { formatCents } from "~/domain/money";
import { returnReason } from "~/domain/nacha/return-file";
import { linkIdOfMicroEntry, pullIdOf, returnFailsLink, returnedEntryWasDebit } from "~/domain/money-in";
import { microDepositOffset } from "~/domain/linked-accounts";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import { cancelPendingPulls, MONEY_IN_INITIATOR } from "./money-in.server";

/**
 * Returns of the entries the credit union sends for linked accounts (docs/product.md#move-money-in):
 * a pull (a WEB debit, individual id "MI…") and the micro-deposits with their offsetting debit
 * ("LA…"). The returns reader (app/server/rails/inbound.server.ts) asks here first; an entry that
 * names neither is left to it (a payment of ours, or unmatched for staff).
 *
 * A returned pull: its availability hold (if still on) is released and its credit reversed,
 * all or nothing (a savepoint); the pull is marked returned with the code, the member told (bell
 * and email). A code saying the account cannot be used (LINK_FAILING_RETURN_CODES) fails the link
 * and cancels its pulls still waiting. If the credit cannot be reversed (the money was spent and
 * the account would go below its overdraft limit, or the account is frozen or closed) nothing
 * moves and the return waits for staff as unmatched, as a return of ours the ledger refuses does.
 *
 * A returned micro-entry: the link fails (told to the member, its waiting pulls cancelled), and
 * the entry's money is booked back against Adjustments through ACH settlement, so the books
 * balance: a returned credit brings its cents back, a returned debit means the cents were not
 * taken back after all.
 */

/** What became of a return of ours: applied (the decision's ledger transaction and account), or unmatched for staff. */
export type OwnReturn =
  { status: "applied"; transaction_id: number; account_id: number | null } | { status: "unmatched" };

export interface ReturnEntry {
  file_id: number;
  line: number;
  transaction_code: string;
  amount_cents: number;
  individual_id: string;
  return_code: string | null;
  original_trace_number: string | null;
}

/** A return of a pull or a micro-entry, or null when the entry names neither (the caller goes on). */
export async function applyLinkedAccountReturn(
  tx: DbOrTx,
  entry: ReturnEntry,
  staff: Actor,
  notes: NotificationInput[],
): Promise<OwnReturn | null> {
  const trace = entry.original_trace_number ?? "";
  if (!/^\d{15}$/.test(trace) || !trace.startsWith(institution().routing_number.slice(0, 8))) return null;
  const pull_id = pullIdOf(entry.individual_id);
  if (pull_id !== null) return applyPullReturn(tx, pull_id, trace, entry, staff, notes);
  const link_id = linkIdOfMicroEntry(entry.individual_id);
  if (link_id !== null) return applyMicroReturn(tx, link_id, trace, entry, staff, notes);
  return null;
}

async function applyPullReturn(
  tx: DbOrTx,
  pull_id: number,
  trace: string,
  entry: ReturnEntry,
  staff: Actor,
  notes: NotificationInput[],
): Promise<OwnReturn> {
  const [pull] = await tx.select().from(moneyInPulls).where(eq(moneyInPulls.id, pull_id)).for("update");
  if (
    !pull ||
    pull.status !== "sent" ||
    pull.trace_number !== trace ||
    pull.amount_cents !== entry.amount_cents ||
    !returnedEntryWasDebit(entry.transaction_code)
  )
    return { status: "unmatched" };
  const code = entry.return_code ?? "";
  const key = `ach-return:${entry.file_id}:${entry.line}`;
  // Both or neither (a savepoint): a hold released without its credit reversed would give the
  // member money twice. A ledger refusal (the money was spent, the account frozen or closed) rolls
  // both back and leaves the return unmatched for staff.
  const reversed = await inRefusableTransaction(tx, async (sp) => {
    if (pull.hold_transaction_id !== null && pull.available_at === null) {
      const released = await releaseHold(sp, {
        transaction_id: pull.hold_transaction_id,
        idempotency_key: `${key}:hold`,
        resolved_by: `staff:${staff.id}`,
      });
      if (!released.ok) return released;
    }
    return reverseTransaction(sp, {
      transaction_id: pull.credit_transaction_id,
      idempotency_key: key,
      initiator: MONEY_IN_INITIATOR,
      created_by: staff.id,
      memo: `Returned by the other bank: ${returnReason(code)} (${code})`,
    });
  });
  if (!reversed.ok) return { status: "unmatched" };
  const reversal_id = reversed.transaction.id;
  await tx
    .update(moneyInPulls)
    .set({ status: "returned", return_code: code, return_transaction_id: reversal_id, resolved_at: new Date() })
    .where(eq(moneyInPulls.id, pull.id));
  const [link] = await tx
    .select()
    .from(linkedAccounts)
    .where(eq(linkedAccounts.id, pull.linked_account_id))
    .for("update");
  const fails = returnFailsLink(code) && link !== undefined && link.status === "verified";
  if (fails) await failLink(tx, link.id, link.nickname, code);
  const told = {
    title: `Money you moved in (${formatCents(pull.amount_cents)}) was returned`,
    body:
      `${link?.nickname ?? "Your other bank"} sent back the debit: ${returnReason(code)} (${code}). ` +
      `We took the ${formatCents(pull.amount_cents)} back from your account.` +
      (fails ? ` ${link!.nickname} can no longer be used; link it again if it should be.` : ""),
  };
  notes.push({ member_id: pull.member_id, kind: "ach_returned", ...told });
  await emailMember(tx, pull.member_id, told);
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "money_in.returned",
    subject_type: "money_in_pull",
    subject_id: pull.id,
    member_id: pull.member_id,
    before: { status: "sent" },
    after: {
      status: "returned",
      return_code: code,
      transaction_id: reversal_id,
      inbound_file_id: entry.file_id,
      line: entry.line,
      ...(fails ? { linked_account_id: link!.id, link_status: "failed" } : {}),
    },
  });
  return { status: "applied", transaction_id: reversal_id, account_id: pull.account_id };
}

/**
 * The link failed because of what its bank sent back: marked failed with the code, and what was
 * asked from it and not sent is cancelled.
 */
async function failLink(tx: DbOrTx, link_id: number, nickname: string, code: string): Promise<void> {
  await tx
    .update(linkedAccounts)
    .set({ status: "failed", return_code: code, resolved_at: new Date() })
    .where(eq(linkedAccounts.id, link_id));
  await cancelPendingPulls(
    tx,
    link_id,
    `${nickname} can no longer be used (${returnReason(code)}), so the money was not taken from it and nothing was added to your account.`,
  );
}

/** The stored ACH file carried this micro-entry: its trace, individual id and amount on one entry record. */
async function fileCarried(
  tx: DbOrTx,
  file_id: number,
  trace: string,
  individual_id: string,
  amount_cents: number,
): Promise<boolean> {
  const [file] = await tx
    .select({ content: paymentExportFiles.content })
    .from(paymentExportFiles)
    .where(eq(paymentExportFiles.id, file_id));
  if (!file) return false;
  // Entry detail records (type 6): amount in columns 30-39, individual id 40-54, trace 80-94.
  return file.content
    .split(/\r?\n/)
    .some(
      (line) =>
        line.startsWith("6") &&
        line.slice(79, 94) === trace &&
        line.slice(39, 54).trim() === individual_id.trim() &&
        Number(line.slice(29, 39)) === amount_cents,
    );
}

async function applyMicroReturn(
  tx: DbOrTx,
  link_id: number,
  trace: string,
  entry: ReturnEntry,
  staff: Actor,
  notes: NotificationInput[],
): Promise<OwnReturn> {
  const [link] = await tx.select().from(linkedAccounts).where(eq(linkedAccounts.id, link_id)).for("update");
  if (!link || link.micro_file_id === null) return { status: "unmatched" };
  const was_debit = returnedEntryWasDebit(entry.transaction_code);
  const amounts = [link.micro_first_cents, link.micro_second_cents] as const;
  const expected = was_debit ? [microDepositOffset(amounts)] : [...amounts];
  if (!expected.includes(entry.amount_cents)) return { status: "unmatched" };
  if (!(await fileCarried(tx, link.micro_file_id, trace, entry.individual_id, entry.amount_cents)))
    return { status: "unmatched" };
  const code = entry.return_code ?? "";
  const adjustments = await institutionAccount(tx, "adjustments");
  const settlement = await institutionAccount(tx, "ach_settlement");
  // A returned credit: the operator gives the cents back. A returned debit: the cents were not taken back.
  const sign = was_debit ? 1 : -1;
  const booked = await postTransfer(tx, {
    // One per entry of the file: the same entry returned twice is booked once.
    idempotency_key: `micro-return:${link.id}:${trace}`,
    initiator: MONEY_IN_INITIATOR,
    kind: "adjustment",
    created_by: staff.id,
    entries: [
      { account_id: settlement.id, amount_cents: sign * entry.amount_cents },
      { account_id: adjustments.id, amount_cents: -sign * entry.amount_cents },
    ],
    memo: `Micro-${was_debit ? "debit" : "deposit"} returned (${code}), linked account ${link.id}`,
    category: "Account verification",
  });
  if (!booked.ok || booked.replayed) return { status: "unmatched" };
  const was = link.status;
  const fails = was === "pending" || was === "verified";
  if (fails) await failLink(tx, link.id, link.nickname, code);
  else if (link.return_code === null)
    await tx.update(linkedAccounts).set({ return_code: code }).where(eq(linkedAccounts.id, link.id));
  if (fails) {
    const told = {
      title: `${link.nickname} could not be verified`,
      body: `Your other bank sent back the small deposits we made to ${link.nickname} ••${link.account_last4}: ${returnReason(code)} (${code}). This account cannot be used; check the numbers and link it again.`,
    };
    notes.push({ member_id: link.member_id, kind: "ach_returned", ...told });
    await emailMember(tx, link.member_id, told);
  }
  await recordAudit(tx, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "linked_account.micro_returned",
    subject_type: "linked_account",
    subject_id: link.id,
    member_id: link.member_id,
    before: { status: was },
    after: {
      status: fails ? "failed" : was,
      return_code: code,
      entry: was_debit ? "debit" : "credit",
      amount_cents: entry.amount_cents,
      transaction_id: booked.transaction.id,
      inbound_file_id: entry.file_id,
      line: entry.line,
    },
  });
  return { status: "applied", transaction_id: booked.transaction.id, account_id: null };
}

/**
 * The same words by email, queued in the return's own transaction (never lost, never sent
 * without it); the outbox delivery job sends it.
 */
async function emailMember(tx: DbOrTx, member_id: string, told: { title: string; body: string }): Promise<void> {
  const [member] = await tx
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.id, member_id)));
  if (!member) return;
  const profile = institution();
  await tx.insert(outbox).values({
    to_email: member.email.trim().toLowerCase(),
    subject: told.title,
    text_body: `${told.body}\n\nSee Move money in under Linked accounts in online banking.\n\n${profile.name}\n${profile.support_email} · ${profile.support_phone}`,
    kind: "money_in",
    user_id: member_id,
  });
}
