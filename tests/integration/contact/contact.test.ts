import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { desc, eq, sql } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import { requestInfoContext } from "~/context";
import { setAppDatabase } from "~/server/db/db.server";
import { action } from "~/routes/public/contact";
import { ContactMessageSchema } from "~/domain/contact";
import { CONTACT_RATE_LIMIT, contactReference, sendContactMessage } from "~/server/contact/contact.server";
import { contactMessages } from "~/server/db/schema";
import type { Database } from "~/server/db/client.server";
import { openTestDatabase } from "../test-database";
import { fieldErrors, formValues } from "../../form-reply";

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  // The route's action uses the app's database: make it this one.
  setAppDatabase(database);
});
afterAll(async () => {
  await database?.close();
});

const message = ContactMessageSchema.parse({
  name: "Ada Lovelace",
  email: "ada@example.com",
  phone: "(555) 010-4400",
  subject: "loan",
  message: "I would like to talk about a car loan.",
  preferred_contact: "phone",
});

const countFrom = async (source_ip: string) =>
  Number(
    (
      await database.db.execute<{ n: string }>(
        sql`select count(*) as n from contact_messages where source_ip = ${source_ip}`,
      )
    ).rows[0]!.n,
  );

describe("sendContactMessage", () => {
  it("stores the message with where it came from, as new, for the back office", async () => {
    const result = await sendContactMessage(
      message,
      { source_ip: "198.51.100.7", request_id: "req-store-0001" },
      { database: database.db },
    );
    expect(result.ok).toBe(true);
    const [row] = await database.db.select().from(contactMessages).orderBy(desc(contactMessages.id)).limit(1);
    expect(row).toMatchObject({
      id: result.ok ? result.id : -1,
      name: "Ada Lovelace",
      email: "ada@example.com",
      phone: "(555) 010-4400",
      subject: "loan",
      message: "I would like to talk about a car loan.",
      preferred_contact: "phone",
      status: "new",
      source_ip: "198.51.100.7",
      request_id: "req-store-0001",
    });
    expect(row!.created_at).toBeInstanceOf(Date);
  });

  it("stores no phone when none was given", async () => {
    const noPhone = ContactMessageSchema.parse({ ...message, phone: "", preferred_contact: "email" });
    const result = await sendContactMessage(
      noPhone,
      { source_ip: "198.51.100.8", request_id: "req-store-0002" },
      { database: database.db },
    );
    if (!result.ok) throw new Error("expected the message to be stored");
    const [row] = await database.db.select().from(contactMessages).where(eq(contactMessages.id, result.id));
    expect(row!.phone).toBeNull();
    expect(row!.preferred_contact).toBe("email");
  });

  it("refuses the sixth message from one address in ten minutes, and stores nothing for it", async () => {
    const now = new Date(Date.UTC(2026, 10, 22, 9, 1, 0));
    const ip = "203.0.113.50";
    const results = [];
    for (let i = 0; i < 6; i++)
      results.push(
        await sendContactMessage(
          message,
          { source_ip: ip, request_id: `req-limit-${i}` },
          { now, database: database.db },
        ),
      );
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, false]);
    expect(results[5]).toEqual({
      ok: false,
      kind: "too_many",
      code: "rate_limited",
      message: "Too many messages from your connection",
      retry_after_s: 9 * 60,
    });
    expect(await countFrom(ip)).toBe(CONTACT_RATE_LIMIT.limit);

    // Another address is not affected; the same address may send again in the next window.
    const other = await sendContactMessage(
      message,
      { source_ip: "203.0.113.51", request_id: "req-limit-other" },
      { now, database: database.db },
    );
    expect(other.ok).toBe(true);
    const nextWindow = new Date(now.getTime() + CONTACT_RATE_LIMIT.window_ms);
    const again = await sendContactMessage(
      message,
      { source_ip: ip, request_id: "req-limit-again" },
      { now: nextWindow, database: database.db },
    );
    expect(again.ok).toBe(true);
    expect(await countFrom(ip)).toBe(CONTACT_RATE_LIMIT.limit + 1);
  });
});

