import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import { auditLog, staffSignInCodes } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import { STAFF_CODE_TRIVIAL_MESSAGE } from "~/domain/application-review";
import { issueStaffCode } from "~/server/auth/staff-codes.server";
import * as adminIndexRoute from "~/routes/admin/index";
import { openTestDatabase } from "../test-database";
import { person, signedIn } from "../admin-support";

/** A sign-in code staff type for a member must not be one of the first guesses (000000, 123456). */
let database: Database;
let staffCookie = "";
let member: { id: string; email: string };

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  staffCookie = await signedIn(database.db, (await person(database.db, "admin")).id);
  member = await person(database.db, "user");
});
afterAll(async () => {
  await database?.close();
});

function issue(code: string, member_email = member.email) {
  const provider = new RouterContextProvider();
  provider.set(requestInfoContext, { request_id: "staff-code-0001", ip: "203.0.113.63", nonce: "" });
  const request = new Request("http://localhost:3000/admin?index", {
    method: "POST",
    headers: {
      origin: "http://localhost:3000",
      cookie: staffCookie,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ intent: "issue_code", member_email, code }),
  });
  return adminIndexRoute.action({ request, params: {}, context: provider } as never) as Promise<unknown>;
}

const codesOf = async () =>
  Number(
    (await database.db.select({ n: count() }).from(staffSignInCodes).where(eq(staffSignInCodes.user_id, member.id)))[0]!
      .n,
  );
const audits = async () => Number((await database.db.select({ n: count() }).from(auditLog))[0]!.n);

describe("staff-issued sign-in codes refuse trivial codes", () => {
  it.each(["000000", "111111", "123456", "654321", "890123"])(
    "the one-time-code panel refuses %s with a message; no code is issued",
    async (code) => {
      const [codes, audited] = [await codesOf(), await audits()];
      const answer = (await issue(code)) as {
        init?: { status?: number };
        data?: { message?: string; issued?: unknown };
      };
      expect(answer.init?.status).toBe(400);
      expect(answer.data?.message).toBe(STAFF_CODE_TRIVIAL_MESSAGE);
      expect(answer.data?.issued).toBeUndefined();
      expect(await codesOf()).toBe(codes);
      expect(await audits()).toBe(audited);
    },
  );

  it("the panel still issues a typed code that is not trivial, and generated ones", async () => {
    // A success is the plain answer (no status to set).
    const typed = (await issue("580316")) as { issued?: { code: string } };
    expect(typed.issued?.code).toBe("580316");
    const generated = (await issue("")) as { issued?: { code: string } };
    expect(generated.issued?.code).toMatch(/^\d{6}$/);
  });

  it("issueStaffCode itself refuses them, whoever calls it", async () => {
    await expect(issueStaffCode(database.db, { user_id: member.id, issued_by: null, code: "000000" })).rejects.toThrow(
      STAFF_CODE_TRIVIAL_MESSAGE,
    );
  });

  it("an email address with a control character is refused with a message, not a 500", async () => {
    const answer = (await issue("", "a\u0000@example.com")) as {
      init?: { status?: number };
      data?: { message?: string };
    };
    expect(answer.init?.status).toBe(400);
    expect(answer.data?.message).toBe("Failed: enter the member's email address.");
  });
});
