import { eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { memberProfiles, memberSettings } from "~/server/db/schema";

/**
 * What the rest of the server reads about a member's record: where their application stands and
 * their settings. No sign-in or service code here, so sign-in (app/server/auth) can read it while
 * the application flow (app/server/applications), which creates sign-ins, depends on both.
 */

/** Associated data that binds an encrypted value to its column and member. */
export function encryptionContext(column: "date_of_birth" | "id_number", user_id: string): string {
  return `member_profiles.${column}:${user_id}`;
}

/** The application status that decides where a pending user may go (null: no application). */
export async function applicationStatus(db: Db, user_id: string): Promise<"pending" | "approved" | "rejected" | null> {
  const [row] = await db
    .select({ status: memberProfiles.status })
    .from(memberProfiles)
    .where(eq(memberProfiles.user_id, user_id));
  return row?.status ?? null;
}

export interface MemberSettings {
  email_notifications: boolean;
  sms_notifications: boolean;
  push_notifications: boolean;
  two_factor: boolean;
  login_alerts: boolean;
}

/** The defaults of docs/product.md#settings. */
export const DEFAULT_MEMBER_SETTINGS: MemberSettings = {
  email_notifications: true,
  sms_notifications: false,
  push_notifications: true,
  two_factor: false,
  login_alerts: true,
};

/** A member's settings; the defaults when none were stored yet. */
export async function getMemberSettings(db: Db, user_id: string): Promise<MemberSettings> {
  const [row] = await db.select().from(memberSettings).where(eq(memberSettings.user_id, user_id));
  if (!row) return { ...DEFAULT_MEMBER_SETTINGS };
  return {
    email_notifications: row.email_notifications,
    sms_notifications: row.sms_notifications,
    push_notifications: row.push_notifications,
    two_factor: row.two_factor,
    login_alerts: row.login_alerts,
  };
}
