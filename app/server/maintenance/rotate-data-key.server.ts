import { and, eq, isNotNull } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import {
  conversationMessages,
  conversations,
  debitCards,
  linkedAccounts,
  loanApplications,
  memberProfiles,
  pushSubscriptions,
  scheduledTransfers,
  smsMessages,
  smsNumbers,
  suspiciousActivityReports,
  taxpayerIds,
} from "~/server/db/schema";
import { sarNarrativeContext } from "~/server/sanctions/suspicious-activity.server";
import { bodyContext, subjectContext } from "~/server/secure-messages/secure-messages.server";
import { pushSubscriptionContext } from "~/server/notifications/push.server";
import { smsBodyContext, smsNumberContext } from "~/server/notifications/sms.server";
import { loanFieldContext } from "~/server/loans/fields.server";
import { taxpayerIdContext } from "~/server/members/taxpayer-ids.server";
import { cardNumberContext } from "~/server/cards/cards.server";
import { accountNumberContext } from "~/server/linked-accounts/linked-accounts.server";
import { achAccountNumberContext } from "~/server/payments/scheduled-transfers.server";
import { reencryptDestinations, sealPlainDestinations } from "~/server/payments/payment-destination.server";
import { encryptionContext } from "~/server/members/members.server";
import { reencryptUploads } from "~/server/uploads/private-uploads.server";
import { reencryptedField } from "../security/crypto.server";

/**
 * Moves everything DATA_ENCRYPTION_KEY protects to the current key
 * (docs/operations.md#rotating-the-data-encryption-key): members' dates of birth and ID numbers,
 * taxpayer identification numbers (the member's and the joint owner's), card numbers, secure messages' subjects and texts,
 * the devices' push subscriptions, members' mobile numbers and the verification texts waiting to be sent, loan
 * applicants' income and employer, suspicious activity reports' narratives, the account numbers of members' linked
 * accounts at other banks, of scheduled To US Bank transfers and of payments to other banks (To US Bank's account
 * number, International's account number and IBAN; any still plain from before they were sealed are sealed first),
 * and every private file (ID documents, check photos and thumbnails, profile
 * photos, dispute and message attachments). A value already under the current key is left as it is, so a run that stopped part way
 * is simply run again. Each database value is its own small update: the server keeps reading
 * every value meanwhile, with the current key or a previous one.
 */
export interface RotationReport {
  fields: number;
  files: number;
}

/** Every kind of protected data in turn, each counted apart; a new encrypted field needs its step here. */
export async function reencryptToCurrentKey(db: Db): Promise<RotationReport> {
  let fields = 0;
  fields += await reencryptMemberProfiles(db);
  fields += await reencryptCardNumbers(db);
  fields += await reencryptTaxpayerIds(db);
  fields += await reencryptSecureMessages(db);
  fields += await reencryptPushAndSms(db);
  fields += await reencryptLoanApplications(db);
  fields += await reencryptSarNarratives(db);
  fields += await reencryptLinkedAndScheduledAccounts(db);
  fields += await sealPlainDestinations(db);
  fields += await reencryptDestinations(db);
  return { fields, files: await reencryptUploads() };
}

/** Members' dates of birth and ID numbers. */
async function reencryptMemberProfiles(db: Db): Promise<number> {
  let fields = 0;
  const profiles = await db
    .select({
      user_id: memberProfiles.user_id,
      date_of_birth_enc: memberProfiles.date_of_birth_enc,
      id_number_enc: memberProfiles.id_number_enc,
    })
    .from(memberProfiles);
  for (const p of profiles) {
    const date_of_birth_enc = p.date_of_birth_enc
      ? reencryptedField(p.date_of_birth_enc, encryptionContext("date_of_birth", p.user_id))
      : null;
    const id_number_enc = p.id_number_enc
      ? reencryptedField(p.id_number_enc, encryptionContext("id_number", p.user_id))
      : null;
    if (!date_of_birth_enc && !id_number_enc) continue;
    await db
      .update(memberProfiles)
      .set({ ...(date_of_birth_enc ? { date_of_birth_enc } : {}), ...(id_number_enc ? { id_number_enc } : {}) })
      .where(eq(memberProfiles.user_id, p.user_id));
    fields += (date_of_birth_enc ? 1 : 0) + (id_number_enc ? 1 : 0);
  }
  return fields;
}

/** Debit card numbers. */
async function reencryptCardNumbers(db: Db): Promise<number> {
  let fields = 0;
  const cards = await db
    .select({ id: debitCards.id, member_id: debitCards.member_id, card_number_enc: debitCards.card_number_enc })
    .from(debitCards);
  for (const c of cards) {
    const card_number_enc = reencryptedField(c.card_number_enc, cardNumberContext(c.member_id));
    if (!card_number_enc) continue;
    await db.update(debitCards).set({ card_number_enc }).where(eq(debitCards.id, c.id));
    fields += 1;
  }
  return fields;
}

/** Taxpayer identification numbers, the member's and the joint owner's. */
async function reencryptTaxpayerIds(db: Db): Promise<number> {
  let fields = 0;
  const tins = await db
    .select({ user_id: taxpayerIds.user_id, party: taxpayerIds.party, number_enc: taxpayerIds.number_enc })
    .from(taxpayerIds);
  for (const t of tins) {
    const number_enc = reencryptedField(t.number_enc, taxpayerIdContext(t.user_id, t.party));
    if (!number_enc) continue;
    await db
      .update(taxpayerIds)
      .set({ number_enc })
      .where(and(eq(taxpayerIds.user_id, t.user_id), eq(taxpayerIds.party, t.party)));
    fields += 1;
  }
  return fields;
}

