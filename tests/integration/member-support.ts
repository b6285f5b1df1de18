import crypto from "node:crypto";
import { desc, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { outbox } from "~/server/db/schema";

/** Shared set-up for the member-app and payments tests: members with a user row, a profile and funded accounts. */
process.env.SESSION_SECRET ??= "integration-test-session-secret-0123456789";
process.env.DATA_ENCRYPTION_KEY ??= "0f".repeat(32);
process.env.LOG_LEVEL = "silent";

/** A member with a profile and funded accounts (tests/factories.ts). */
export { fundedMember as newMember } from "../factories";

export function key(): string {
  return crypto.randomUUID();
}

/** The newest transfer code mailed to an address. */
export async function lastTransferCode(db: Db, email: string): Promise<string> {
  const [row] = await db
    .select()
    .from(outbox)
    .where(eq(outbox.to_email, email.toLowerCase()))
    .orderBy(desc(outbox.id))
    .limit(1);
  const code = /code is: (\d{6})/.exec(row?.text_body ?? "")?.[1];
  if (!code) throw new Error(`no transfer code for ${email}`);
  return code;
}
