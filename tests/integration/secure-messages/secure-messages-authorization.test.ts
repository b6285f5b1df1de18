import { person } from "../admin-support";
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { auditLog, conversationAttachments, conversationMessages, conversations } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { startConversation } from "~/server/secure-messages/secure-messages.server";
import * as listRoute from "~/routes/member/messages";
import * as newRoute from "~/routes/member/message-new";
import * as conversationRoute from "~/routes/member/message";
import * as memberAttachmentRoute from "~/routes/member/message-attachment";
import * as inboxRoute from "~/routes/admin/inbox";
import * as staffConversationRoute from "~/routes/admin/inbox-conversation";
import * as staffAttachmentRoute from "~/routes/admin/inbox-attachment";
import * as contactRoute from "~/routes/public/contact";
import { asFile, htmlBytes, pdfBytes } from "../../check-images";
import { openTestDatabase } from "../test-database";
import { expectSentAway, itRefuses, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * Who may do what with secure messages (docs/product.md#secure-messages, docs/security.md): the
 * Messages pages are a member's, for their own conversations only (another member's reads as not
 * found and a reply to it changes nothing); the inbox, a conversation's page, its steps and its
 * files are the back office's (staff and reviewers; not the accountant's). A refused request changes nothing.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff" | "accountant";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff", "accountant"];

let database: Database;
let people: SignedIn<Persona>;
let conversation_id = 0;
let attachment_id = 0;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  const started = await startConversation(
    db,
    cast.member.member,
    { subject: "Secret subject 5521", body: "Secret words 8812", idempotency_key: crypto.randomUUID() },
    { request_id: "setup", ip: "203.0.113.1" },
    { attachment_1: asFile(pdfBytes(), "letter.pdf", "application/pdf") },
  );
  if (!started.ok) throw new Error(started.message);
  conversation_id = started.conversation_id;
  attachment_id = (await db.select().from(conversationAttachments))[0]!.id;
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    // The books only (docs/product.md#books): neither a member's pages nor the inbox.
    accountant: (await person(db, "accountant")).id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "message-matrix-0001", ip: "203.0.113.81" });

async function snapshot() {
  const db = database.db;
  const n = async (table: typeof conversations | typeof conversationMessages | typeof auditLog) =>
    Number((await db.select({ n: count() }).from(table))[0]!.n);
  const rows = await db
    .select({
      id: conversations.id,
      status: conversations.status,
      assigned_to: conversations.assigned_to,
      last_message_at: conversations.last_message_at,
      member_read_at: conversations.member_read_at,
    })
    .from(conversations)
    .orderBy(conversations.id);
  return { conversations: rows, messages: await n(conversationMessages) };
}
const auditCount = async () => Number((await database.db.select({ n: count() }).from(auditLog))[0]!.n);

const base = () => `/dashboard/messages/${conversation_id}`;
const params = () => ({ conversationId: String(conversation_id) });

describe("member pages", () => {
  it("the list, the new-message form, a conversation and its file are the member's; others are sent away", async () => {
    const pages: Array<[string, (request: Request) => Promise<unknown>]> = [
      ["/dashboard/messages", (request) => listRoute.loader({ request, params: {}, context: context() } as never)],
      ["/dashboard/messages/new", (request) => newRoute.loader({ request, params: {}, context: context() } as never)],
      [base(), (request) => conversationRoute.loader({ request, params: params(), context: context() } as never)],
      [
        `${base()}/attachments/${attachment_id}`,
        (request) =>
          memberAttachmentRoute.loader({
            request,
            params: { ...params(), attachmentId: String(attachment_id) },
            context: context(),
          } as never),
      ],
    ];
    for (const [path, load] of pages)
      for (const persona of PERSONAS) {
        const before = await snapshot();
        const outcome = await run(() => load(people.get(persona, path)));
        if (persona === "member") expect(outcome, `${persona} ${path}`).toMatchObject({ kind: "ok" });
        else if (persona === "other_member") {
          if (path === "/dashboard/messages" || path === "/dashboard/messages/new") {
            expect(outcome.kind, path).toBe("ok");
            expect(outcome.body).not.toContain("Secret subject 5521");
          } else {
            // Another member's conversation and file read as not found, and opening it marks nothing read.
            expect(outcome, path).toMatchObject({ kind: "refused", status: 404 });
            expect(outcome.body).not.toContain("Secret");
            expect(await snapshot()).toEqual(before);
          }
        } else expectSentAway(outcome, persona, path);
      }
  });

  itRefuses(
    "a new message",
    ["anonymous", "applicant", "reviewer", "staff", "accountant"] as const,
    (persona) =>
      newRoute.action({
        request: people.post(persona, "/dashboard/messages/new", {
          subject: "Hi",
          body: "Hello",
          idempotency_key: crypto.randomUUID(),
        }),
        params: {},
        context: context(),
      } as never),
    { unchanged: snapshot },
  );

  itRefuses(
    "a member's reply",
    ["anonymous", "applicant", "reviewer", "staff", "accountant"] as const,
    (persona) =>
      conversationRoute.action({
        request: people.post(persona, base(), { body: "Hello" }),
        params: params(),
        context: context(),
      } as never),
    { unchanged: snapshot },
  );

  it("another member's reply to this conversation: not found, nothing written", async () => {
    const before = await snapshot();
    const outcome = await run(() =>
      conversationRoute.action({
        request: people.post("other_member", base(), { body: "Let me in" }),
        params: params(),
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 404 });
    expect(outcome.body).not.toContain("Secret");
    expect(await snapshot()).toEqual(before);
  });

  it("bad input and a file refused by its content: a 400 with the message by its field, nothing written", async () => {
    for (const [form, message] of [
      [{ subject: "", body: "Hello" }, "Write a subject."],
      [{ subject: "Hi", body: "" }, "Write your message."],
      [{ subject: "Hi", body: "bad\u0000text" }, "Please use only letters"],
    ] as const) {
      const before = await snapshot();
      const outcome = await run(() =>
        newRoute.action({
          request: people.post("member", "/dashboard/messages/new", { ...form, idempotency_key: crypto.randomUUID() }),
          params: {},
          context: context(),
        } as never),
      );
      expect(outcome, message).toMatchObject({ kind: "refused", status: 400 });
      expect(outcome.body).toContain(message);
      expect(await snapshot()).toEqual(before);
    }
    const before = await snapshot();
    const outcome = await run(() =>
      newRoute.action({
        request: people.upload("member", "/dashboard/messages/new", {
          subject: "A file",
          body: "See attached",
          idempotency_key: crypto.randomUUID(),
          attachment_1: asFile(htmlBytes(), "statement.pdf", "application/pdf"),
        }),
        params: {},
        context: context(),
      } as never),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 400 });
    expect(outcome.body).toContain("attachment_1");
    expect(outcome.body).toContain("Attach a PDF, JPEG or PNG file.");
    expect(await snapshot()).toEqual(before);
    // A body that states it is larger than two full files is refused before it is read.
    const oversized = await run(() =>
      newRoute.action({
        request: people.upload(
          "member",
          "/dashboard/messages/new",
          { subject: "Big", body: "Big" },
          { "content-length": String(30 * 1024 * 1024) },
        ),
        params: {},
        context: context(),
      } as never),
    );
    expect(oversized).toMatchObject({ kind: "refused", status: 413 });
    expect(await snapshot()).toEqual(before);
  });
});