describe("contactReference", () => {
  it("is the first eight characters of the request id, for the visitor to quote", () => {
    expect(contactReference("3f2a9c1e-7b4d-4e0a-9f1c-2d3e4f5a6b7c")).toBe("3F2A9C1E");
  });
});

/** Calls the page's action as React Router would, with a posted form from `ip`. */
async function post(fields: Record<string, string>, ip: string) {
  const context = new RouterContextProvider();
  context.set(requestInfoContext, { request_id: `req-${crypto.randomUUID()}`, nonce: "", ip });
  const request = new Request("http://localhost/contact", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  const result = (await action({ request, context, params: {} } as unknown as Parameters<typeof action>[0])) as unknown;
  // data() results carry their body in .data and a status in .init; plain objects are 200.
  if (result && typeof result === "object" && "data" in result && "init" in result) {
    const d = result as { data: Record<string, unknown>; init: { status?: number } | null };
    return { status: d.init?.status ?? 200, body: d.data };
  }
  return { status: 200, body: result as Record<string, unknown> };
}

const form = {
  name: "Grace Hopper",
  email: "grace@example.com",
  phone: "",
  subject: "technical",
  message: "The app will not load.",
  preferred_contact: "email",
  website: "",
};

describe("the /contact action", () => {
  it("stores a valid message and confirms it with a reference", async () => {
    const ip = "192.0.2.10";
    const res = await post(form, ip);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "sent", name: "Grace Hopper", preferred_contact: "email" });
    expect(res.body.reference).toMatch(/^[0-9A-Z]{8}$/);
    expect(await countFrom(ip)).toBe(1);
  });

  it("answers invalid input with a message per field, keeps what was typed, and stores nothing", async () => {
    const ip = "192.0.2.11";
    const res = await post({ ...form, name: "", email: "grace@", subject: "", message: "Still typed" }, ip);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: "invalid" });
    expect(fieldErrors(res.body)).toMatchObject({
      name: "Enter your name.",
      email: "Enter a valid email address, like name@example.com.",
      subject: "Choose a subject.",
    });
    expect(formValues(res.body)).toMatchObject({ email: "grace@", message: "Still typed" });
    expect(formValues(res.body).website).toBeUndefined();
    expect(await countFrom(ip)).toBe(0);
  });

  it("pretends to accept a message whose honeypot is filled, and stores nothing", async () => {
    const ip = "192.0.2.12";
    const res = await post({ ...form, website: "https://spam.example" }, ip);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "sent" });
    expect(await countFrom(ip)).toBe(0);
    // Nor does it use up the address's allowance.
    const counters = await database.db.execute(
      sql`select 1 from rate_limit_counters where key = ${`contact:ip:${ip}`}`,
    );
    expect(counters.rows).toHaveLength(0);
  });

  it("refuses the sixth message from one address with 429 and Retry-After, keeping the values", async () => {
    const ip = "192.0.2.13";
    for (let i = 0; i < 5; i++) expect((await post(form, ip)).body.status).toBe("sent");
    const refused = await post({ ...form, message: "One more" }, ip);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ status: "rate_limited" });
    expect(formValues(refused.body)).toMatchObject({ message: "One more" });
    expect(refused.body.retry_after_s).toBeGreaterThan(0);
    expect(await countFrom(ip)).toBe(5);
  });

  it("answers a malformed body with 400 and stores nothing", async () => {
    const context = new RouterContextProvider();
    context.set(requestInfoContext, { request_id: "req-malformed", nonce: "", ip: "192.0.2.14" });
    const request = new Request("http://localhost/contact", {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=abc" },
      body: '--abc\r\nContent-Disposition: form-data; name="name"\r\n\r\nunterminated',
    });
    await expect(
      action({ request, context, params: {} } as unknown as Parameters<typeof action>[0]),
    ).rejects.toMatchObject({ init: { status: 400 } });
    expect(await countFrom("192.0.2.14")).toBe(0);
  });
});
