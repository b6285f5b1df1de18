import type { Actor } from "~/domain/actor";
import { inArray } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { users } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import {
  paymentControlsState,
  setOutgoingPaymentsPaused,
  type PaymentControls,
} from "~/server/payments/controls.server";
import { currencyRate, listCurrencyRates, setCurrencyRate, type CurrencyRate } from "~/server/payments/rates.server";
import { findCurrency, isValidUsdPerUnitRate } from "~/domain/currencies";
import { PAUSE_REASON_MAX_CHARS, PAYMENT_CONTROL_MESSAGES } from "~/domain/payment-controls";
import { refusal, type Refusal } from "~/domain/refusals";

/**
 * The back office's institution-wide payment controls (docs/product.md#payment-controls): the
 * switch that pauses every outgoing external payment (To US Bank and International then answer
 * "Transaction Denied") and the currency rates for wires. Each change is written with its audit
 * record (before and after) in one database transaction.
 */

export interface PaymentControlsPage {
  controls: PaymentControls & { updated_by_email: string | null };
  rates: (CurrencyRate & { updated_by_email: string | null })[];
}

export async function paymentControlsPage(db: Db): Promise<PaymentControlsPage> {
  const [controls, rates] = await Promise.all([paymentControlsState(db), listCurrencyRates(db)]);
  const ids = [
    ...new Set(
      [controls.updated_by, ...rates.map((r) => r.updated_by)].filter(
        (id): id is string => Boolean(id) && id !== "system",
      ),
    ),
  ];
  const emails = await emailsOf(db, ids);
  return {
    controls: { ...controls, updated_by_email: controls.updated_by ? (emails.get(controls.updated_by) ?? null) : null },
    rates: rates.map((r) => ({ ...r, updated_by_email: emails.get(r.updated_by) ?? null })),
  };
}

async function emailsOf(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, ids));
  return new Map(rows.map((r) => [r.id, r.email]));
}

export type PauseResult = { ok: true; changed: boolean } | Refusal;

/** Pauses (a reason is required) or resumes outgoing payments; a change is audited. */
export async function setPaymentsPaused(
  db: Db,
  input: { staff: Actor; paused: boolean; reason: string; origin: AuditOrigin },
): Promise<PauseResult> {
  const reason = input.reason.replace(/\s+/g, " ").trim();
  if (!reason)
    return refusal(
      "bad_input",
      input.paused ? PAYMENT_CONTROL_MESSAGES.pause_reason : PAYMENT_CONTROL_MESSAGES.resume_reason,
      { field: "reason" },
    );
  if (reason.length > PAUSE_REASON_MAX_CHARS)
    return refusal("bad_input", PAYMENT_CONTROL_MESSAGES.reason_too_long, { field: "reason" });
  return db.transaction(async (tx) => {
    const before = await paymentControlsState(tx);
    if (before.outgoing_paused === input.paused) return { ok: true as const, changed: false };
    await setOutgoingPaymentsPaused(tx, { paused: input.paused, reason, updated_by: input.staff.id });
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: input.paused ? "payments.outgoing.pause" : "payments.outgoing.resume",
      subject_type: "payment_controls",
      subject_id: "outgoing",
      before: { outgoing_paused: before.outgoing_paused, reason: before.reason },
      after: { outgoing_paused: input.paused, reason },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    });
    return { ok: true as const, changed: true };
  });
}

export type RateResult = { ok: true; code: string } | Refusal;

/** Sets a currency's rate (USD per one unit); audited with the rate before. */
export async function setRate(
  db: Db,
  input: { staff: Actor; code: string; usd_per_unit: string; origin: AuditOrigin },
): Promise<RateResult> {
  const code = input.code.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code) || code === "USD" || !findCurrency(code))
    return refusal("bad_input", PAYMENT_CONTROL_MESSAGES.code, { field: "code" });
  const usd_per_unit = input.usd_per_unit.trim();
  if (!isValidUsdPerUnitRate(usd_per_unit))
    return refusal("bad_input", PAYMENT_CONTROL_MESSAGES.usd_per_unit, { field: "usd_per_unit" });
  await db.transaction(async (tx) => {
    const before = await currencyRate(tx, code);
    await setCurrencyRate(tx, { code, usd_per_unit, updated_by: input.staff.id });
    await recordAudit(tx, {
      actor_id: input.staff.id,
      actor_email: input.staff.email,
      action: "payments.currency_rate.set",
      subject_type: "currency_rate",
      subject_id: code,
      before: before ? { usd_per_unit: before.usd_per_unit } : null,
      after: { usd_per_unit },
      request_id: input.origin.request_id,
      ip: input.origin.ip,
    });
  });
  return { ok: true, code };
}
