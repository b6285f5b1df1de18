import "../identity-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { applicationInfoRequests, memberProfiles, memberSettings, rateLimitCounters, users } from "~/server/db/schema";
import { answerInfoRequest, getApplicantOverview, submitApplication } from "~/server/applications/applications.server";
import { sessionUserFromCookie } from "~/server/auth/session.server";
import { uploadsRoot } from "~/server/uploads/private-uploads.server";
import { openTestDatabase } from "../test-database";
import { Browser, fileOf, lastMessageTo, tinyPng } from "../identity-support";
import { applicationFor } from "../admin-support";

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

/** A valid application (the back-office tests' fixture), each with its own email. */
const application = applicationFor;

describe("membership applications", () => {
  it("stores an application with the date of birth and ID number encrypted, signs the applicant in, and acknowledges it", async () => {
    const browser = new Browser("203.0.113.20");
    const app = application();
    const result = await submitApplication(database.db, browser.meta(), app, fileOf(tinyPng(), "id.png", "image/png"));
    expect(result.status).toBe("created");
    if (result.status !== "created") return;
    browser.apply(result.set_cookies);

    // No plaintext anywhere in the row: not the date of birth, not the ID number.
    const raw = await database.db.execute<Record<string, unknown>>(
      sql`select * from member_profiles where user_id = ${result.user_id}`,
    );
    const text = JSON.stringify(raw.rows);
    expect(text).not.toContain("1988-04-17");
    expect(text).not.toContain("P1234567890");
    expect(text).not.toContain("1234567890");
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, result.user_id));
    expect(profile).toMatchObject({
      status: "pending",
      document_status: "pending",
      first_name: "Jamie",
      joint_account: false,
      id_type: "passport",
    });
    expect(profile!.date_of_birth_enc).toMatch(/^v1\./);

    const [user] = await database.db.select().from(users).where(eq(users.id, result.user_id));
    expect(user).toMatchObject({ role: "pending", twoFactorEnabled: true, email: app.email });
    const [settings] = await database.db
      .select()
      .from(memberSettings)
      .where(eq(memberSettings.user_id, result.user_id));
    expect(settings).toMatchObject({
      email_notifications: true,
      sms_notifications: false,
      push_notifications: true,
      two_factor: false,
      login_alerts: true,
    });

    // The stored document is a re-encoded PNG with a random name, outside anything served.
    const stored = path.join(uploadsRoot(), "id-documents", profile!.id_document_file!);
    expect(profile!.id_document_file).toMatch(/^[0-9a-f]{32}\.png$/);
    expect(fs.statSync(stored).mode & 0o777).toBe(0o600);

    const session = await sessionUserFromCookie(database.db, browser.cookieHeader());
    expect(session).toMatchObject({ id: result.user_id, role: "pending", application_status: "pending" });

    const message = await lastMessageTo(database.db, app.email);
    expect(message).toMatchObject({ kind: "application_received" });

    const overview = await getApplicantOverview(database.db, result.user_id);
    expect(overview).toMatchObject({
      date_of_birth_masked: "••/••/1988",
      id_number_masked: "•••••••7890",
      status: "pending",
    });
  });

  it("refuses an email that already has an account, and leaves nothing behind", async () => {
    const app = application();
    const first = await submitApplication(
      database.db,
      new Browser("203.0.113.21").meta(),
      app,
      fileOf(tinyPng(), "id.png", "image/png"),
    );
    expect(first.status).toBe("created");
    const before = fs.readdirSync(path.join(uploadsRoot(), "id-documents")).length;
    const again = await submitApplication(
      database.db,
      new Browser("203.0.113.21").meta(),
      { ...app, first_name: "Other" },
      fileOf(tinyPng(), "id.png", "image/png"),
    );
    expect(again.status).toBe("email_taken");
    expect(fs.readdirSync(path.join(uploadsRoot(), "id-documents")).length).toBe(before);
    const rows = await database.db.select().from(users).where(eq(users.email, app.email));
    expect(rows).toHaveLength(1);
  });

  it("checks the document by its content and size, not its name", async () => {
    const browser = new Browser("203.0.113.22");
    const fakePng = fileOf(new TextEncoder().encode("<script>alert(1)</script>"), "id.png", "image/png");
    const wrong = await submitApplication(database.db, browser.meta(), application(), fakePng);
    expect(wrong).toEqual({
      status: "document_rejected",
      message: "The document must be a JPEG, PNG or WebP image, or a PDF",
    });

    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(tinyPng());
    const tooBig = await submitApplication(
      database.db,
      browser.meta(),
      application(),
      fileOf(big, "id.png", "image/png"),
    );
    expect(tooBig).toEqual({ status: "document_rejected", message: "The document must be 10 MB or smaller" });

    const missing = await submitApplication(database.db, browser.meta(), application(), null);
    expect(missing).toEqual({
      status: "document_rejected",
      message: "Please upload an image or PDF of your ID document",
    });

    const pdf = fileOf(
      new TextEncoder().encode("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"),
      "scan.pdf",
      "application/pdf",
    );
    expect((await submitApplication(database.db, browser.meta(), application(), pdf)).status).toBe("created");
  });

  it("limits applications per network address", async () => {
    const browser = new Browser("198.51.100.99");
    await database.db.insert(rateLimitCounters).values({
      key: `application:ip:${browser.ip}`,
      window_start: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000),
      hits: 20,
    });
    const result = await submitApplication(
      database.db,
      browser.meta(),
      application(),
      fileOf(tinyPng(), "id.png", "image/png"),
    );
    expect(result.status).toBe("rate_limited");
  });

  it("lets an applicant answer a request for information once, with an optional new document", async () => {
    const app = application();
    const created = await submitApplication(
      database.db,
      new Browser("203.0.113.23").meta(),
      app,
      fileOf(tinyPng(), "id.png", "image/png"),
    );
    if (created.status !== "created") throw new Error(created.status);
    const [request] = await database.db
      .insert(applicationInfoRequests)
      .values({ user_id: created.user_id, message: "Please upload a clearer photo." })
      .returning();
    await database.db
      .update(memberProfiles)
      .set({ document_status: "info_requested" })
      .where(eq(memberProfiles.user_id, created.user_id));

    // Somebody else's request id is "not found", never answered.
    const other = await answerInfoRequest(database.db, {
      user_id: "someone-else",
      request_id: request!.id,
      text: "x",
      document: null,
    });
    expect(other.status).toBe("not_found");

    const answer = await answerInfoRequest(database.db, {
      user_id: created.user_id,
      request_id: request!.id,
      text: "Here is a clearer one.",
      document: fileOf(tinyPng(), "new.png", "image/png"),
    });
    expect(answer.status).toBe("answered");
    const overview = await getApplicantOverview(database.db, created.user_id);
    expect(overview?.document_status).toBe("pending");
    expect(overview?.info_requests[0]).toMatchObject({ status: "answered", answer_text: "Here is a clearer one." });

    const twice = await answerInfoRequest(database.db, {
      user_id: created.user_id,
      request_id: request!.id,
      text: "Again",
      document: null,
    });
    expect(twice.status).toBe("not_found");
  });
});
