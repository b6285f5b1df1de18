import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, desc, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, contactMessages, memberProfiles } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { rejectApplication } from "~/server/admin/review.server";
import * as layoutRoute from "~/routes/admin/layout";
import * as indexRoute from "~/routes/admin/index";
import * as auditRoute from "~/routes/admin/audit";
import * as auditCsvRoute from "~/routes/admin/audit-csv";
import * as outboxRoute from "~/routes/admin/outbox";
import * as messagesRoute from "~/routes/admin/messages";
import * as documentRoute from "~/routes/admin/member-document";
import { readProfileImage } from "~/server/profile-images/profile-images.server";
import { openTestDatabase } from "../test-database";
import { applicant, fullChecklist, ORIGIN, person } from "../admin-support";
import { expectSentAway, itRefuses, HOST, refusedStatus, routeContext, run, SignedIn } from "../authorization-matrix";
import { fileOf, tinyPng } from "../identity-support";
import { fieldErrors } from "../../form-reply";

/**
 * The authorization matrix (docs/product.md#access-rules): every /admin page and action, for a
 * visitor, a pending applicant, a rejected applicant, a member, an accountant (the books only) and
 * staff. Pages redirect (to /login with the way back, /pending-approval, /not-approved, /dashboard,
 * /admin/books); actions answer 401 / 403;
 * nobody but staff gets any back-office data, and a refused action changes nothing.
 */
type Persona = "anonymous" | "pending" | "rejected" | "member" | "accountant" | "staff";
const PERSONAS: Persona[] = ["anonymous", "pending", "rejected", "member", "accountant", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let applicantId = "";
let applicantEmail = "";
let messageId = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const staff = await person(database.db, "admin");
  const member = await person(database.db, "user");
  const pending = await applicant(database.db);
  const rejected = await applicant(database.db);
  await rejectApplication(database.db, {
    member_id: rejected.id,
    staff,
    checklist: fullChecklist(),
    reason: "Not eligible",
    origin: ORIGIN,
  });
  const subject = await applicant(database.db, { first_name: "Matrix", last_name: "Subject" });
  applicantId = subject.id;
  applicantEmail = subject.email;
  people = await SignedIn.as(database.db, {
    staff: staff.id,
    member: member.id,
    accountant: (await person(database.db, "accountant")).id,
    pending: pending.id,
    rejected: rejected.id,
  });
  const [message] = await database.db
    .insert(contactMessages)
    .values({
      name: "Visitor",
      email: "visitor@example.com",
      subject: "general",
      message: "Hello there, a question about loans.",
      preferred_contact: "email",
    })
    .returning({ id: contactMessages.id });
  messageId = message!.id;
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "matrix-request-0001", ip: "203.0.113.77" });
const request = (persona: Persona, path: string, form?: Record<string, string>) => people.request(persona, path, form);

const PAGES: { path: string; load: (r: Request) => Promise<unknown> }[] = [
  { path: "/admin", load: (r) => layoutRoute.loader({ request: r, params: {}, context: context() } as never) },
  { path: "/admin?index", load: (r) => indexRoute.loader({ request: r, params: {}, context: context() } as never) },
  { path: "/admin/audit", load: (r) => auditRoute.loader({ request: r, params: {}, context: context() } as never) },
  {
    path: "/admin/audit.csv",
    load: (r) => auditCsvRoute.loader({ request: r, params: {}, context: context() } as never),
  },
  { path: "/admin/outbox", load: (r) => outboxRoute.loader({ request: r, params: {}, context: context() } as never) },
  {
    path: "/admin/messages",
    load: (r) => messagesRoute.loader({ request: r, params: {}, context: context() } as never),
  },
  {
    path: "/admin/members/ID/document",
    load: (r) => documentRoute.loader({ request: r, params: { memberId: applicantId }, context: context() } as never),
  },
];

