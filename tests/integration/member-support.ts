import crypto from "node:crypto";
import { desc, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { memberProfiles, outbox, users } from "~/server/db/schema";
import { openMember } from "./ledger-fixtures";

/** Shared set-up for the member-app and payments tests: members with a user row, a profile and funded accounts. */
process.env.SESSION_SECRET ??= "integration-test-session-secret-0123456789";
process.env.DATA_ENCRYPTION_KEY ??= "0f".repeat(32);
process.env.LOG_LEVEL = "silent";

export async function newMember(
  db: Db,
  options: { first_name?: string; last_name?: string; checking_cents?: number; savings_cents?: number; joint_name?: string } = {},
) {
  const id = `user-${crypto.randomBytes(6).toString("hex")}`;
  const first_name = options.first_name ?? "Pat";
  const last_name = options.last_name ?? `Member${id.slice(-4)}`;
  const name = `${first_name} ${last_name}`;
  const email = `${id}@members.example`;
  await db.insert(users).values({ id, name, email, role: "user", emailVerified: true });
  await db.insert(memberProfiles).values({
    user_id: id,
    first_name,
    last_name,
    date_of_birth_enc: "x",
    street: "1 Main Street",
    city: "Portsmouth",
    state: "NH",
    postal_code: "03801",
    country: "United States",
    phone: "(555) 010-0000",
    emergency_name: "E",
    emergency_relationship: "Friend",
    emergency_phone: "(555) 010-0001",
    id_type: "passport",
    id_number_enc: "x",
    joint_account: Boolean(options.joint_name),
    joint_name: options.joint_name ?? null,
    joint_email: options.joint_name ? `joint-${id}@members.example` : null,
    joint_phone: options.joint_name ? "(555) 010-0002" : null,
    status: "approved",
  } as typeof memberProfiles.$inferInsert);
  const accounts = await openMember(db, { member_id: id, checking_cents: options.checking_cents, savings_cents: options.savings_cents });
  return { member: { id, email, name }, ...accounts };
}

export function key(): string {
  return crypto.randomUUID();
}

/** The newest transfer code mailed to an address. */
export async function lastTransferCode(db: Db, email: string): Promise<string> {
  const [row] = await db.select().from(outbox).where(eq(outbox.to_email, email.toLowerCase())).orderBy(desc(outbox.id)).limit(1);
  const code = /code is: (\d{6})/.exec(row?.text_body ?? "")?.[1];
  if (!code) throw new Error(`no transfer code for ${email}`);
  return code;
}
