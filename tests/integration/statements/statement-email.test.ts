import type net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database, Db } from "~/server/db/client.server";
import { outbox, outboxAttachments } from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { formatCents } from "~/domain/money";
import { maskAccountNumber } from "~/domain/account-display";
import { openTestDatabase } from "../test-database";
import { accepted } from "../ledger-fixtures";
import { key, newMember } from "../member-support";
import { fakeSmtpServer } from "../smtp-support";

/**
 * "Email it to me" (docs/product.md#statements): the statement PDF goes to the member's
 * registered address as an attachment through the outbox and SMTP; the delivered message carries
 * a PDF that parses, with the month's figures. Staff's outbox view shows the text only. Another
 * member's account, a month not offered and more than five in an hour are refused, nothing sent.
 */
const smtp = fakeSmtpServer({});
let database: Database;
let db: Db;
const NOW = new Date("2026-11-24T15:00:00Z");

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.server.listen(0, "127.0.0.1", resolve));
  const { port } = smtp.server.address() as net.AddressInfo;
  // Set before anything reads the environment (env() and the transport are built on first use).
  process.env.SMTP_URL = `smtp://127.0.0.1:${port}`;
  process.env.SESSION_SECRET ??= "integration-test-session-secret-0123456789";
  process.env.LOG_LEVEL = "silent";
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
  smtp.server.close();
});

async function delivered(id: number) {
  for (let i = 0; i < 200; i++) {
    const [row] = await db.select().from(outbox).where(eq(outbox.id, id));
    if (row && (row.sent_at || row.error)) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the message was neither sent nor refused");
}

/** The PDF part of a received MIME message, decoded from base64. */
function pdfAttachment(data: string): { name: string; bytes: Buffer } {
  const at = data.search(/Content-Type: application\/pdf/i);
  if (at < 0) throw new Error("no PDF part");
  const part = data.slice(at);
  const name = /filename="?([^"\n]+)"?/i.exec(part)?.[1] ?? "";
  const body = part.slice(part.indexOf("\n\n") + 2);
  const base64 = body.slice(0, body.indexOf("\n--")).replace(/\s+/g, "");
  return { name, bytes: Buffer.from(base64, "base64") };
}

async function outboxCount(to: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(outbox).where(eq(outbox.to_email, to));
  return Number(row?.n ?? 0);
}

describe("Email it to me", () => {
  it("sends the statement PDF to the registered address; the delivered PDF parses with the month's figures; staff see the text only", async () => {
    const { emailStatement } = await import("~/server/statements/email.server");
    const { listOutbox } = await import("~/server/mail/outbox.server");
    const m = await newMember(db, { checking_cents: 0, savings_cents: 0 });
    const cash = await institutionAccount(db, "cash");
    await accepted(
      postTransfer(db, {
        kind: "ach_in",
        initiator: "system:test",
        idempotency_key: key(),
        created_by: "test",
        effective_date: "2026-10-05",
        memo: "October pay",
        entries: [
          { account_id: m.checking.id, amount_cents: 123_456 },
          { account_id: cash.id, amount_cents: -123_456 },
        ],
      }),
    );

    const answer = await emailStatement(db, m.member.id, String(m.checking.id), "2026-10", NOW);
    expect(answer).toEqual({
      ok: true,
      message: `We emailed your October 2026 statement for Personal Checking ${maskAccountNumber(m.checking.account_number)} to ${m.member.email}.`,
    });
    const [row] = await db.select().from(outbox).where(eq(outbox.to_email, m.member.email));
    expect(row!.kind).toBe("statement");
    expect((await delivered(row!.id)).sent_at).not.toBeNull();

    const message = smtp.received.find((r) => r.to.some((to) => to.includes(m.member.email)));
    if (!message) throw new Error("nothing delivered");
    const pdf = pdfAttachment(message.data);
    expect(pdf.name).toBe(`statement-${m.checking.account_number.slice(-4)}-2026-10.pdf`);
    expect(pdf.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf.bytes)), { mergePages: true });
    expect(text).toContain("October pay");
    expect(text).toContain(formatCents(123_456));

    // Staff's outbox view: the text, never the file.
    const [listed] = (await listOutbox(db, { limit: 50 })).filter((o) => o.id === row!.id);
    expect(listed!.text_body).toContain("is attached as a PDF");
    expect(listed!.text_body).not.toContain("%PDF");
    expect(listed!.text_body).not.toContain(formatCents(123_456));
    expect(Object.keys(listed!)).not.toContain("attachments");
    const [file] = await db.select().from(outboxAttachments).where(eq(outboxAttachments.outbox_id, row!.id));
    expect(file).toMatchObject({ content_type: "application/pdf", size_bytes: pdf.bytes.length });
  });

  it("refuses another member's account (404) and a month not offered (400), sending nothing", async () => {
    const { emailStatement } = await import("~/server/statements/email.server");
    const m = await newMember(db);
    const other = await newMember(db);
    expect(await emailStatement(db, m.member.id, String(other.checking.id), "2026-10", NOW)).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    expect(await emailStatement(db, m.member.id, String(m.checking.id), "2026-11", NOW)).toMatchObject({
      ok: false,
      kind: "bad_input",
    });
    expect(await emailStatement(db, m.member.id, "abc", "2026-10", NOW)).toMatchObject({
      ok: false,
      kind: "not_found",
    });
    expect(await outboxCount(m.member.email)).toBe(0);
    expect(await outboxCount(other.member.email)).toBe(0);
  });

  it("sends at most five an hour a member; the sixth is refused with when to try again, nothing sent", async () => {
    const { emailStatement, statementEmailLimitMessage } = await import("~/server/statements/email.server");
    const m = await newMember(db);
    const cash = await institutionAccount(db, "cash");
    await accepted(
      postTransfer(db, {
        kind: "ach_in",
        initiator: "system:test",
        idempotency_key: key(),
        created_by: "test",
        effective_date: "2026-06-05",
        memo: "June pay",
        entries: [
          { account_id: m.checking.id, amount_cents: 5_000 },
          { account_id: cash.id, amount_cents: -5_000 },
        ],
      }),
    );
    for (const month of ["2026-06", "2026-07", "2026-08", "2026-09", "2026-10"]) {
      expect((await emailStatement(db, m.member.id, String(m.checking.id), month, NOW)).ok).toBe(true);
    }
    const sixth = await emailStatement(db, m.member.id, String(m.checking.id), "2026-10", NOW);
    expect(sixth).toMatchObject({ ok: false, kind: "too_many" });
    if (sixth.ok) throw new Error("expected a refusal");
    expect(sixth.message).toBe(statementEmailLimitMessage(sixth.retry_after_s!));
    expect(sixth.message).toMatch(
      /^You have asked for 5 statements by email in the last hour\. Please try again in \d+ minutes?, or download the PDF\.$/,
    );
    expect(await outboxCount(m.member.email)).toBe(5);
    // Let the five deliveries finish before the database closes.
    for (const row of await db.select({ id: outbox.id }).from(outbox).where(eq(outbox.to_email, m.member.email)))
      await delivered(row.id);
  });
});