/** Secure messages' subjects and texts. */
async function reencryptSecureMessages(db: Db): Promise<number> {
  let fields = 0;
  const subjects = await db
    .select({ id: conversations.id, member_id: conversations.member_id, subject_enc: conversations.subject_enc })
    .from(conversations);
  for (const c of subjects) {
    const subject_enc = reencryptedField(c.subject_enc, subjectContext(c.member_id));
    if (!subject_enc) continue;
    await db.update(conversations).set({ subject_enc }).where(eq(conversations.id, c.id));
    fields += 1;
  }
  const bodies = await db
    .select({
      id: conversationMessages.id,
      conversation_id: conversationMessages.conversation_id,
      body_enc: conversationMessages.body_enc,
    })
    .from(conversationMessages);
  for (const m of bodies) {
    const body_enc = reencryptedField(m.body_enc, bodyContext(m.conversation_id));
    if (!body_enc) continue;
    await db.update(conversationMessages).set({ body_enc }).where(eq(conversationMessages.id, m.id));
    fields += 1;
  }
  return fields;
}

/** The devices' push subscriptions, members' mobile numbers and the texts waiting to be sent. */
async function reencryptPushAndSms(db: Db): Promise<number> {
  let fields = 0;
  const devices = await db
    .select({
      id: pushSubscriptions.id,
      member_id: pushSubscriptions.member_id,
      subscription: pushSubscriptions.subscription,
    })
    .from(pushSubscriptions);
  for (const d of devices) {
    const subscription = reencryptedField(d.subscription, pushSubscriptionContext(d.member_id));
    if (!subscription) continue;
    await db.update(pushSubscriptions).set({ subscription }).where(eq(pushSubscriptions.id, d.id));
    fields += 1;
  }
  const numbers = await db
    .select({ id: smsNumbers.id, member_id: smsNumbers.member_id, number: smsNumbers.number })
    .from(smsNumbers);
  for (const n of numbers) {
    const number = reencryptedField(n.number, smsNumberContext(n.member_id));
    if (!number) continue;
    await db.update(smsNumbers).set({ number }).where(eq(smsNumbers.id, n.id));
    fields += 1;
  }
  const texts = await db
    .select({ id: smsMessages.id, member_id: smsMessages.member_id, body: smsMessages.body })
    .from(smsMessages)
    .where(isNotNull(smsMessages.body));
  for (const t of texts) {
    const body = reencryptedField(t.body!, smsBodyContext(t.member_id));
    if (!body) continue;
    await db.update(smsMessages).set({ body }).where(eq(smsMessages.id, t.id));
    fields += 1;
  }
  return fields;
}

/** Loan applicants' income and employer. */
async function reencryptLoanApplications(db: Db): Promise<number> {
  let fields = 0;
  const loans = await db
    .select({
      id: loanApplications.id,
      member_id: loanApplications.member_id,
      income_enc: loanApplications.income_enc,
      employer_enc: loanApplications.employer_enc,
    })
    .from(loanApplications);
  for (const l of loans) {
    const income_enc = reencryptedField(l.income_enc, loanFieldContext("income", l.member_id));
    const employer_enc = reencryptedField(l.employer_enc, loanFieldContext("employer", l.member_id));
    if (!income_enc && !employer_enc) continue;
    await db
      .update(loanApplications)
      .set({ ...(income_enc ? { income_enc } : {}), ...(employer_enc ? { employer_enc } : {}) })
      .where(eq(loanApplications.id, l.id));
    fields += (income_enc ? 1 : 0) + (employer_enc ? 1 : 0);
  }
  return fields;
}

/** Suspicious activity reports' narratives. */
async function reencryptSarNarratives(db: Db): Promise<number> {
  let fields = 0;
  const reports = await db
    .select({ id: suspiciousActivityReports.id, narrative_enc: suspiciousActivityReports.narrative_enc })
    .from(suspiciousActivityReports);
  for (const r of reports) {
    const narrative_enc = reencryptedField(r.narrative_enc, sarNarrativeContext(r.id));
    if (!narrative_enc) continue;
    await db.update(suspiciousActivityReports).set({ narrative_enc }).where(eq(suspiciousActivityReports.id, r.id));
    fields += 1;
  }
  return fields;
}

/** The account numbers of members' linked accounts and of scheduled To US Bank transfers. */
async function reencryptLinkedAndScheduledAccounts(db: Db): Promise<number> {
  let fields = 0;
  const links = await db
    .select({
      id: linkedAccounts.id,
      member_id: linkedAccounts.member_id,
      account_number_enc: linkedAccounts.account_number_enc,
    })
    .from(linkedAccounts);
  for (const link of links) {
    const account_number_enc = reencryptedField(link.account_number_enc, accountNumberContext(link.member_id));
    if (!account_number_enc) continue;
    await db.update(linkedAccounts).set({ account_number_enc }).where(eq(linkedAccounts.id, link.id));
    fields += 1;
  }
  const series = await db
    .select({
      id: scheduledTransfers.id,
      member_id: scheduledTransfers.member_id,
      ach_account_number_enc: scheduledTransfers.ach_account_number_enc,
    })
    .from(scheduledTransfers)
    .where(isNotNull(scheduledTransfers.ach_account_number_enc));
  for (const s of series) {
    const ach_account_number_enc = reencryptedField(s.ach_account_number_enc!, achAccountNumberContext(s.member_id));
    if (!ach_account_number_enc) continue;
    await db.update(scheduledTransfers).set({ ach_account_number_enc }).where(eq(scheduledTransfers.id, s.id));
    fields += 1;
  }
  return fields;
}
