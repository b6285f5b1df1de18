import { randomBytes } from "node:crypto";
import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { letterPdf } from "~/server/files/pdf.server";
import { institution } from "~/config/institution.server";
import type { Actor } from "~/domain/actor";
import {
  DISCLOSURE_KINDS,
  SAMPLE_CODE_MESSAGES,
  SAMPLE_CODE_MINUTES,
  deliveryOf,
  sampleCodeFrom,
  type DeliveryChoice,
  type DisclosureKind,
} from "~/domain/electronic-delivery";
import { refusal, type Refusal } from "~/domain/refusals";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { inRefusableTransaction } from "~/server/db/refusable-transaction.server";
import {
  disclosureNotices,
  electronicDeliveryChoices,
  electronicDeliverySamples,
  memberProfiles,
  users,
} from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { csvDocument, csvField } from "~/server/files/csv.server";

/**
 * Electronic delivery consent (E-SIGN, 15 U.S.C. 7001(c); docs/product.md#electronic-delivery).
 * A member gets statements, notices and disclosures only electronically after they consented on
 * the consent page, having shown they can open a PDF (the code printed in a sample PDF made for
 * that attempt). Withdrawing or declining puts them on the paper list the back office mails from.
 * Every choice is a new row and an audit entry; nothing is deleted.
 */

/** Every disclosure's current version in the profile: what a member agrees to now. */
export function currentDisclosureVersions(): Record<DisclosureKind, string> {
  const d = institution().disclosures;
  return Object.fromEntries(DISCLOSURE_KINDS.map((kind) => [kind, d[kind].version])) as Record<DisclosureKind, string>;
}

export interface DeliveryChoiceRow {
  id: number;
  choice: DeliveryChoice;
  disclosure_version: string;
  disclosure_versions: Record<string, string>;
  at: Date;
}

/** The member's choices, newest first. */
export async function deliveryHistory(db: DbOrTx, member_id: string, limit = 20): Promise<DeliveryChoiceRow[]> {
  return db
    .select({
      id: electronicDeliveryChoices.id,
      choice: electronicDeliveryChoices.choice,
      disclosure_version: electronicDeliveryChoices.disclosure_version,
      disclosure_versions: electronicDeliveryChoices.disclosure_versions,
      at: electronicDeliveryChoices.at,
    })
    .from(electronicDeliveryChoices)
    .where(eq(electronicDeliveryChoices.member_id, member_id))
    .orderBy(desc(electronicDeliveryChoices.at), desc(electronicDeliveryChoices.id))
    .limit(limit);
}

export interface DeliveryStatus {
  delivery: "electronic" | "paper";
  latest: DeliveryChoiceRow | null;
  /** Consented, but to an earlier E-SIGN disclosure than the profile's: asked to read the new one. */
  new_disclosure: boolean;
}

export async function deliveryStatus(db: DbOrTx, member_id: string): Promise<DeliveryStatus> {
  const [latest] = await deliveryHistory(db, member_id, 1);
  const delivery = deliveryOf(latest?.choice ?? null);
  return {
    delivery,
    latest: latest ?? null,
    new_disclosure: delivery === "electronic" && latest!.disclosure_version !== institution().disclosures.esign.version,
  };
}

/** Whether this member's statements and notices go by mail (no consent on record, or withdrawn). */
export async function onPaperDelivery(db: DbOrTx, member_id: string): Promise<boolean> {
  return (await deliveryStatus(db, member_id)).delivery === "paper";
}

/**
 * The code of the member's current sample PDF: the newest unused one still in time, else a new one.
 * Opening the sample twice shows the same code, so a member who opens it again is not confused.
 */
