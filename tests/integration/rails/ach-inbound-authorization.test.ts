import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { achInboundEntries, achInboundFiles, achReturnFiles, auditLog, ledgerTransactions } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as queuesRoute from "~/routes/admin/queues";
import * as returnFileRoute from "~/routes/admin/queues-return-file";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { exportReturnFile } from "~/server/rails/inbound-returns.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { openTestDatabase } from "../test-database";
import { expectSentAway, matrixCast, refusedStatus, routeContext, run, SignedIn } from "../authorization-matrix";
import { buildInboundFile } from "../../unit/nacha-inbound-builder";

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
let people: SignedIn<Persona>;
let return_file_id = 0;
let account_number = "";
let held_ids: number[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db);
  account_number = cast.member.checking.account_number;
  // One return file already made (for the download).
  const origin = { request_id: "setup", ip: "203.0.113.1" };
  const setup = await receiveAchFile(db, {
    bytes: new TextEncoder().encode(
      buildInboundFile(
        [{ company_name: "Setup Co", entries: [{ code: "22", account_number: "9999999999", amount_cents: 100 }] }],
        { modifier: "S" },
      ),
    ),
    file_name: "setup.ach",
    staff: cast.staff,
    origin,
  });
  if (!setup.ok) throw new Error(setup.message);
  const exported = await exportReturnFile(db, cast.staff, origin);
  if (!exported.ok) throw new Error(exported.message);
  return_file_id = exported.file.id;
  // Two entries held as possible duplicates (the same file re-sent under new headers), for Post and Return.
  const resent = (modifier: string) =>
    buildInboundFile([{ company_name: "Resent Co", entries: [{ code: "22", account_number, amount_cents: 4_300 }] }], {
      modifier,
    });
  for (const modifier of ["H", "I", "J"]) {
    const sent = await receiveAchFile(db, {
      bytes: new TextEncoder().encode(resent(modifier)),
      file_name: `resent-${modifier}.ach`,
      staff: cast.staff,
      origin,
    });
    if (!sent.ok) throw new Error(sent.message);
  }
  held_ids = (
    await db
      .select({ id: achInboundEntries.id })
      .from(achInboundEntries)
      .where(eq(achInboundEntries.status, "held"))
      .orderBy(achInboundEntries.id)
  ).map((r) => Number(r.id));
  if (held_ids.length !== 2) throw new Error(`expected two held entries, found ${held_ids.length}`);
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: cast.member.member.id,
    other_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "ach-in-matrix-0001", ip: "203.0.113.79" });
const headers = (persona: Persona) => people.headers(persona);
const uploadRequest = (persona: Persona, text: string, name = "fed.ach") =>
  people.upload(persona, "/admin/queues", {
    intent: "ach_upload",
    file: new File([text], name, { type: "text/plain" }),
  });
const formRequest = (persona: Persona, form: Record<string, string>) => people.post(persona, "/admin/queues", form);

async function snapshot() {
  const db = database.db;
  const n = async (
    table:
      | typeof auditLog
      | typeof achInboundFiles
      | typeof achInboundEntries
      | typeof achReturnFiles
      | typeof ledgerTransactions,
  ) => Number((await db.select({ n: count() }).from(table as typeof auditLog))[0]!.n);
  const held = Number(
    (await db.select({ n: count() }).from(achInboundEntries).where(eq(achInboundEntries.status, "held")))[0]!.n,
  );
  return {
    audits: await n(auditLog),
    files: await n(achInboundFiles),
    entries: await n(achInboundEntries),
    return_files: await n(achReturnFiles),
    transactions: await n(ledgerTransactions),
    held,
  };
}

const payroll = (modifier: string) =>
  buildInboundFile(
    [{ company_name: "Matrix Payroll", entries: [{ code: "22", account_number, amount_cents: 4_200 }] }],
    { modifier },
  );