const ACTIONS: {
  name: string;
  path: string;
  form: () => Record<string, string>;
  act: (r: Request) => Promise<unknown>;
}[] = [
  {
    name: "approve",
    path: "/admin?index",
    form: () => ({
      intent: "review",
      member_id: applicantId,
      decision: "approve",
      ...Object.fromEntries(Object.keys(fullChecklist()).map((k) => [`check_${k}`, "on"])),
      identity_method: "documentary",
      discrepancy: "none",
    }),
    act: (r) => indexRoute.action({ request: r, params: {}, context: context() } as never),
  },
  {
    name: "reject",
    path: "/admin?index",
    form: () => ({ intent: "review", member_id: applicantId, decision: "reject", reason: "Refused by a test" }),
    act: (r) => indexRoute.action({ request: r, params: {}, context: context() } as never),
  },
  {
    name: "request info",
    path: "/admin?index",
    form: () => ({ intent: "review", member_id: applicantId, decision: "request_info", message: "Asked by a test" }),
    act: (r) => indexRoute.action({ request: r, params: {}, context: context() } as never),
  },
  {
    name: "create user",
    path: "/admin?index",
    form: () => ({
      intent: "create_member",
      email: `made-${Date.now()}@example.com`,
      password: "Temporary harbor pass 9",
      first_name: "Made",
      last_name: "ByTest",
      phone: "(555) 010-0000",
      street: "1 Road",
      city: "Dover",
      state: "NH",
      postal_code: "03820",
      role: "admin",
    }),
    act: (r) => indexRoute.action({ request: r, params: {}, context: context() } as never),
  },
  {
    name: "issue code",
    path: "/admin?index",
    form: () => ({ intent: "issue_code", member_email: applicantEmail }),
    act: (r) => indexRoute.action({ request: r, params: {}, context: context() } as never),
  },
  {
    name: "remove code",
    path: "/admin?index",
    form: () => ({ intent: "remove_code", code_id: "1" }),
    act: (r) => indexRoute.action({ request: r, params: {}, context: context() } as never),
  },
  {
    name: "clear used codes",
    path: "/admin?index",
    form: () => ({ intent: "clear_used_codes" }),
    act: (r) => indexRoute.action({ request: r, params: {}, context: context() } as never),
  },
  {
    name: "mark message answered",
    path: "/admin/messages",
    form: () => ({ id: String(messageId), status: "answered" }),
    act: (r) => messagesRoute.action({ request: r, params: {}, context: context() } as never),
  },
];

async function auditCount(): Promise<number> {
  const [row] = await database.db.select({ n: count() }).from(auditLog);
  return Number(row!.n);
}

describe("every /admin page", () => {
  for (const page of PAGES) {
    for (const persona of PERSONAS) {
      it(`${page.path} for ${persona}`, async () => {
        const outcome = await run(() => page.load(request(persona, page.path.replace("ID", applicantId))));
        if (persona === "staff") {
          expect(outcome.kind).toBe("ok");
          return;
        }
        expectSentAway(outcome, persona, "/admin");
        // No back-office data leaks in the redirect.
        expect(outcome.body).not.toContain("@example.com");
      });
    }
  }

  it("staff get the ID document with its real type, a download name and no caching; the view is audited", async () => {
    const before = await auditCount();
    const outcome = await documentRoute.loader({
      request: request("staff", `/admin/members/${applicantId}/document`),
      params: { memberId: applicantId },
      context: context(),
    } as never);
    expect(outcome.headers.get("content-type")).toBe("image/png");
    expect(outcome.headers.get("content-disposition")).toMatch(/^inline; filename="id-document-.+\.png"$/);
    expect(outcome.headers.get("cache-control")).toContain("no-store");
    expect(await auditCount()).toBe(before + 1);
    const missing = await run(() =>
      documentRoute.loader({
        request: request("staff", "/admin/members/nobody/document"),
        params: { memberId: "nobody" },
        context: context(),
      } as never),
    );
    expect(missing).toMatchObject({ kind: "refused", status: 404 });
  });

  it("staff get the audit log as a CSV attachment", async () => {
    const response = (await auditCsvRoute.loader({
      request: request("staff", "/admin/audit.csv"),
      params: {},
      context: context(),
    } as never)) as Response;
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect((await response.text()).split("\r\n")[0]).toBe(
      "id,time,actor_id,actor_email,action,subject_type,subject_id,member_id,member_email,before,after,request_id,ip",
    );
  });
});

describe("every /admin action", () => {
  // What a refused action could change: the audit log and the applicant's profile.
  const unchanged = async () => ({
    audits: await auditCount(),
    profile: (await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, applicantId)))[0],
  });
  for (const action of ACTIONS) {
    itRefuses(
      action.name,
      PERSONAS.filter((p) => p !== "staff"),
      (persona) => action.act(request(persona, action.path, action.form())),
      { unchanged, hides: "@example.com" },
    );
  }

  it("staff can do each of them, and each one is audited", async () => {
    const expected: Record<string, number> = {
      "request info": 1,
      "create user": 1,
      "issue code": 1,
      "clear used codes": 1,
      "mark message answered": 1,
      approve: 1,
      reject: 0,
      "remove code": 0,
    };
    // Request info first (the application must still be pending), approve next; reject then finds it decided.
    for (const name of [
      "request info",
      "create user",
      "issue code",
      "remove code",
      "clear used codes",
      "mark message answered",
      "approve",
      "reject",
    ]) {
      const action = ACTIONS.find((a) => a.name === name)!;
      const before = await auditCount();
      const outcome = await run(() => action.act(request("staff", action.path, action.form())));
      if (name === "reject") expect(outcome).toMatchObject({ kind: "refused", status: 409 });
      else if (name === "remove code") expect(["ok", "refused"]).toContain(outcome.kind);
      else expect(outcome.kind === "ok" || outcome.kind === "redirect").toBe(true);
      if (name !== "remove code") expect(await auditCount(), name).toBe(before + expected[name]!);
    }
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, applicantId));
    expect(profile!.status).toBe("approved");
  });
});