export async function sampleCode(db: Db, member_id: string, now = new Date()): Promise<string> {
  const [open] = await db
    .select({ code: electronicDeliverySamples.code })
    .from(electronicDeliverySamples)
    .where(
      and(
        eq(electronicDeliverySamples.member_id, member_id),
        isNull(electronicDeliverySamples.used_at),
        gt(electronicDeliverySamples.expires_at, now),
      ),
    )
    .orderBy(desc(electronicDeliverySamples.id))
    .limit(1);
  if (open) return open.code;
  const code = sampleCodeFrom(randomBytes(16));
  await db.insert(electronicDeliverySamples).values({
    member_id,
    code,
    created_at: now,
    expires_at: new Date(now.getTime() + SAMPLE_CODE_MINUTES * 60_000),
  });
  return code;
}

/** The sample PDF: the same kind of file as a statement (pdfkit, US Letter), with the code to type. */
export function renderSamplePdf(code: string): Promise<Buffer> {
  const profile = institution();
  const { doc, done } = letterPdf({
    margin: 72,
    info: { Title: "Sample document", Author: profile.name, Subject: "Electronic delivery check" },
  });
  doc.font("Helvetica-Bold").fontSize(18).text(profile.name);
  doc.moveDown(0.5).font("Helvetica").fontSize(12).text("Sample document for electronic delivery");
  doc
    .moveDown()
    .fontSize(11)
    .text(
      "You opened this PDF, so you can read the statements, notices and disclosures we deliver electronically. " +
        "Type the code below on the consent page to finish.",
    );
  doc.moveDown(1.5).font("Helvetica").fontSize(12).text("Your code:");
  doc.font("Helvetica-Bold").fontSize(32).text(code, { characterSpacing: 4 });
  doc
    .moveDown()
    .font("Helvetica")
    .fontSize(10)
    .text(`The code works for ${SAMPLE_CODE_MINUTES} minutes and only for you.`);
  doc.end();
  return done;
}

export type ConsentAnswer = { ok: true; at: Date } | Refusal<"wrong_code" | "expired">;

/**
 * Records the member's consent to electronic delivery: the code they typed must be their current
 * sample's (proof they opened the PDF, 7001(c)(1)(C)(ii)). The consent row, the sample marked used
 * and the audit entry land together or not at all.
 */
export async function consentToElectronicDelivery(
  db: Db,
  member: Actor,
  code: string,
  origin: AuditOrigin,
  now = new Date(),
): Promise<ConsentAnswer> {
  return inRefusableTransaction(db, async (tx) => {
    const [sample] = await tx
      .select()
      .from(electronicDeliverySamples)
      .where(and(eq(electronicDeliverySamples.member_id, member.id), isNull(electronicDeliverySamples.used_at)))
      .orderBy(desc(electronicDeliverySamples.id))
      .limit(1)
      .for("update");
    if (!sample || sample.code !== code)
      return refusal("bad_input", SAMPLE_CODE_MESSAGES.wrong, { field: "code", code: "wrong_code" as const });
    if (sample.expires_at <= now)
      return refusal("bad_input", SAMPLE_CODE_MESSAGES.expired, { field: "code", code: "expired" as const });
    await tx.update(electronicDeliverySamples).set({ used_at: now }).where(eq(electronicDeliverySamples.id, sample.id));
    await recordChoice(tx, member, "consented", origin, now);
    return { ok: true as const, at: now };
  });
}

/**
 * Withdraws consent (or declines it before ever giving it): from now on the member is on the paper
 * list. Free unless the profile names a fee (7001(c)(1)(B)(iii)). Withdrawing twice records nothing
 * new.
 */
export async function chooseConsentWithdrawal(
  db: Db,
  member: Actor,
  origin: AuditOrigin,
  now = new Date(),
): Promise<{ ok: true; changed: boolean }> {
  return db.transaction(async (tx) => {
    const [latest] = await deliveryHistory(tx, member.id, 1);
    if (latest && latest.choice !== "consented") return { ok: true as const, changed: false };
    await recordChoice(tx, member, latest ? "withdrawn" : "declined", origin, now);
    return { ok: true as const, changed: true };
  });
}

