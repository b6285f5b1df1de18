import type { Db } from "~/server/db/client.server";
import { internationalSchema, toUsBankSchema } from "~/domain/transfers";
import { sendUsBankTransfer, sendWire } from "~/server/payments/to-other-banks.server";
import { stepUpTransfer } from "~/server/payments/transfers.server";
import { sendStepUpCode } from "~/server/payments/step-up.server";
import { key, lastTransferCode } from "./member-support";

/**
 * Payments to other banks queued the way a member queues them: the form's schema, the emailed
 * code, the send step (hold and queued payment). For the export and cancel tests.
 */
type Member = { id: string; email: string; name: string };

export async function queueAch(
  db: Db,
  member: Member,
  from_account_id: number,
  options: {
    amount: string;
    account_name?: string;
    routing_number?: string;
    account_number?: string;
    account_type?: "checking" | "savings";
    reference?: string;
  },
): Promise<{ payment_id: number; reference_number: string }> {
  const form = toUsBankSchema.parse({
    from_account_id: String(from_account_id),
    routing_number: options.routing_number ?? "021000021",
    account_number: options.account_number ?? "123456789",
    ...(options.account_type ? { account_type: options.account_type } : {}),
    account_name: options.account_name ?? "Lee Park",
    amount: options.amount,
    reference: options.reference ?? "Tuition",
    idempotency_key: key(),
  });
  await sendStepUpCode(db, member, "summary", stepUpTransfer({ kind: "ach", form }));
  const result = await sendUsBankTransfer(db, member, form, await lastTransferCode(db, member.email));
  if (!result.ok || !result.payment_id) throw new Error(`ACH not queued: ${JSON.stringify(result)}`);
  return { payment_id: result.payment_id, reference_number: result.reference_number };
}

export async function queueWire(
  db: Db,
  member: Member,
  from_account_id: number,
  options: {
    amount: string;
    currency?: string;
    recipient_name?: string;
    iban?: string;
    account_number?: string;
    bic?: string;
    country?: string;
    reference?: string;
  },
): Promise<{ payment_id: number; reference_number: string; held_cents: number }> {
  const form = internationalSchema.parse({
    from_account_id: String(from_account_id),
    recipient_name: options.recipient_name ?? "Hans Müller",
    bank_name: "Commerzbank",
    bic: options.bic ?? "COBADEFFXXX",
    account_number: options.account_number ?? "0532013000",
    iban: options.iban ?? "DE89370400440532013000",
    country: options.country ?? "DE",
    currency: options.currency ?? "EUR",
    amount: options.amount,
    reference: options.reference ?? "Invoice 7",
    idempotency_key: key(),
  });
  await sendStepUpCode(db, member, "summary", stepUpTransfer({ kind: "wire", form }));
  const result = await sendWire(db, member, form, await lastTransferCode(db, member.email));
  if (!result.ok || !result.payment_id) throw new Error(`wire not queued: ${JSON.stringify(result)}`);
  return { payment_id: result.payment_id, reference_number: result.reference_number, held_cents: result.amount_cents };
}
