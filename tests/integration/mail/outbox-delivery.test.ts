import type net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { outbox } from "~/server/db/schema";
import { openTestDatabase } from "../test-database";
import { fakeSmtpServer } from "../smtp-support";

/**
 * Delivery through SMTP (SMTP_URL): a stored message goes out right after it is written, the row
 * records the outcome, and a delivered message's secret (code, link) is removed from the stored
 * copy. A tiny SMTP server stands in for the mail relay.
 */
const smtp = fakeSmtpServer({ refuseRecipient: "bounce@example.com" });
let database: Database;

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.server.listen(0, "127.0.0.1", resolve));
  const { port } = smtp.server.address() as net.AddressInfo;
  // Set before anything reads the environment (env() and the transport are built on first use).
  process.env.SMTP_URL = `smtp://127.0.0.1:${port}`;
  process.env.SESSION_SECRET ??= "integration-test-session-secret-0123456789";
  process.env.LOG_LEVEL = "silent";
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
  smtp.server.close();
});

async function waitForRow(id: number) {
  for (let i = 0; i < 100; i++) {
    const [row] = await database.db.select().from(outbox).where(eq(outbox.id, id));
    if (row && (row.sent_at || row.error)) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the message was neither sent nor refused");
}

describe("outbox delivery by SMTP", () => {
  it("sends right after storing, marks the row sent, and keeps no usable code", async () => {
    const { sendEmail } = await import("~/server/mail/outbox.server");
    const { signInCodeEmail } = await import("~/server/mail/templates.server");
    const { id } = await sendEmail(database.db, { ...signInCodeEmail("482913", 10), to: "member@example.com" });
    const row = await waitForRow(id);
    expect(row.sent_at).not.toBeNull();
    expect(row.error).toBeNull();
    expect(row.attempts).toBe(1);
    expect(row.text_body).not.toContain("482913");
    expect(row.text_body).toContain("••••••");
    const delivered = smtp.received.find((m) => m.to.some((to) => to.includes("member@example.com")));
    expect(delivered?.data).toContain("482913");
  });

  it("records a refusal on the row", async () => {
    const { sendEmail } = await import("~/server/mail/outbox.server");
    const { applicationReceivedEmail } = await import("~/server/mail/templates.server");
    const { id } = await sendEmail(database.db, { ...applicationReceivedEmail("Robin"), to: "bounce@example.com" });
    const row = await waitForRow(id);
    expect(row.sent_at).toBeNull();
    expect(row.error).toMatch(/550|mailbox/i);
    expect(row.attempts).toBe(1);
  });
});
