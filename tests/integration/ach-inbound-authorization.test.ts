import "./admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import { achInboundEntries, achInboundFiles, achReturnFiles, auditLog, ledgerTransactions } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import * as queuesRoute from "~/routes/admin/queues";
import * as returnFileRoute from "~/routes/admin/queues-return-file";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { exportReturnFile } from "~/server/rails/inbound-returns.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { openTestDatabase } from "./test-database";
import { applicant, person, signedIn } from "./admin-support";
import { newMember } from "./member-support";
import { buildInboundFile } from "../unit/nacha-inbound-builder";

/**
 * Who may use ACH in (docs/product.md#ach-in): the upload and the return file export on
 * /admin/queues and the return file download are for staff who may move money; a reviewer, a
 * member (the one the file would pay, or another), an applicant and a visitor are refused (the
 * download redirects, actions 401/403) and nothing is stored or posted. Staff: a body declared
 * over the limit is refused (413) before it is read; a good file posts through the page's form.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];

let database: Database;
const cookies: Partial<Record<Persona, string>> = {};
let return_file_id = 0;
let account_number = "";

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const staff = await person(db, "admin");
  const reviewer = await person(db, "reviewer");
  const pending = await applicant(db);
  const member = await newMember(db, {});
  const other = await newMember(db, {});
  account_number = member.checking.account_number;
  // One return file already made (for the download).
  const origin = { request_id: "setup", ip: "203.0.113.1" };
  const setup = await receiveAchFile(db, { bytes: new TextEncoder().encode(buildInboundFile([{ company_name: "Setup Co", entries: [{ code: "22", account_number: "9999999999", amount_cents: 100 }] }], { modifier: "S" })), file_name: "setup.ach", staff, origin });
  if (!setup.ok) throw new Error(setup.message);
  const exported = await exportReturnFile(db, staff, origin);
  if (!exported.ok) throw new Error(exported.message);
  return_file_id = exported.file.id;
  cookies.staff = await signedIn(db, staff.id);
  cookies.reviewer = await signedIn(db, reviewer.id);
  cookies.applicant = await signedIn(db, pending.id);
  cookies.member = await signedIn(db, member.member.id);
  cookies.other_member = await signedIn(db, other.member.id);
});
afterAll(async () => {
  await database?.close();
});

function context() {
  const provider = new RouterContextProvider();
  provider.set(requestInfoContext, { request_id: "ach-in-matrix-0001", ip: "203.0.113.79", nonce: "" });
  return provider;
}

function headers(persona: Persona): Headers {
  const h = new Headers({ origin: "http://localhost:3000" });
  if (cookies[persona]) h.set("cookie", cookies[persona]!);
  return h;
}

function uploadRequest(persona: Persona, text: string, name = "fed.ach"): Request {
  const form = new FormData();
  form.set("intent", "ach_upload");
  form.set("file", new File([text], name, { type: "text/plain" }));
  return new Request("http://localhost:3000/admin/queues", { method: "POST", headers: headers(persona), body: form });
}

function formRequest(persona: Persona, form: Record<string, string>): Request {
  const h = headers(persona);
  h.set("content-type", "application/x-www-form-urlencoded");
  return new Request("http://localhost:3000/admin/queues", { method: "POST", headers: h, body: new URLSearchParams(form) });
}

type Outcome = { kind: "redirect"; status: number; location: string; body: string } | { kind: "refused" | "ok"; status: number; body: string };

async function run(fn: () => Promise<unknown>): Promise<Outcome> {
  let value: unknown;
  try {
    value = await fn();
  } catch (thrown) {
    value = thrown;
  }
  if (value instanceof Response) {
    const body = await value.clone().text();
    if (value.status >= 300 && value.status < 400) return { kind: "redirect", status: value.status, location: value.headers.get("location") ?? "", body };
    return { kind: value.status >= 400 ? "refused" : "ok", status: value.status, body };
  }
  const init = (value as { init?: { status?: number } } | null)?.init;
  const payload = (value as { data?: unknown } | null)?.data ?? value;
  const status = init?.status ?? 200;
  return { kind: status >= 400 ? "refused" : "ok", status, body: JSON.stringify(payload) ?? "" };
}

async function snapshot() {
  const db = database.db;
  const n = async (table: typeof auditLog | typeof achInboundFiles | typeof achInboundEntries | typeof achReturnFiles | typeof ledgerTransactions) => Number((await db.select({ n: count() }).from(table as typeof auditLog))[0]!.n);
  return { audits: await n(auditLog), files: await n(achInboundFiles), entries: await n(achInboundEntries), return_files: await n(achReturnFiles), transactions: await n(ledgerTransactions) };
}

const HOME: Record<Exclude<Persona, "staff" | "anonymous">, string> = { applicant: "/pending-approval", member: "/dashboard", other_member: "/dashboard", reviewer: "/admin" };
const payroll = (modifier: string) => buildInboundFile([{ company_name: "Matrix Payroll", entries: [{ code: "22", account_number, amount_cents: 4_200 }] }], { modifier });

describe("ACH in on /admin/queues: staff who may move money only", () => {
  for (const persona of PERSONAS.filter((p) => p !== "staff")) {
    it(`upload and return file export by ${persona} are refused (${persona === "anonymous" ? 401 : 403}) and change nothing`, async () => {
      const before = await snapshot();
      for (const make of [() => uploadRequest(persona, payroll("A")), () => formRequest(persona, { intent: "ach_returns_export" })]) {
        const outcome = await run(() => queuesRoute.action({ request: make(), params: {}, context: context() } as never));
        expect(outcome).toMatchObject({ kind: "refused", status: persona === "anonymous" ? 401 : 403 });
      }
      expect(await snapshot()).toEqual(before);
    });

    it(`the return file download for ${persona} redirects and shows nothing of it`, async () => {
      const outcome = await run(() => returnFileRoute.loader({ request: new Request(`http://localhost:3000/admin/queues/returns/${return_file_id}`, { headers: headers(persona) }), params: { fileId: String(return_file_id) }, context: context() } as never));
      expect(outcome.kind).toBe("redirect");
      if (outcome.kind !== "redirect") return;
      if (persona === "anonymous") expect(outcome.location).toMatch(/^\/login\?redirectTo=%2Fadmin%2Fqueues/);
      else expect(outcome.location).toBe(HOME[persona]);
      expect(outcome.body).not.toContain("9999999999");
    });
  }

  it("staff download the return file byte for byte, as an attachment, not cached; audited; an unknown id is 404", async () => {
    const before = await snapshot();
    const response = (await returnFileRoute.loader({ request: new Request(`http://localhost:3000/admin/queues/returns/${return_file_id}`, { headers: headers("staff") }), params: { fileId: String(return_file_id) }, context: context() } as never)) as Response;
    const [stored] = await database.db.select().from(achReturnFiles).where(eq(achReturnFiles.id, return_file_id));
    expect(await response.text()).toBe(stored!.content);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${stored!.file_name}"`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect((await snapshot()).audits).toBe(before.audits + 1);
    for (const id of ["999999", "abc", "-1", "1e3"]) {
      expect(await run(() => returnFileRoute.loader({ request: new Request(`http://localhost:3000/admin/queues/returns/${id}`, { headers: headers("staff") }), params: { fileId: id }, context: context() } as never))).toMatchObject({ kind: "refused", status: 404 });
    }
  });

  it("staff: a body declared over the limit is 413 before it is read; no file chosen is 400; both change nothing", async () => {
    const before = await snapshot();
    const big = new Request("http://localhost:3000/admin/queues", { method: "POST", headers: headers("staff"), body: "x" });
    big.headers.set("content-length", String(100 * 1024 * 1024));
    big.headers.set("content-type", "multipart/form-data; boundary=x");
    const outcome = await run(() => queuesRoute.action({ request: big, params: {}, context: context() } as never));
    expect(outcome).toMatchObject({ kind: "refused", status: 413 });
    expect(outcome.body).toContain("The file was refused, nothing was posted: it is 100.0 MB; the largest accepted is 20 MB.");
    const none = await run(() => queuesRoute.action({ request: formRequest("staff", { intent: "ach_upload" }), params: {}, context: context() } as never));
    expect(none).toMatchObject({ kind: "refused", status: 400 });
    expect(none.body).toContain("Please choose the inbound NACHA file to upload.");
    const png = await run(() => queuesRoute.action({ request: uploadRequest("staff", "\u0089PNG\r\n\u001a\n"), params: {}, context: context() } as never));
    expect(png).toMatchObject({ kind: "refused", status: 422 });
    expect(png.body).toContain("is not printable text");
    expect(await snapshot()).toEqual(before);
  });

  it("staff: a good file posts through the form, once; the same file again is 409", async () => {
    const text = payroll("B");
    const first = await run(() => queuesRoute.action({ request: uploadRequest("staff", text), params: {}, context: context() } as never));
    expect(first).toMatchObject({ kind: "ok", status: 200 });
    expect(first.body).toContain("fed.ach: 1 entry, 1 posted, 0 returned.");
    const again = await run(() => queuesRoute.action({ request: uploadRequest("staff", text, "again.ach"), params: {}, context: context() } as never));
    expect(again).toMatchObject({ kind: "refused", status: 409 });
    const report = await verifyLedger(database.db);
    expect(report.problems).toEqual([]);
  });
});