describe("Contact", () => {
  it("a signed-in member's Contact is a new secure message; everyone else keeps the form", async () => {
    for (const persona of PERSONAS) {
      const outcome = await run(() =>
        contactRoute.loader({ request: people.get(persona, "/contact"), params: {}, context: context() } as never),
      );
      if (persona === "member" || persona === "other_member")
        expect(outcome, persona).toMatchObject({ kind: "redirect", location: "/dashboard/messages/new" });
      else expect(outcome, persona).toMatchObject({ kind: "ok" });
    }
  });
});

describe("back office", () => {
  it("the inbox, a conversation and its file are for staff and reviewers, each read audited; others are sent away", async () => {
    for (const persona of PERSONAS) {
      const audits = await auditCount();
      const inbox = await run(() =>
        inboxRoute.loader({
          request: people.get(persona, "/admin/inbox?view=all"),
          params: {},
          context: context(),
        } as never),
      );
      const one = await run(() =>
        staffConversationRoute.loader({
          request: people.get(persona, `/admin/inbox/${conversation_id}`),
          params: params(),
          context: context(),
        } as never),
      );
      const file = await run(() =>
        staffAttachmentRoute.loader({
          request: people.get(persona, `/admin/inbox/${conversation_id}/attachments/${attachment_id}`),
          params: { ...params(), attachmentId: String(attachment_id) },
          context: context(),
        } as never),
      );
      if (persona === "staff" || persona === "reviewer") {
        expect(inbox, persona).toMatchObject({ kind: "ok" });
        expect(inbox.body).toContain("Secret subject 5521");
        expect(one, persona).toMatchObject({ kind: "ok" });
        expect(one.body).toContain("Secret words 8812");
        expect(file, persona).toMatchObject({ kind: "ok", body: "[application/pdf]" });
        // The conversation's read and the file's view.
        expect(await auditCount()).toBe(audits + 2);
      } else {
        expectSentAway(inbox, persona, "/admin/inbox");
        expectSentAway(one, persona, `/admin/inbox/${conversation_id}`);
        expectSentAway(file, persona, `/admin/inbox/${conversation_id}/attachments/${attachment_id}`);
        expect(await auditCount()).toBe(audits);
      }
    }
  });

  const act = (persona: Persona, form: Record<string, string>) =>
    staffConversationRoute.action({
      request: people.post(persona, `/admin/inbox/${conversation_id}`, form),
      params: params(),
      context: context(),
    } as never);

  for (const [name, form] of [
    ["a staff reply", { intent: "reply", body: "Hello from staff" }],
    ["an assignment", { intent: "assign", assignee: "me" }],
    ["closing", { intent: "close" }],
  ] as const)
    itRefuses(
      name,
      ["anonymous", "applicant", "member", "other_member", "accountant"] as const,
      (persona) => act(persona, form),
      {
        unchanged: snapshot,
      },
    );

  it("staff and reviewers assign, reply, close and reopen", async () => {
    for (const persona of ["reviewer", "staff"] as const) {
      for (const [form, done] of [
        [{ intent: "assign", assignee: "me" }, "assigned"],
        [{ intent: "reply", body: `Answer from the ${persona}` }, "replied"],
        [{ intent: "close" }, "closed"],
        [{ intent: "reopen" }, "reopened"],
      ] as const) {
        const outcome = await run(() => act(persona, form));
        expect(outcome, `${persona} ${form.intent}`).toMatchObject({
          kind: "redirect",
          location: `/admin/inbox/${conversation_id}?done=${done}`,
        });
      }
    }
    const refused = await run(() => act("staff", { intent: "reopen" }));
    expect(refused).toMatchObject({ kind: "refused", status: 409 });
  });
});
