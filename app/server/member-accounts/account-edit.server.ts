import type { StaffRefusal } from "~/domain/member-accounts";
import { inRefusableTransaction, refuse } from "~/server/db/refusable-transaction.server";
import { refusal } from "~/domain/refusals";
import { and, eq, inArray, ne } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, memberAccountSettings } from "~/server/db/schema";
import { recordAudit } from "~/server/audit/audit.server";
import { notify } from "~/server/notifications/notifications.server";
import { routingNumber, setAccountStatus } from "~/server/ledger/accounts.server";
import { blockCardsOfClosedAccount, lockWorkingCardsOfAccount } from "~/server/cards/cards.server";
import {
  ACCOUNT_NOT_FOUND,
  ACCOUNT_NUMBER_TAKEN_MESSAGE,
  ACCOUNT_STATUS_LABELS,
  ACCOUNT_UPDATE_FAILED,
  type AccountEdit,
} from "~/domain/member-accounts";
import { accountLabel, accountOfMember, ledgerOrRefuse, type StaffRequest } from "./common.server";

/**
 * The Accounts list's inline Edit (docs/product.md#member-accounts-staff): account number (10
 * digits, not starting with 0, unique), routing number (9 digits, ABA checksum; the institution's
 * unless staff set another), status Active / Frozen / Closed with the reason. Freezing is the
 * ledger's status: from then on every posting on the account is refused ("Transaction Blocked"
 * for the member). Closing needs a zero balance and nothing on hold, and is final (the ledger's
 * rule). Balances are never edited here.
 */
export type AccountEditResult = { ok: true; status: "saved" | "unchanged"; message: string } | StaffRefusal;

export interface AccountSettingsView {
  routing_number: string;
  status_reason: string | null;
}

/** Routing number and status reason of each account (the institution's routing number by default). */
export async function accountSettings(
  db: DbOrTx,
  account_ids: readonly number[],
): Promise<Map<number, AccountSettingsView>> {
  const rows = account_ids.length
    ? await db
        .select()
        .from(memberAccountSettings)
        .where(inArray(memberAccountSettings.account_id, [...account_ids]))
    : [];
  const byId = new Map(rows.map((r) => [Number(r.account_id), r]));
  return new Map(
    account_ids.map((id) => [
      id,
      {
        routing_number: byId.get(id)?.routing_number ?? routingNumber(),
        status_reason: byId.get(id)?.status_reason ?? null,
      },
    ]),
  );
}

function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

/** "Its debit card ending 1234" / "Its debit cards ending 1234 and 5678". */
function cardsEnding(cards: readonly { last4: string }[]): string {
  const endings = cards.map((c) => c.last4);
  return endings.length === 1
    ? `Its debit card ending ${endings[0]}`
    : `Its debit cards ending ${endings.slice(0, -1).join(", ")} and ${endings.at(-1)}`;
}

export async function editMemberAccount(
  db: DbOrTx,
  request: StaffRequest & { edit: AccountEdit },
): Promise<AccountEditResult> {
  const { staff, origin, member_id, edit } = request;
  const account = await accountOfMember(db, member_id, edit.account_id);
  if (!account) return refusal("not_found", ACCOUNT_NOT_FOUND, { field: "account_id", code: "account_not_found" });
  const failed = (message: string, field?: string, code?: StaffRefusal["code"]) =>
    refusal("conflict", `${ACCOUNT_UPDATE_FAILED}: ${message}`, { field, code });
  try {
    return await inRefusableTransaction(db, async (tx) => {
      // Closing blocks the account's cards: their rows are locked first (the card purchase's order).
      const cards = edit.status === "closed" ? await lockWorkingCardsOfAccount(tx, account.id) : [];
      const [current] = await tx.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, account.id)).for("update");
      const settings = (await accountSettings(tx, [account.id])).get(account.id)!;
      const before = {
        account_number: current!.account_number,
        routing_number: settings.routing_number,
        status: current!.status,
        status_reason: settings.status_reason,
      };
      const status_reason = edit.status === "active" ? null : edit.status_reason;
      const after = {
        account_number: edit.account_number,
        routing_number: edit.routing_number,
        status: edit.status,
        status_reason:
          edit.status === before.status && edit.status_reason === "" ? before.status_reason : status_reason,
      };
      if (JSON.stringify(before) === JSON.stringify(after))
        return { ok: true as const, status: "unchanged" as const, message: "No changes to save." };

      if (after.account_number !== before.account_number) {
        const [taken] = await tx
          .select({ id: ledgerAccounts.id })
          .from(ledgerAccounts)
          .where(and(eq(ledgerAccounts.account_number, after.account_number), ne(ledgerAccounts.id, account.id)))
          .limit(1);
        if (taken)
          refuse(refusal("conflict", ACCOUNT_NUMBER_TAKEN_MESSAGE, { field: "account_number", code: "number_taken" }));
        await tx
          .update(ledgerAccounts)
          .set({ account_number: after.account_number })
          .where(eq(ledgerAccounts.id, account.id));
      }
      if (after.status !== before.status) {
        await ledgerOrRefuse(
          () => setAccountStatus(tx, account.id, after.status),
          (message, code) => failed(message, "status", code),
        );
        if (after.status === "closed") await blockCardsOfClosedAccount(tx, cards);
      }
      const cards_blocked = after.status !== before.status && after.status === "closed" ? cards : [];
      const routing_number = after.routing_number === routingNumber() ? null : after.routing_number;
      await tx
        .insert(memberAccountSettings)
        .values({ account_id: account.id, routing_number, status_reason: after.status_reason, updated_by: staff.id })
        .onConflictDoUpdate({
          target: memberAccountSettings.account_id,
          set: { routing_number, status_reason: after.status_reason, updated_by: staff.id, updated_at: new Date() },
        });
      await recordAudit(tx, {
        actor_id: staff.id,
        actor_email: staff.email,
        action:
          after.status !== before.status
            ? `ledger.account.${after.status === "active" ? "unfreeze" : after.status === "frozen" ? "freeze" : "close"}`
            : "ledger.account.edit",
        subject_type: "ledger_account",
        subject_id: account.id,
        member_id,
        before,
        after: cards_blocked.length ? { ...after, cards_blocked: cards_blocked.map((c) => c.id) } : after,
        ...origin,
      });
      if (after.status !== before.status) {
        const label = accountLabel({ name: account.name, account_number: after.account_number });
        await notify(tx, {
          member_id,
          kind: "account_status",
          title:
            after.status === "frozen"
              ? "Account frozen"
              : after.status === "closed"
                ? "Account closed"
                : "Account active again",
          body:
            after.status === "frozen"
              ? `${label} is frozen: payments and transfers on it are blocked. Please contact us.`
              : after.status === "closed"
                ? `${label} is closed.${cards_blocked.length ? ` ${cardsEnding(cards_blocked)} no longer ${cards_blocked.length === 1 ? "works" : "work"}.` : ""}`
                : `${label} is active again: payments and transfers work as before.`,
        });
      }
      const status_note = after.status !== before.status ? ` Status: ${ACCOUNT_STATUS_LABELS[after.status]}.` : "";
      return { ok: true as const, status: "saved" as const, message: `Account updated.${status_note}` };
    });
  } catch (error) {
    // Another edit took the same number between the check and the update: the unique index kept one.
    if (isUniqueViolation(error))
      return refusal("conflict", ACCOUNT_NUMBER_TAKEN_MESSAGE, { field: "account_number", code: "number_taken" });
    throw error;
  }
}
