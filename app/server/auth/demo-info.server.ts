import { institution } from "~/config/institution.server";
import type { Db } from "~/server/db/client.server";
import { listMessagesTo } from "~/server/mail/outbox.server";
import {
  DEMO_SIGNINS,
  isDemoSignIn,
  isReservedEmailAddress,
  RESERVED_EMAIL_DOMAINS,
} from "~/server/auth/demo-signins.server";

/** What /login shows in demo mode (null otherwise): the published sign-ins. */
export function demoSignInsForLogin() {
  if (!institution().demo) return null;
  return DEMO_SIGNINS.map(({ kind, label, email, password }) => ({ kind, label, email, password }));
}

export interface DemoInboxMessage {
  id: number;
  to: string;
  subject: string;
  text: string;
  kind: string;
  created_at: string;
  /** The sign-in code in a sign-in code message, shown large. */
  code: string | null;
  /** The reset link in a password reset message, as a path on this site. */
  link: string | null;
}

function resetLinkPath(text: string): string | null {
  const match = /https?:\/\/\S+\/reset-password\?token=[A-Za-z0-9_%-]+/.exec(text);
  if (!match) return null;
  const url = new URL(match[0]);
  return `${url.pathname}${url.search}`;
}

/**
 * The demo inbox (demo mode only): mail to the demo sign-ins and to addresses in reserved example
 * domains (RFC 2606/6761), which can never belong to a real person. Mail to any other address is
 * never shown, not even in demo mode. Null when not in demo mode.
 */
export async function demoInbox(
  db: Db,
  filter_to?: string | null,
): Promise<{ messages: DemoInboxMessage[]; to: string | null } | null> {
  if (!institution().demo) return null;
  const wanted = filter_to?.trim().toLowerCase() || null;
  const allowed = wanted && (isDemoSignIn(wanted) || isReservedEmailAddress(wanted)) ? wanted : null;
  const rows = allowed
    ? await listMessagesTo(db, { addresses: [allowed] }, { limit: 50 })
    : await listMessagesTo(
        db,
        { addresses: DEMO_SIGNINS.map((s) => s.email), domain_suffixes: RESERVED_EMAIL_DOMAINS },
        { limit: 50 },
      );
  return {
    to: allowed,
    messages: rows
      // Belt and braces: whatever the query returned, only allowed addresses leave this function.
      .filter((row) => isDemoSignIn(row.to_email) || isReservedEmailAddress(row.to_email))
      .map((row) => ({
        id: row.id,
        to: row.to_email,
        subject: row.subject,
        text: row.text_body,
        kind: row.kind,
        created_at: row.created_at.toISOString(),
        code: row.kind === "sign_in_code" ? (/code is: (\d{6})/.exec(row.text_body)?.[1] ?? null) : null,
        link: row.kind === "password_reset" ? resetLinkPath(row.text_body) : null,
      })),
  };
}
