import crypto from "node:crypto";
import type { DbOrTx } from "~/server/db/client.server";
import { accountsOfMember } from "./common.server";
import { accountSettings } from "./account-edit.server";
import { awaitingAdjustments, secondApprovalAboveCents, type AwaitingAdjustment } from "./adjustments.server";
import { staffHolds, type StaffHoldView } from "./holds.server";
import { memberTransactionsPage, type MemberTransactionsPage } from "./transactions.server";

/**
 * What the detail pane's money sections show (docs/product.md#member-accounts-staff), loaded only
 * for staff with money powers: a reviewer's page never carries it.
 */
export interface MemberMoneyPane {
  member_id: string;
  /** Routing number and status reason per account id. */
  settings: Record<number, { routing_number: string; status_reason: string | null }>;
  transactions: MemberTransactionsPage;
  /** The cursor this page was read from (null: the newest). */
  transactions_before: string | null;
  holds: StaffHoldView[];
  /** A fresh key for the Place hold form (a second press of the same form holds once). */
  hold_request_key: string;
  second_approval_above_cents: number;
}

export async function memberMoneyPane(
  db: DbOrTx,
  member_id: string,
  options: { before?: string | null } = {},
): Promise<MemberMoneyPane> {
  const accounts = await accountsOfMember(db, member_id);
  const [settings, transactions, holds] = await Promise.all([
    accountSettings(
      db,
      accounts.map((a) => a.id),
    ),
    memberTransactionsPage(db, member_id, { before: options.before }),
    staffHolds(db, member_id),
  ]);
  return {
    member_id,
    settings: Object.fromEntries(settings),
    transactions,
    transactions_before: options.before && /^[1-9]\d{0,15}$/.test(options.before) ? options.before : null,
    holds,
    hold_request_key: crypto.randomUUID(),
    second_approval_above_cents: secondApprovalAboveCents(),
  };
}

export { awaitingAdjustments, type AwaitingAdjustment };
