import { and, asc, eq, isNull, ne, or, sql } from "drizzle-orm";
import { accountLabel } from "~/domain/account-display";
import { ALERT_MESSAGES, ALERTS_PER_MEMBER_MAX, THRESHOLD_KINDS, type AccountAlertKind } from "~/domain/alerts";
import { formatCents } from "~/domain/money";
import type { Db, DbOrTx } from "~/server/db/client.server";
import { ledgerAccounts, memberAlerts, outbox } from "~/server/db/schema";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { accountAlertEmail } from "~/server/mail/templates.server";
import { getMemberSettings } from "~/server/members/members.server";

/**
 * The alerts a member chooses (docs/product.md#alerts): listing, adding, changing the amount of
 * and removing them, each for the signed-in member's own accounts only (another member's alert
 * or account answers "not found" and changes nothing). Every change is audited and keeps the
 * account's `alerts_on` true exactly while a live alert watches it, in the same transaction, so
 * the ledger's hook (app/server/ledger/alerts.server.ts) reads alerts only for accounts that have some.
 *
 * The sign-in from a new device is the member's loginAlerts setting (member_settings.login_alerts,
 * changed by updateNotificationSettings in app/server/settings), shown on the alerts page beside
 * the account alerts; sign-in.server.ts sends it.
 */

export interface MemberAlertView {
  id: number;
  /** Null for an alert "for all my accounts". */
  account_id: number | null;
  account_label: string;
  kind: AccountAlertKind;
  amount_cents: number | null;
}

export interface AlertAccountOption {
  id: number;
  label: string;
}

export interface AlertsPage {
  alerts: MemberAlertView[];
  accounts: AlertAccountOption[];
  new_device_sign_in: boolean;
}

/** The member's open accounts, the ones an alert may watch. */
async function ownAccounts(db: DbOrTx, member_id: string) {
  return db
    .select({ id: ledgerAccounts.id, type: ledgerAccounts.type, account_number: ledgerAccounts.account_number })
    .from(ledgerAccounts)
    .where(
      and(
        eq(ledgerAccounts.member_id, member_id),
        eq(ledgerAccounts.owner, "member"),
        ne(ledgerAccounts.status, "closed"),
      ),
    )
    .orderBy(asc(ledgerAccounts.id));
}

/** What the page calls an alert "for all my accounts". */
export const ALL_ACCOUNTS_LABEL = "All my accounts, and any I open later";

export async function loadAlerts(db: Db, member_id: string): Promise<AlertsPage> {
  // The member's choices: an alert on one account, or one for all (its rows per account are not listed).
  const rows = await db
    .select({
      id: memberAlerts.id,
      account_id: memberAlerts.account_id,
      kind: memberAlerts.kind,
      amount_cents: memberAlerts.amount_cents,
      type: ledgerAccounts.type,
      account_number: ledgerAccounts.account_number,
    })
    .from(memberAlerts)
    .leftJoin(ledgerAccounts, eq(ledgerAccounts.id, memberAlerts.account_id))
    .where(
      and(
        eq(memberAlerts.member_id, member_id),
        isNull(memberAlerts.removed_at),
        isNull(memberAlerts.all_accounts_alert_id),
      ),
    )
    .orderBy(sql`${memberAlerts.account_id} asc nulls first`, asc(memberAlerts.id));
  const accounts = await ownAccounts(db, member_id);
  const settings = await getMemberSettings(db, member_id);
  return {
    alerts: rows.map((r) => ({
      id: r.id,
      account_id: r.account_id,
      account_label:
        r.account_id === null || r.type === null || r.account_number === null
          ? ALL_ACCOUNTS_LABEL
          : accountLabel({ type: r.type, account_number: r.account_number }),
      kind: r.kind,
      amount_cents: r.amount_cents,
    })),
    accounts: accounts.map((a) => ({ id: a.id, label: accountLabel(a) })),
    new_device_sign_in: settings.login_alerts,
  };
}

export type AlertRefusal = {
  ok: false;
  reason: "not_found" | "conflict";
  field: "account_id" | "kind" | "alert_id";
  message: string;
};
export type AlertAnswer =
  { ok: true; alert: { id: number; kind: AccountAlertKind; amount_cents: number | null } } | AlertRefusal;

