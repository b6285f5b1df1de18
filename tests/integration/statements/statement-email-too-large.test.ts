import { describe, expect, it, vi } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { outbox } from "~/server/db/schema";
import { ATTACHMENTS_MAX_BYTES } from "~/server/mail/outbox.server";
import { emailStatement } from "~/server/statements/email.server";
import type * as MemberStatements from "~/server/statements/member-statements.server";
import { fileDatabase } from "../test-database";
import { newMember } from "../member-support";

/**
 * "Email it to me" with a statement over the outbox's attachment limit (a very busy month): the
 * member reads a clear message (413) next to the button, telling them to download it, and nothing
 * is queued. Before, sendEmail's own guard threw and the page answered 500. The PDF is made big
 * here by standing in for the statement builder: a real one that size takes minutes to build.
 */
vi.mock("~/server/statements/member-statements.server", async (original) => ({
  ...(await original<typeof MemberStatements>()),
  memberStatementPdf: vi.fn(async () => ({
    ok: true as const,
    pdf: Buffer.alloc(ATTACHMENTS_MAX_BYTES + 1),
    file_name: "statement-2026-10.pdf",
    account_label: "Checking ••1234",
    month_label: "October 2026",
  })),
}));

process.env.LOG_LEVEL = "silent";
let db: Db;
fileDatabase({ onOpen: (database) => void (db = database.db) });

describe("a statement too large to email", () => {
  it("is refused with a message to download it, and nothing is queued", async () => {
    const m = await newMember(db, { checking_cents: 1_000 });
    const [before] = await db.select({ n: count() }).from(outbox).where(eq(outbox.user_id, m.member.id));
    const result = await emailStatement(
      db,
      m.member.id,
      String(m.checking.id),
      "2026-10",
      new Date("2026-11-24T15:00:00Z"),
    );
    expect(result).toEqual({
      ok: false,
      kind: "too_large",
      message: "This statement (11 MB) is larger than we can email (10 MB). Please download the PDF instead.",
    });
    const [after] = await db.select({ n: count() }).from(outbox).where(eq(outbox.user_id, m.member.id));
    expect(after!.n).toBe(before!.n);
  });
});