describe("staff upload of a member's profile image", () => {
  function upload(persona: Persona, fields: { member_id?: string; image?: File | null }): Request {
    const body = new FormData();
    body.set("intent", "member_image");
    if (fields.member_id !== undefined) body.set("member_id", fields.member_id);
    if (fields.image) body.set("image", fields.image);
    return new Request(`${HOST}/admin?index&member=${applicantId}`, {
      method: "POST",
      headers: people.headers(persona),
      body,
    });
  }
  const act = (r: Request) => run(() => indexRoute.action({ request: r, params: {}, context: context() } as never));
  const imageOf = async (id: string) =>
    (
      await database.db
        .select({ image_file: memberProfiles.image_file })
        .from(memberProfiles)
        .where(eq(memberProfiles.user_id, id))
    )[0]?.image_file ?? null;

  for (const persona of PERSONAS.filter((p) => p !== "staff")) {
    it(`is refused for ${persona} (${refusedStatus(persona)}) and changes nothing`, async () => {
      const before = await auditCount();
      const image = await imageOf(applicantId);
      const outcome = await act(
        upload(persona, { member_id: applicantId, image: fileOf(tinyPng(), "face.png", "image/png") }),
      );
      expect(outcome).toMatchObject({ kind: "refused", status: refusedStatus(persona) });
      expect(await imageOf(applicantId)).toBe(image);
      expect(await auditCount()).toBe(before);
    });
  }

  it("staff upload one: re-encoded through the member's own pipeline (WebP, 256 px), audited, the pane sees the new version", async () => {
    const before = await auditCount();
    const outcome = await act(
      upload("staff", { member_id: applicantId, image: fileOf(tinyPng(), "face.png", "image/png") }),
    );
    expect(outcome.kind).toBe("redirect");
    const file = await imageOf(applicantId);
    expect(file).toMatch(/^[0-9a-f]{32}\.webp$/);
    if (outcome.kind === "redirect") {
      expect(outcome.location).toContain("notice=image_updated");
      expect(outcome.location).toContain(`member=${applicantId}`);
      expect(outcome.location).toContain(`image=${file!.slice(0, 8)}`);
    }
    const stored = await readProfileImage(database.db, { id: "staff-viewer", role: "admin" }, applicantId);
    expect(stored!.content.subarray(0, 4).toString("latin1")).toBe("RIFF");
    expect(stored!.content.subarray(8, 12).toString("latin1")).toBe("WEBP");
    expect(await auditCount()).toBe(before + 1);
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "member.profile_image.set"))
      .orderBy(desc(auditLog.id))
      .limit(1);
    expect(row).toMatchObject({
      actor_email: expect.stringMatching(/^admin/),
      subject_type: "member",
      subject_id: applicantId,
      member_id: applicantId,
      ip: "203.0.113.77",
    });
    expect(row!.after).toMatchObject({ image_file: file });
  });

  it("bad input gets its field message and changes nothing", async () => {
    const image = await imageOf(applicantId);
    const before = await auditCount();
    const cases: [{ member_id?: string; image?: File | null }, string][] = [
      [
        {
          member_id: applicantId,
          image: fileOf(new TextEncoder().encode("not an image at all"), "face.png", "image/png"),
        },
        "Please select an image file",
      ],
      [{ member_id: applicantId, image: null }, "Please select an image file"],
      [
        { member_id: applicantId, image: fileOf(new Uint8Array(5 * 1024 * 1024 + 1), "big.png", "image/png") },
        "Image size should be less than 5MB",
      ],
      [{ member_id: "", image: fileOf(tinyPng(), "face.png", "image/png") }, "Please select a user first"],
      [{ member_id: "nobody-at-all", image: fileOf(tinyPng(), "face.png", "image/png") }, "Please select a user first"],
    ];
    for (const [fields, message] of cases) {
      const outcome = await act(upload("staff", fields));
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      const body = outcome.kind === "refused" ? JSON.parse(outcome.body) : {};
      expect(fieldErrors(body).image).toBe(message);
      expect(body.message).toBe(`Failed to update profile image: ${message}`);
    }
    expect(await imageOf(applicantId)).toBe(image);
    expect(await auditCount()).toBe(before);
  });
});