/** Keeps `alerts_on` true exactly while a live alert watches the account. */
async function refreshAlertsOn(tx: DbOrTx, account_id: number): Promise<void> {
  await tx
    .update(ledgerAccounts)
    .set({
      alerts_on: sql`exists (select 1 from ${memberAlerts} where ${memberAlerts.account_id} = ${account_id} and ${memberAlerts.removed_at} is null)`,
    })
    .where(eq(ledgerAccounts.id, account_id));
}

interface Member {
  id: string;
  email: string;
}

export async function addAlert(
  db: Db,
  member: Member,
  input: { account_id: number | "all"; kind: AccountAlertKind; amount_cents: number | null },
  origin: AuditOrigin,
): Promise<AlertAnswer> {
  const amount_cents = THRESHOLD_KINDS.has(input.kind) ? input.amount_cents : null;
  if (THRESHOLD_KINDS.has(input.kind) && (amount_cents === null || amount_cents < 1))
    throw new Error("addAlert: a threshold alert needs its amount");
  return db.transaction(async (tx): Promise<AlertAnswer> => {
    // The lock the trigger that gives a new account the alerts for all accounts takes (migration
    // `scheduled_us_bank_and_all_accounts_alerts`): an account opened now is in the list below, or gets the alert.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`member-alerts:${member.id}`}))`);
    // The member's accounts, locked: two adds at once are counted one after the other.
    const accounts = await tx
      .select({ id: ledgerAccounts.id })
      .from(ledgerAccounts)
      .where(
        and(
          eq(ledgerAccounts.member_id, member.id),
          eq(ledgerAccounts.owner, "member"),
          ne(ledgerAccounts.status, "closed"),
        ),
      )
      .orderBy(asc(ledgerAccounts.id))
      .for("update");
    const account_id = input.account_id === "all" ? null : input.account_id;
    const all = account_id === null;
    if (!all && !accounts.some((a) => a.id === account_id))
      return { ok: false, reason: "not_found", field: "account_id", message: ALERT_MESSAGES.account };
    const live = await tx
      .select({
        account_id: memberAlerts.account_id,
        kind: memberAlerts.kind,
        all_accounts_alert_id: memberAlerts.all_accounts_alert_id,
      })
      .from(memberAlerts)
      .where(and(eq(memberAlerts.member_id, member.id), isNull(memberAlerts.removed_at)));
    const same_kind = live.filter((a) => a.kind === input.kind);
    if (same_kind.some((a) => a.account_id === null))
      return { ok: false, reason: "conflict", field: "kind", message: ALERT_MESSAGES.already_all };
    if (!all && same_kind.some((a) => a.account_id === account_id))
      return { ok: false, reason: "conflict", field: "kind", message: ALERT_MESSAGES.already };
    // One account's alert and the one for all would watch the same account twice: one of them is enough.
    if (all && same_kind.length > 0)
      return { ok: false, reason: "conflict", field: "kind", message: ALERT_MESSAGES.single_first };
    // The member's choices count, not the rows an alert for all accounts keeps per account.
    if (live.filter((a) => a.all_accounts_alert_id === null).length >= ALERTS_PER_MEMBER_MAX)
      return { ok: false, reason: "conflict", field: "kind", message: ALERT_MESSAGES.too_many };
    const [row] = await tx
      .insert(memberAlerts)
      .values({ member_id: member.id, account_id, kind: input.kind, amount_cents })
      .returning({ id: memberAlerts.id });
    // For all accounts: a row on each open account now; the trigger adds one to each account opened later.
    const watched = account_id === null ? accounts.map((a) => a.id) : [account_id];
    if (all && watched.length > 0)
      await tx.insert(memberAlerts).values(
        watched.map((id) => ({
          member_id: member.id,
          account_id: id,
          kind: input.kind,
          amount_cents,
          all_accounts_alert_id: row!.id,
        })),
      );
    for (const id of watched) await refreshAlertsOn(tx, id);
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "alerts.added",
      subject_type: "member_alert",
      subject_id: row!.id,
      member_id: member.id,
      after: { account_id: account_id ?? "all", kind: input.kind, amount_cents },
      ...origin,
    });
    return { ok: true, alert: { id: row!.id, kind: input.kind, amount_cents } };
  });
}

/** The member's own live alert as they chose it, locked; another member's or a removed one is not found. */
async function ownLiveAlert(tx: DbOrTx, member_id: string, alert_id: number) {
  const [row] = await tx
    .select()
    .from(memberAlerts)
    .where(
      and(
        eq(memberAlerts.id, alert_id),
        eq(memberAlerts.member_id, member_id),
        isNull(memberAlerts.removed_at),
        // A row an alert for all accounts keeps on one account is changed through that alert.
        isNull(memberAlerts.all_accounts_alert_id),
      ),
    )
    .for("update");
  return row ?? null;
}

