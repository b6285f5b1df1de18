import { and, asc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { externalPayments, holdsPlainNumber } from "~/server/db/schema";
import { decryptField, encryptField, reencryptedField } from "~/server/security/crypto.server";

/**
 * Where a payment to another bank goes (`external_payments.details`; docs/security.md, V6 Stored cryptography):
 * the account number (To US Bank and International) and the IBAN (International) are personal
 * data, so the details keep them sealed like every other account number Mutual keeps (AES-256-GCM
 * with DATA_ENCRYPTION_KEY, associated data `external_payments.<field>:<member id>`: a value copied
 * to another member's payment does not decrypt), with the last four characters beside them for
 * the screens. Decision record 0034 says why inside the details and not in columns of their own.
 *
 *   account_number -> account_number_enc + account_last4
 *   iban           -> iban_enc + iban_last4   (absent when the wire has no IBAN)
 *
 * Only what sends the money or compares it opens a number: the NACHA and pain.001 exports, a
 * repeated form's comparison (`samePayment`) and a notification of change finding the waiting
 * transfers to the same account. Everything else shows `••1234`.
 *
 * A row written before the numbers were sealed holds them plain (`account_number`, `iban`): it is
 * read as it is until `sealPlainDestinations` (run at every start and by the key rotation) seals it.
 */
export type PaymentDetails = Record<string, string>;

export const SEALED_FIELDS = ["account_number", "iban"] as const;
export type SealedField = (typeof SEALED_FIELDS)[number];

/** Binds a sealed number to its field and member. */
export function destinationContext(field: SealedField, member_id: string): string {
  return `external_payments.${field}:${member_id}`;
}

const encKey = (field: SealedField) => `${field}_enc` as const;
const last4Key = (field: SealedField) => (field === "account_number" ? "account_last4" : "iban_last4");

/**
 * The details to store: the plain account number and IBAN taken out and sealed (an empty one is
 * left out), every other key as it is. Details already sealed come back unchanged.
 */
export function sealDestination(member_id: string, details: PaymentDetails): PaymentDetails {
  const out: PaymentDetails = { ...details };
  for (const field of SEALED_FIELDS) {
    const plain = out[field];
    delete out[field];
    if (plain) Object.assign(out, sealedNumber(member_id, field, plain));
  }
  return out;
}

/** One number sealed, with its last four, as details keys. */
function sealedNumber(member_id: string, field: SealedField, plain: string): PaymentDetails {
  return {
    [encKey(field)]: encryptField(plain, destinationContext(field, member_id)),
    [last4Key(field)]: plain.slice(-4),
  };
}

/**
 * The details with the account number replaced (a notification of change's corrected number):
 * sealed, whether the details held it sealed or, written before, plain.
 */
export function withAccountNumber(member_id: string, details: PaymentDetails, account_number: string): PaymentDetails {
  const { account_number: _plain, ...rest } = details;
  return { ...rest, ...sealedNumber(member_id, "account_number", account_number) };
}

/** The full number, for the file that sends the money or a comparison; "" when the payment has none. */
export function openNumber(payment: { member_id: string; details: PaymentDetails }, field: SealedField): string {
  const sealed = payment.details[encKey(field)];
  if (sealed) return decryptField(sealed, destinationContext(field, payment.member_id));
  return payment.details[field] ?? "";
}

/** The last four characters of the number, or "" when the payment has none; opens nothing. */
export function lastFour(details: PaymentDetails, field: SealedField): string {
  return details[last4Key(field)] ?? (details[field] ?? "").slice(-4);
}

/** The number as screens show it: "••6789" ("" when the payment has none). */
export function maskedNumber(details: PaymentDetails, field: SealedField): string {
  const last = lastFour(details, field);
  return last ? `••${last}` : "";
}

/** A wire's account as the screens show it: the IBAN's last four when it has one, else the account number's. */
export function maskedWireAccount(details: PaymentDetails): string {
  return maskedNumber(details, "iban") || maskedNumber(details, "account_number");
}

/** A row written before the numbers were sealed: one of them is still plain (its partial index serves this). */
const plainRow = holdsPlainNumber(externalPayments.details);

export const SEAL_BATCH = 100;

/**
 * The next `batch` payments still holding a plain number that no one else holds, locked (SKIP
 * LOCKED). Read through the partial index on the same predicate: once all are sealed it is empty,
 * so the pass at each start costs nothing (decision 0034).
 */
export function plainPaymentsToSeal(tx: DbOrTx, batch: number) {
  return tx
    .select({ id: externalPayments.id, member_id: externalPayments.member_id, details: externalPayments.details })
    .from(externalPayments)
    .where(plainRow)
    .orderBy(asc(externalPayments.id))
    .limit(batch)
    .for("update", { skipLocked: true });
}

/**
 * Seals the numbers of payments written before they were sealed: batches of rows, each in its own
 * transaction, locked with SKIP LOCKED, so several processes starting at once share the rows and
 * never seal one twice (a row another holds is left to it; one a notification of change is
 * correcting waits for its transaction). Sealed rows no longer match, so running it again seals
 * nothing, and a run that stopped part way (a crash rolls back its batch) is simply run again.
 * Returns how many payments it sealed.
 */
export async function sealPlainDestinations(db: Db, options: { batch?: number } = {}): Promise<number> {
  const batch = options.batch ?? SEAL_BATCH;
  let sealed = 0;
  for (;;) {
    const done = await db.transaction(async (tx) => {
      const rows = await plainPaymentsToSeal(tx, batch);
      for (const row of rows)
        await tx
          .update(externalPayments)
          .set({ details: sealDestination(row.member_id, row.details) })
          .where(eq(externalPayments.id, row.id));
      return rows.length;
    });
    sealed += done;
    // A short batch: nothing plain was left that no one else holds.
    if (done < batch) return sealed;
  }
}

/**
 * For the data key's rotation: each sealed number under a previous key sealed again with the
 * current one. Each value is its own update, made only if the row still holds the value read (a
 * notification of change that corrected it meanwhile wins; it sealed with the current key).
 * Returns how many values it moved.
 */
export async function reencryptDestinations(db: DbOrTx): Promise<number> {
  let moved = 0;
  for (const field of SEALED_FIELDS) {
    const key = encKey(field);
    const rows = await db
      .select({ id: externalPayments.id, member_id: externalPayments.member_id, details: externalPayments.details })
      .from(externalPayments)
      .where(sql`${externalPayments.details}->>${key} is not null`)
      .orderBy(asc(externalPayments.id));
    for (const row of rows) {
      const stored = row.details[key]!;
      const again = reencryptedField(stored, destinationContext(field, row.member_id));
      if (!again) continue;
      const updated = await db
        .update(externalPayments)
        .set({ details: sql`jsonb_set(${externalPayments.details}, ${`{${key}}`}::text[], to_jsonb(${again}::text))` })
        .where(and(eq(externalPayments.id, row.id), sql`${externalPayments.details}->>${key} = ${stored}`))
        .returning({ id: externalPayments.id });
      moved += updated.length;
    }
  }
  return moved;
}
