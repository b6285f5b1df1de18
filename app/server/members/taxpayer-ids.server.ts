import { and, eq } from "drizzle-orm";
import { formatTin, maskTin, tinLastFour, tinTypeLabel, type TaxpayerId, type TinType } from "~/domain/taxpayer-id";
import { findCountry } from "~/domain/countries";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { memberProfiles, taxpayerIds, type TaxpayerIdParty } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { decryptField, encryptField } from "~/server/security/crypto.server";
import type { Actor } from "~/domain/actor";

/**
 * Taxpayer identification numbers (docs/product.md#taxpayer-identification, 31 CFR 1020.220):
 * written once with the application, encrypted and bound to their user and party; read masked
 * from the last four characters kept beside them (nothing is decrypted for that); revealed in full
 * only to staff with money powers who state a reason, each reveal in the audit log with the
 * reason. The number itself never goes into a log, an audit row or a snapshot.
 */
export function taxpayerIdContext(user_id: string, party: TaxpayerIdParty): string {
  return `taxpayer_ids.number:${user_id}:${party}`;
}

/** Stores one party's number (in the caller's transaction). */
export async function storeTaxpayerId(
  tx: DbOrTx,
  input: { user_id: string; party: TaxpayerIdParty; tin: TaxpayerId; now?: Date },
): Promise<void> {
  await tx.insert(taxpayerIds).values({
    user_id: input.user_id,
    party: input.party,
    tin_type: input.tin.type,
    number_enc: encryptField(input.tin.number, taxpayerIdContext(input.user_id, input.party)),
    last_four: tinLastFour(input.tin.number),
    country: input.tin.country,
    ...(input.now ? { created_at: input.now } : {}),
  });
}

/** A number as anyone but a revealing staff member sees it. */
export interface MaskedTaxpayerId {
  party: TaxpayerIdParty;
  type: TinType;
  /** "SSN", "ITIN" or "Government ID". */
  type_label: string;
  /** "•••-••-1234" or "••••1234". */
  masked: string;
  /** A foreign document's issuing country, by name; null for an SSN or ITIN. */
  country: string | null;
}

function masked(row: { party: TaxpayerIdParty; tin_type: TinType; last_four: string; country: string | null }) {
  return {
    party: row.party,
    type: row.tin_type,
    type_label: tinTypeLabel(row.tin_type),
    masked: maskTin(row.tin_type, row.last_four),
    country: row.country ? (findCountry(row.country)?.name ?? row.country) : null,
  } satisfies MaskedTaxpayerId;
}

/** The member's and the joint owner's numbers, masked (the member's first). */
export async function maskedTaxpayerIds(db: DbOrTx, user_id: string): Promise<MaskedTaxpayerId[]> {
  const rows = await db
    .select({
      party: taxpayerIds.party,
      tin_type: taxpayerIds.tin_type,
      last_four: taxpayerIds.last_four,
      country: taxpayerIds.country,
    })
    .from(taxpayerIds)
    .where(eq(taxpayerIds.user_id, user_id));
  return rows.map(masked).sort((a, b) => (a.party === b.party ? 0 : a.party === "member" ? -1 : 1));
}

export type RevealResult =
  | { status: "revealed"; party: TaxpayerIdParty; type_label: string; number: string; country: string | null }
  | { status: "not_found" };

/**
 * The full number for staff, with the reason they gave: the audit row (who, whose, which party,
 * the reason; never the number) is written first, so no number is shown unrecorded. The route
 * allows staff with money powers only (docs/product.md#access-rules).
 */
export async function revealTaxpayerId(
  db: Db,
  input: { member_id: string; party: TaxpayerIdParty; reason: string; staff: Actor; origin: AuditOrigin },
): Promise<RevealResult> {
  const [row] = await db
    .select({
      party: taxpayerIds.party,
      tin_type: taxpayerIds.tin_type,
      number_enc: taxpayerIds.number_enc,
      last_four: taxpayerIds.last_four,
      country: taxpayerIds.country,
    })
    .from(taxpayerIds)
    .where(and(eq(taxpayerIds.user_id, input.member_id), eq(taxpayerIds.party, input.party)));
  if (!row) return { status: "not_found" };
  const number = decryptField(row.number_enc, taxpayerIdContext(input.member_id, input.party));
  await recordAudit(db, {
    actor_id: input.staff.id,
    actor_email: input.staff.email,
    action: "member.tin.reveal",
    subject_type: "member",
    subject_id: input.member_id,
    after: {
      party: input.party,
      type: row.tin_type,
      masked: maskTin(row.tin_type, row.last_four),
      reason: input.reason,
    },
    request_id: input.origin.request_id,
    ip: input.origin.ip,
  });
  const shown = masked(row);
  return {
    status: "revealed",
    party: row.party,
    type_label: shown.type_label,
    number: formatTin(row.tin_type, number),
    country: shown.country,
  };
}

/** Who the reveal page is about: the member's name and whether the application had a joint owner. */
export async function taxpayerIdPage(
  db: Db,
  member_id: string,
): Promise<{ member_id: string; name: string; joint_name: string | null; ids: MaskedTaxpayerId[] } | null> {
  const [profile] = await db
    .select({
      first_name: memberProfiles.first_name,
      last_name: memberProfiles.last_name,
      joint_name: memberProfiles.joint_name,
    })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, member_id));
  if (!profile) return null;
  return {
    member_id,
    name: `${profile.first_name} ${profile.last_name}`,
    joint_name: profile.joint_name,
    ids: await maskedTaxpayerIds(db, member_id),
  };
}