async function recordChoice(tx: DbOrTx, member: Actor, choice: DeliveryChoice, origin: AuditOrigin, now: Date) {
  const versions = currentDisclosureVersions();
  const [row] = await tx
    .insert(electronicDeliveryChoices)
    .values({
      member_id: member.id,
      choice,
      disclosure_version: versions.esign,
      disclosure_versions: versions,
      made_by: `member:${member.id}`,
      request_id: origin.request_id,
      ip: origin.ip,
      at: now,
    })
    .returning({ id: electronicDeliveryChoices.id });
  await recordAudit(tx, {
    actor_id: member.id,
    actor_email: member.email,
    action: `electronic_delivery.${choice}`,
    subject_type: "member",
    subject_id: member.id,
    after: { choice_id: row!.id, disclosure_version: versions.esign, disclosure_versions: versions },
    request_id: origin.request_id,
    ip: origin.ip,
    at: now,
  });
}

/** The demo's members start as having consented, so the demo and the tests built on it run as before. */
export async function seedConsent(tx: DbOrTx, member_id: string, at: Date): Promise<void> {
  const versions = currentDisclosureVersions();
  await tx.insert(electronicDeliveryChoices).values({
    member_id,
    choice: "consented",
    disclosure_version: versions.esign,
    disclosure_versions: versions,
    made_by: "seed",
    at,
  });
}

export interface PaperDeliveryMember {
  member_id: string;
  name: string;
  email: string;
  street: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  /** withdrawn, declined, or null: has not answered yet. */
  choice: "withdrawn" | "declined" | null;
  since: Date | null;
  statements_to_mail: number;
  /**
   * Written notices to mail: deposit hold notices (Regulation CC 229.13(g)) and change-in-terms
   * notices (Regulation E 1005.8(a), Truth in Savings 1030.5(a)) and a line of credit's changes
   * (Regulation Z 1026.9(c), Regulation B 1002.9) given while the member was on paper.
   */
  notices_to_mail: number;
}

/**
 * The back office's paper list: approved members whose latest choice is not consent (withdrawn,
 * declined, or not answered yet), with the mailing address and how many statements were marked
 * for mailing. Most recent choice first, members who have not answered last.
 */
export async function paperDeliveryMembers(db: Db, limit = 500): Promise<PaperDeliveryMember[]> {
  const latest = db
    .selectDistinctOn([electronicDeliveryChoices.member_id], {
      member_id: electronicDeliveryChoices.member_id,
      choice: electronicDeliveryChoices.choice,
      at: electronicDeliveryChoices.at,
    })
    .from(electronicDeliveryChoices)
    .orderBy(
      electronicDeliveryChoices.member_id,
      desc(electronicDeliveryChoices.at),
      desc(electronicDeliveryChoices.id),
    )
    .as("latest");
  const rows = await db
    .select({
      member_id: users.id,
      email: users.email,
      first_name: memberProfiles.first_name,
      last_name: memberProfiles.last_name,
      street: memberProfiles.street,
      city: memberProfiles.city,
      state: memberProfiles.state,
      postal_code: memberProfiles.postal_code,
      country: memberProfiles.country,
      choice: latest.choice,
      since: latest.at,
    })
    .from(users)
    .innerJoin(memberProfiles, eq(memberProfiles.user_id, users.id))
    .leftJoin(latest, eq(latest.member_id, users.id))
    .where(
      and(
        eq(memberProfiles.status, "approved"),
        sql`coalesce(${users.role}, 'user') = 'user'`,
        sql`${latest.choice} is distinct from 'consented'`,
      ),
    )
    .orderBy(sql`${latest.at} desc nulls last`, users.email)
    .limit(limit);
  const ids = rows.map((r) => r.member_id);
  // Statements marked for mailing: the accounts' and the loans' (docs/product.md#loan-statements).
  const counts = ids.length
    ? await db.execute(sql`
        select member_id, count(*)::int as n from (
          select member_id from account_statements
           where mail_paper_copy and member_id in (${sql.join(
             ids.map((id) => sql`${id}`),
             sql`, `,
           )})
          union all
          select member_id from loan_statements
           where mail_paper_copy and member_id in (${sql.join(
             ids.map((id) => sql`${id}`),
             sql`, `,
           )})
        ) marked group by member_id`)
    : { rows: [] };
  const countOf = new Map(counts.rows.map((r) => [String(r.member_id), Number(r.n)]));
  const notices = ids.length
    ? await db.execute(sql`
        select member_id, count(*)::int as n from (
          select member_id from mobile_deposits
           where hold_notice_channel = 'mail' and member_id in (${sql.join(
             ids.map((id) => sql`${id}`),
             sql`, `,
           )})
          union all
          select member_id from disclosure_notices
           where channel = 'mail' and member_id in (${sql.join(
             ids.map((id) => sql`${id}`),
             sql`, `,
           )})
          union all
          select member_id from credit_line_changes
           where notice_channel = 'mail' and member_id in (${sql.join(
             ids.map((id) => sql`${id}`),
             sql`, `,
           )})
        ) mailed group by member_id`)
    : { rows: [] };
  const noticesOf = new Map(notices.rows.map((r) => [String(r.member_id), Number(r.n)]));
  return rows.map((r) => ({
    member_id: r.member_id,
    name: `${r.first_name} ${r.last_name}`.trim(),
    email: r.email,
    street: r.street,
    city: r.city,
    state: r.state,
    postal_code: r.postal_code,
    country: r.country,
    // The query keeps only those whose latest choice is not consent.
    choice: r.choice === "consented" ? null : r.choice,
    since: r.since,
    statements_to_mail: countOf.get(r.member_id) ?? 0,
    notices_to_mail: noticesOf.get(r.member_id) ?? 0,
  }));
}