describe("ACH in on /admin/queues: staff who may move money only", () => {
  for (const persona of PERSONAS.filter((p) => p !== "staff")) {
    it(`upload, return file export, and Post or Return of a possible duplicate by ${persona} are refused (${refusedStatus(persona)}) and change nothing`, async () => {
      const before = await snapshot();
      for (const make of [
        () => uploadRequest(persona, payroll("A")),
        () => formRequest(persona, { intent: "ach_returns_export" }),
        () => formRequest(persona, { intent: "ach_duplicate_post", entry_id: String(held_ids[0]) }),
        () => formRequest(persona, { intent: "ach_duplicate_return", entry_id: String(held_ids[1]) }),
      ]) {
        const outcome = await run(() =>
          queuesRoute.action({ request: make(), params: {}, context: context() } as never),
        );
        expect(outcome).toMatchObject({ kind: "refused", status: refusedStatus(persona) });
      }
      expect(await snapshot()).toEqual(before);
    });

    it(`the return file download for ${persona} redirects and shows nothing of it`, async () => {
      const outcome = await run(() =>
        returnFileRoute.loader({
          request: new Request(`http://localhost:3000/admin/queues/returns/${return_file_id}`, {
            headers: headers(persona),
          }),
          params: { fileId: String(return_file_id) },
          context: context(),
        } as never),
      );
      expectSentAway(outcome, persona, "/admin/queues");
      expect(outcome.body).not.toContain("9999999999");
    });
  }

  it("staff download the return file byte for byte, as an attachment, not cached; audited; an unknown id is 404", async () => {
    const before = await snapshot();
    const response = (await returnFileRoute.loader({
      request: new Request(`http://localhost:3000/admin/queues/returns/${return_file_id}`, {
        headers: headers("staff"),
      }),
      params: { fileId: String(return_file_id) },
      context: context(),
    } as never)) as Response;
    const [stored] = await database.db.select().from(achReturnFiles).where(eq(achReturnFiles.id, return_file_id));
    expect(await response.text()).toBe(stored!.content);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${stored!.file_name}"`);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect((await snapshot()).audits).toBe(before.audits + 1);
    for (const id of ["999999", "abc", "-1", "1e3"]) {
      expect(
        await run(() =>
          returnFileRoute.loader({
            request: new Request(`http://localhost:3000/admin/queues/returns/${id}`, { headers: headers("staff") }),
            params: { fileId: id },
            context: context(),
          } as never),
        ),
      ).toMatchObject({ kind: "refused", status: 404 });
    }
  });

  it("staff: a body declared over the limit is 413 before it is read; no file chosen is 400; both change nothing", async () => {
    const before = await snapshot();
    const big = new Request("http://localhost:3000/admin/queues", {
      method: "POST",
      headers: headers("staff"),
      body: "x",
    });
    big.headers.set("content-length", String(100 * 1024 * 1024));
    big.headers.set("content-type", "multipart/form-data; boundary=x");
    const outcome = await run(() => queuesRoute.action({ request: big, params: {}, context: context() } as never));
    expect(outcome).toMatchObject({ kind: "refused", status: 413 });
    expect(outcome.body).toContain(
      "The file was refused, nothing was posted: it is 100.0 MB; the largest accepted is 20 MB.",
    );
    const none = await run(() =>
      queuesRoute.action({
        request: formRequest("staff", { intent: "ach_upload" }),
        params: {},
        context: context(),
      } as never),
    );
    expect(none).toMatchObject({ kind: "refused", status: 400 });
    expect(none.body).toContain("Please choose the inbound NACHA file to upload.");
    const png = await run(() =>
      queuesRoute.action({
        request: uploadRequest("staff", "\u0089PNG\r\n\u001a\n"),
        params: {},
        context: context(),
      } as never),
    );
    expect(png).toMatchObject({ kind: "refused", status: 422 });
    expect(png.body).toContain("is not printable text");
    expect(await snapshot()).toEqual(before);
  });

  it("staff: a good file posts through the form, once; the same file again is 409", async () => {
    const text = payroll("B");
    const first = await run(() =>
      queuesRoute.action({ request: uploadRequest("staff", text), params: {}, context: context() } as never),
    );
    expect(first).toMatchObject({ kind: "ok", status: 200 });
    expect(first.body).toContain("fed.ach: 1 entry, 1 posted, 0 returned.");
    const again = await run(() =>
      queuesRoute.action({
        request: uploadRequest("staff", text, "again.ach"),
        params: {},
        context: context(),
      } as never),
    );
    expect(again).toMatchObject({ kind: "refused", status: 409 });
    const report = await verifyLedger(database.db);
    expect(report.problems).toEqual([]);
  });

  it("staff: Post and Return a possible duplicate through the form; an unknown or decided one is 404 or 409 and changes nothing", async () => {
    const posted = await run(() =>
      queuesRoute.action({
        request: formRequest("staff", { intent: "ach_duplicate_post", entry_id: String(held_ids[0]) }),
        params: {},
        context: context(),
      } as never),
    );
    expect(posted).toMatchObject({ kind: "ok", status: 200 });
    expect(posted.body).toContain("The credit of $43.00 was posted.");
    const returned = await run(() =>
      queuesRoute.action({
        request: formRequest("staff", { intent: "ach_duplicate_return", entry_id: String(held_ids[1]) }),
        params: {},
        context: context(),
      } as never),
    );
    expect(returned).toMatchObject({ kind: "ok", status: 200 });
    expect(returned.body).toContain("marked as a duplicate (R24)");
    const before = await snapshot();
    for (const [entry_id, status] of [
      [String(held_ids[0]), 409],
      [String(held_ids[1]), 409],
      ["999999999", 404],
      ["abc", 404],
    ] as const) {
      for (const intent of ["ach_duplicate_post", "ach_duplicate_return"]) {
        const outcome = await run(() =>
          queuesRoute.action({
            request: formRequest("staff", { intent, entry_id }),
            params: {},
            context: context(),
          } as never),
        );
        expect(outcome, `${intent} ${entry_id}`).toMatchObject({ kind: "refused", status });
      }
    }
    expect(await snapshot()).toEqual(before);
    expect((await verifyLedger(database.db)).problems).toEqual([]);
  });
});