/** The live rows an alert for all accounts keeps on each account. */
function liveRowsOf(alert_id: number) {
  return and(eq(memberAlerts.all_accounts_alert_id, alert_id), isNull(memberAlerts.removed_at));
}

const NOT_FOUND: AlertRefusal = {
  ok: false,
  reason: "not_found",
  field: "alert_id",
  message: ALERT_MESSAGES.not_found,
};

export async function editAlertAmount(
  db: Db,
  member: Member,
  input: { alert_id: number; amount_cents: number },
  origin: AuditOrigin,
): Promise<AlertAnswer> {
  return db.transaction(async (tx): Promise<AlertAnswer> => {
    const alert = await ownLiveAlert(tx, member.id, input.alert_id);
    if (!alert || !THRESHOLD_KINDS.has(alert.kind)) return NOT_FOUND;
    await tx
      .update(memberAlerts)
      .set({ amount_cents: input.amount_cents, updated_at: sql`now()` })
      .where(or(eq(memberAlerts.id, alert.id), liveRowsOf(alert.id)));
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "alerts.changed",
      subject_type: "member_alert",
      subject_id: alert.id,
      member_id: member.id,
      before: { amount_cents: alert.amount_cents },
      after: { amount_cents: input.amount_cents },
      ...origin,
    });
    return { ok: true, alert: { id: alert.id, kind: alert.kind, amount_cents: input.amount_cents } };
  });
}

export async function removeAlert(db: Db, member: Member, alert_id: number, origin: AuditOrigin): Promise<AlertAnswer> {
  return db.transaction(async (tx): Promise<AlertAnswer> => {
    const alert = await ownLiveAlert(tx, member.id, alert_id);
    if (!alert) return NOT_FOUND;
    const rows = await tx
      .update(memberAlerts)
      .set({ removed_at: sql`now()`, updated_at: sql`now()` })
      .where(or(eq(memberAlerts.id, alert.id), liveRowsOf(alert.id)))
      .returning({ account_id: memberAlerts.account_id });
    for (const { account_id } of rows) if (account_id !== null) await refreshAlertsOn(tx, account_id);
    await recordAudit(tx, {
      actor_id: member.id,
      actor_email: member.email,
      action: "alerts.removed",
      subject_type: "member_alert",
      subject_id: alert.id,
      member_id: member.id,
      before: { account_id: alert.account_id, kind: alert.kind, amount_cents: alert.amount_cents },
      ...origin,
    });
    return { ok: true, alert: { id: alert.id, kind: alert.kind, amount_cents: alert.amount_cents } };
  });
}

/**
 * A declined card purchase on an account with the "card purchase declined" alert: the email
 * beside the bell's notice authorizeCardPurchase writes for every decline (no posting is written,
 * so the ledger's hook never sees it), in the same transaction as that notice.
 */
export async function tellCardDeclined(
  db: DbOrTx,
  input: { member_id: string; account_id: number; amount_cents: number; merchant: string; reason: string },
): Promise<void> {
  const [row] = await db
    .select({ type: ledgerAccounts.type, account_number: ledgerAccounts.account_number, email: sql<string>`u.email` })
    .from(memberAlerts)
    .innerJoin(ledgerAccounts, eq(ledgerAccounts.id, memberAlerts.account_id))
    .innerJoin(sql`users u`, sql`u.id = ${memberAlerts.member_id}`)
    .where(
      and(
        eq(memberAlerts.account_id, input.account_id),
        eq(memberAlerts.member_id, input.member_id),
        eq(memberAlerts.kind, "card_declined"),
        isNull(memberAlerts.removed_at),
      ),
    );
  if (!row) return;
  const account = accountLabel(row);
  const amount = formatCents(input.amount_cents);
  const email = accountAlertEmail({
    title: `Card purchase of ${amount} declined`,
    body: `A purchase of ${amount} at ${input.merchant} with the debit card on your ${account} was declined: ${input.reason}.`,
  });
  // Written to the outbox for the outbox-delivery job, as the posting alerts are.
  await db.insert(outbox).values({
    to_email: row.email,
    subject: email.subject,
    text_body: email.text,
    kind: email.kind,
    user_id: input.member_id,
  });
}
