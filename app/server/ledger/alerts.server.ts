import { accountLabel } from "~/domain/account-display";
import { alertMessage, alertsMet, type AccountAlertKind, type PostingFacts, type WatchedAlert } from "~/domain/alerts";
import { toCents, toId, type AccountChange, type EntryInput, type TransactionKind } from "~/domain/ledger-rules";
import type { LedgerSession } from "./session.server";
import { accountAlertEmail } from "~/server/mail/templates.server";
import { NOTIFICATION_BODY_MAX, NOTIFICATION_TITLE_MAX } from "~/server/notifications/notifications.server";

/**
 * The ledger's hook for the alerts members choose (docs/product.md#alerts; the alerts themselves
 * are kept by app/server/alerts, the rules are app/domain/alerts.ts). The ledger calls it
 * in the posting's own database transaction, after the posting is written (never for a repeat
 * of its key): the alerts a posting meets become a bell notification and an outbox email in that
 * transaction, so an alert commits with its posting or not at all, and a repeat writes none.
 * The outbox-delivery job sends the email (app/server/jobs/outbox-retry.server.ts); the
 * notification's trigger queues its pushes (migration 0048).
 *
 * A posting to accounts whose `alerts_on` is false (read with the accounts' locks) costs nothing
 * here: no statement. Otherwise one statement reads the accounts' live alerts and, when any is
 * met, one more writes the notifications and emails.
 */

/** An account as the posting locked it: its figures before, whose it is, whether it has alerts. */
export interface AlertAccount {
  posted_cents: number;
  held_cents: number;
  type: string;
  account_number: string;
  alerts_on: boolean;
}

/** One posting of the operation, in order: what it did to the accounts' figures. */
export interface PostingForAlerts {
  event: PostingFacts["event"];
  kind: TransactionKind;
  status: "posted" | "pending";
  entries: readonly EntryInput[];
  changes: readonly AccountChange[];
}

/** True when none of the accounts has an alert: the ledger's fast path, no statement. */
export function noAlerts(accounts: ReadonlyMap<number, AlertAccount>): boolean {
  for (const account of accounts.values()) if (account.alerts_on) return false;
  return true;
}

export async function writePostingAlerts(
  session: LedgerSession,
  accounts_before: ReadonlyMap<number, AlertAccount>,
  postings: readonly PostingForAlerts[],
): Promise<void> {
  if (noAlerts(accounts_before) || postings.length === 0) return;
  const watched = [...accounts_before].filter(([, a]) => a.alerts_on).map(([id]) => id);
  const alerts = (
    await session.query(
      `SELECT id, member_id, account_id, kind, amount_cents FROM member_alerts
        WHERE account_id IN (SELECT value::bigint FROM jsonb_array_elements_text($1::jsonb))
          AND removed_at IS NULL AND kind <> 'card_declined'
        ORDER BY id`,
      [JSON.stringify(watched)],
      { prepare: true },
    )
  ).map((row): WatchedAlert => ({
    id: toId(row.id),
    member_id: String(row.member_id),
    account_id: toId(row.account_id),
    kind: row.kind as AccountAlertKind,
    amount_cents: row.amount_cents === null ? null : toCents(row.amount_cents),
  }));
  if (alerts.length === 0) return;

  // Each posting in turn: the available balance before it and after it, for the watched accounts.
  const available = new Map(watched.map((id) => [id, availableOf(accounts_before.get(id)!)]));
  const items: { member_id: string; title: string; body: string; subject: string; text: string }[] = [];
  for (const posting of postings) {
    const before = new Map(available);
    for (const change of posting.changes) {
      const now = available.get(change.account_id);
      if (now !== undefined)
        available.set(change.account_id, now + change.posted_delta_cents - change.held_delta_cents);
    }
    const met = alertsMet(alerts, { ...posting, available_before: before, available_after: new Map(available) });
    for (const m of met) {
      const message = alertMessage(m, accountLabel(accounts_before.get(m.alert.account_id)!));
      const email = accountAlertEmail(message);
      items.push({
        member_id: m.alert.member_id,
        title: message.title.slice(0, NOTIFICATION_TITLE_MAX),
        body: message.body.slice(0, NOTIFICATION_BODY_MAX),
        subject: email.subject,
        text: email.text,
      });
    }
  }
  if (items.length === 0) return;
  await session.query(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(n integer, member_id text, title text, body text, subject text, text text)
     ), n AS (
       INSERT INTO notifications (member_id, kind, title, body)
       SELECT v.member_id, 'account_alert', v.title, v.body FROM v ORDER BY v.n
     )
     INSERT INTO outbox (to_email, subject, text_body, kind, user_id)
     SELECT u.email, v.subject, v.text, 'account_alert', v.member_id FROM v JOIN users u ON u.id = v.member_id ORDER BY v.n`,
    [JSON.stringify(items.map((item, n) => ({ n, ...item })))],
    { prepare: true },
  );
}

function availableOf(account: AlertAccount): number {
  return account.posted_cents - account.held_cents;
}