/** The disclosures with their current versions, and the change-in-terms notices this member was sent. */
export async function memberDisclosures(db: DbOrTx, member_id: string) {
  const notices = await db
    .select()
    .from(disclosureNotices)
    .where(eq(disclosureNotices.member_id, member_id))
    .orderBy(desc(disclosureNotices.sent_at));
  const d = institution().disclosures;
  return {
    disclosures: DISCLOSURE_KINDS.map((kind) => ({
      kind,
      title: d[kind].title,
      version: d[kind].version,
      effective_on: d[kind].effective_on,
      body: d[kind].body,
    })),
    notices,
  };
}

export const PAPER_DELIVERY_CSV_HEADER = [
  "name",
  "email",
  "street",
  "city",
  "state",
  "postal_code",
  "country",
  "delivery_reason",
  "since",
  "statements_to_mail",
  "notices_to_mail",
] as const;

export const PAPER_REASON_LABELS = {
  withdrawn: "Withdrew consent",
  declined: "Chose paper",
  none: "Has not answered yet",
} as const;

/**
 * The paper list as CSV for the mailing house. It holds members' addresses, so the export is
 * audited (who took it, how many rows), as the audit log's own export is.
 */
export async function exportPaperDeliveryCsv(
  db: Db,
  staff: Actor,
  origin: AuditOrigin,
): Promise<{ csv: string; rows: number }> {
  const members = await paperDeliveryMembers(db, 50_000);
  const csv = csvDocument(
    PAPER_DELIVERY_CSV_HEADER,
    members.map((m) => [
      csvField(m.name, { quote: "always" }),
      csvField(m.email),
      csvField(m.street ?? "", { quote: "always" }),
      csvField(m.city ?? "", { quote: "always" }),
      csvField(m.state ?? ""),
      csvField(m.postal_code ?? ""),
      csvField(m.country ?? "", { quote: "always" }),
      csvField(PAPER_REASON_LABELS[m.choice ?? "none"]),
      csvField(m.since ? m.since.toISOString() : ""),
      csvField(String(m.statements_to_mail)),
      csvField(String(m.notices_to_mail)),
    ]),
  );
  await recordAudit(db, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "paper_delivery.export",
    after: { rows: members.length },
    request_id: origin.request_id,
    ip: origin.ip,
  });
  return { csv, rows: members.length };
}
