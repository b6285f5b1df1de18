import { eq } from "drizzle-orm";
import type { Actor } from "~/domain/actor";
import type { Db } from "~/server/db/client.server";
import { linkedAccounts } from "~/server/db/schema";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { confirmLinkedAccount, linkAccount } from "~/server/linked-accounts/linked-accounts.server";
import { exportPayments } from "~/server/rails/export.server";
import { linkAccountSchema } from "~/domain/linked-accounts";

/** The linked account's number: no page may show it whole, not even to its owner. */
export const RAINY_DAY_ACCOUNT_NUMBER = "55501234";

/**
 * The member's linked account in the authorization tests: "Rainy day fund" at routing 021000021,
 * its two micro-deposits sent in the ACH file `staff` exports; with `verified`, confirmed with
 * them, as the member would. Answers the link's id and the micro-deposits' amounts.
 */
export async function rainyDayLink(
  db: Db,
  member: Parameters<typeof linkAccount>[1],
  staff: Actor,
  origin: AuditOrigin,
  options: { verified: boolean },
): Promise<{ link_id: number; amounts: [number, number] }> {
  const linked = await linkAccount(
    db,
    member,
    linkAccountSchema.parse({
      routing_number: "021000021",
      account_number: RAINY_DAY_ACCOUNT_NUMBER,
      account_type: "checking",
      nickname: "Rainy day fund",
    }),
    origin,
  );
  const sent = await exportPayments(db, "ach", staff, origin);
  if (!sent.ok) throw new Error(sent.message);
  const [row] = await db.select().from(linkedAccounts).where(eq(linkedAccounts.id, linked.id));
  const amounts: [number, number] = [row!.micro_first_cents, row!.micro_second_cents];
  if (options.verified) {
    const verified = await confirmLinkedAccount(db, member, linked.id, amounts, origin);
    if (!verified.ok) throw new Error("not verified");
  }
  return { link_id: linked.id, amounts };
}
