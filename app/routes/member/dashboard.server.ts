import crypto from "node:crypto";
import { withDatabase } from "~/server/db/db.server";
import { institution } from "~/config/institution.server";
import type { SessionUser } from "~/server/auth/session.server";
import { logger } from "~/server/logger.server";
import { listCurrencyRates } from "~/server/payments/rates.server";
import { MESSAGES, type Member } from "~/server/payments/transfers.server";
import { verifyRecipient } from "~/server/payments/to-member.server";
import { outgoingPaymentsPaused } from "~/server/payments/controls.server";
import { linkedPayees } from "~/server/payments/us-bank-payees.server";
import {
  transferFormStep,
  type TransferActionResult,
  type TransferTab,
} from "~/server/payments/transfer-form-steps.server";
import { businessDate } from "~/domain/ledger-rules";
import { recipientEmailField, TRANSFER_MESSAGES } from "~/domain/transfers";
import { dashboard } from "~/server/accounts/overview.server";
import { support } from "./layout.server";
import type { AuditOrigin } from "~/server/audit/audit.server";

/**
 * What /dashboard calls (its view-model): the accounts, the figures and what the selected
 * transfer form needs; the transfer forms' one action (each form's `intent` says which step of
 * which form; the steps are app/server/payments/transfer-form-steps.server.ts); the To Another
 * Member Verify button's answer (/dashboard/verify-recipient). Each function opens the database
 * itself and takes the signed-in member from `requireMember`, so all reads and writes are scoped
 * to that member's own accounts and records.
 */

function asMember(user: SessionUser): Member {
  return { id: user.id, email: user.email, name: user.name };
}

/**
 * The dashboard page. Only the selected transfer tab is rendered, so what only some forms need
 * is read only for them: the currency rates for International, the outgoing-payments switch for
 * the two external forms (US bank, International).
 */
export const loadDashboard = withDatabase(async (database, user: SessionUser, tab: TransferTab = "internal") => {
  const external = tab === "ach" || tab === "wire";
  const [figures, rates, paused, linked_payees] = await Promise.all([
    dashboard(database, user),
    tab === "wire" ? listCurrencyRates(database) : [],
    external ? outgoingPaymentsPaused(database) : false,
    tab === "ach" ? linkedPayees(database, user.id) : [],
  ]);
  const profile = institution();
  return {
    ...figures,
    accounts_for_forms: figures.accounts
      .filter((a) => a.status !== "closed")
      .map((a) => ({
        id: a.id,
        type_label: a.type_label,
        account_number: a.account_number,
        available_cents: a.available_cents,
      })),
    // Only the To US Bank form lists banks; the tab is in the URL, so choosing it loads them.
    us_banks: tab === "ach" ? profile.us_banks : [],
    // To US Bank offers the member's verified linked accounts beside typing one (never their full numbers).
    linked_payees,
    rates: rates.map((r) => ({ code: r.code, usd_per_unit: r.usd_per_unit })),
    wire_fee_cents: profile.limits.wire_fee_cents,
    member_limits: {
      per_transfer_cents: profile.limits.member_transfer_max_cents,
      daily_cents: profile.limits.member_daily_max_cents,
      code_above_cents: profile.limits.member_transfer_code_above_cents,
    },
    outgoing_paused: paused,
    // The credit union's date: the When fields' earliest date is the next business day after it.
    today: businessDate(profile.time_zone),
    // A fresh key per form per render: a double click repeats it, and a form that was answered
    // "Transfer failed" keeps the key it sent (transfer-forms/shared.tsx, keyOf), so its retry repeats it too.
    keys: {
      internal: crypto.randomUUID(),
      member: crypto.randomUUID(),
      ach: crypto.randomUUID(),
      wire: crypto.randomUUID(),
    },
    support: support(),
  };
});

/** The dashboard's transfer forms: one action, the form's `intent` says which step of which form. */
export const transferAction = withDatabase(
  async (
    database,
    user: SessionUser,
    form: FormData,
    origin: AuditOrigin = { request_id: null, ip: null },
  ): Promise<TransferActionResult> => {
    return transferFormStep(database, asMember(user), form, origin);
  },
);

/** For the recipient Verify button with JavaScript (a resource route answering JSON). */
export const verifyRecipientJson = withDatabase(
  async (
    database,
    user: SessionUser,
    form: FormData,
  ): Promise<{ ok: true; message: string } | { ok: false; message: string }> => {
    const email = recipientEmailField.safeParse(String(form.get("recipient_email") ?? ""));
    if (!email.success) return { ok: false, message: TRANSFER_MESSAGES.recipient };
    try {
      const found = await verifyRecipient(database, asMember(user), email.data);
      return found.ok ? { ok: true, message: `Recipient found: ${found.name}` } : { ok: false, message: found.message };
    } catch (error) {
      logger.error({ err: error }, "recipient lookup failed");
      return { ok: false, message: MESSAGES.recipient_error };
    }
  },
);
