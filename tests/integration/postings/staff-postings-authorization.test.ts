import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, sql } from "drizzle-orm";
import { parse } from "csv-parse/sync";
import type { Database } from "~/server/db/client.server";
import { auditLog } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as addRoute from "~/routes/admin/add-transactions";
import * as templateRoute from "~/routes/admin/transactions-template";
import * as paymentsRoute from "~/routes/admin/payments";
import { paymentControlsState } from "~/server/payments/controls.server";
import { currencyRate } from "~/server/payments/rates.server";
import { getBalances } from "~/server/ledger/accounts.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { POSTING_CSV_HEADER, POSTING_CSV_MAX_BYTES } from "~/domain/staff-postings";
import { openTestDatabase } from "../test-database";
import { HOST, matrixCast, refusedStatus, routeContext, run, SignedIn } from "../authorization-matrix";
import type { fundedMember } from "../../factories";

/**
 * Who may add transactions, download the template, pause payments and set currency rates
 * (docs/product.md#people-and-roles): staff with money powers only. A visitor, an applicant, the
 * member, another member and a reviewer are refused (401 signed out, 403 or a redirect home
 * otherwise) and nothing changes: no ledger transaction, no audit row, no switch, no rate. Staff
 * can do each one, audited; the routes' answers carry the messages of docs/product.md.
 */
type Persona = "anonymous" | "applicant" | "member" | "another_member" | "reviewer" | "staff";
const REFUSED: Persona[] = ["anonymous", "applicant", "member", "another_member", "reviewer"];

let database: Database;
let people: SignedIn<Persona>;
let member: Awaited<ReturnType<typeof fundedMember>>;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, {
    member: { checking_cents: 50_000, savings_cents: 10_000 },
    other_member: { checking_cents: 1_000 },
  });
  member = cast.member;
  people = await SignedIn.as(db, {
    staff: cast.staff.id,
    reviewer: cast.reviewer.id,
    applicant: cast.applicant.id,
    member: member.member.id,
    another_member: cast.other_member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "postings-matrix-0001", ip: "203.0.113.79" });
const formRequest = (persona: Persona, path: string, form: Record<string, string | string[]>) =>
  people.post(persona, path, form);
const fileRequest = (
  persona: Persona,
  path: string,
  file: { name: string; bytes: Uint8Array },
  fields: Record<string, string> = { intent: "upload_csv" },
) =>
  people.upload(persona, path, {
    ...fields,
    file: new File([Buffer.from(file.bytes)], file.name, { type: "text/csv" }),
  });
const getRequest = (persona: Persona, path: string) => people.get(persona, path);

const addPath = () => `/admin/members/${member.member.id}/transactions`;
const actAdd = (r: Request) =>
  addRoute.action({ request: r, params: { memberId: member.member.id }, context: context() } as never);
const actPayments = (r: Request) => paymentsRoute.action({ request: r, params: {}, context: context() } as never);

const csv = (...lines: string[]) => new TextEncoder().encode([POSTING_CSV_HEADER.join(","), ...lines].join("\r\n"));

const ACTIONS: { name: string; act: (persona: Persona) => Promise<unknown> }[] = [
  {
    name: "add rows by hand",
    act: (p) =>
      actAdd(
        formRequest(p, addPath(), {
          intent: "add_rows",
          account: member.checking.account_number,
          type: "credit",
          amount: "1.00",
          description: "Matrix",
          category: "Deposit",
          date: "",
          time: "",
          status: "Completed",
        }),
      ),
  },
  {
    name: "upload a CSV",
    act: (p) =>
      actAdd(
        fileRequest(p, addPath(), {
          name: "matrix.csv",
          bytes: csv("Checking,credit,1.00,Matrix,Deposit,,,Completed"),
        }),
      ),
  },
  {
    name: "pause payments",
    act: (p) =>
      actPayments(formRequest(p, "/admin/payments", { intent: "pause", paused: "on", reason: "Matrix pause" })),
  },
  {
    name: "set a rate",
    act: (p) =>
      actPayments(formRequest(p, "/admin/payments", { intent: "set_rate", code: "GBP", usd_per_unit: "1.25" })),
  },
];

async function state() {
  const db = database.db;
  const [audit] = await db.select({ n: count() }).from(auditLog);
  const transactions = await db.execute(sql`select count(*)::int as n from ledger_transactions`);
  return {
    audit: Number(audit!.n),
    transactions: transactions.rows[0],
    controls: await paymentControlsState(db),
    gbp: await currencyRate(db, "GBP"),
  };
}

describe("refused to everyone but staff with money powers", () => {
  for (const action of ACTIONS) {
    for (const persona of REFUSED) {
      it(`${action.name}: ${persona} is refused (${refusedStatus(persona)}) and nothing changes`, async () => {
        const before = await state();
        const outcome = await run(() => action.act(persona));
        expect(outcome.status).toBe(refusedStatus(persona));
        expect(await state()).toEqual(before);
      });
    }
  }

  const PAGES: { name: string; load: (r: Request) => Promise<unknown>; path: () => string }[] = [
    {
      name: "the Add Transactions page",
      path: addPath,
      load: (r) => addRoute.loader({ request: r, params: { memberId: member.member.id }, context: context() } as never),
    },
    {
      name: "the template",
      path: () => "/admin/transactions-template.csv",
      load: (r) => templateRoute.loader({ request: r, params: {}, context: context() } as never),
    },
    {
      name: "the Payments page",
      path: () => "/admin/payments",
      load: (r) => paymentsRoute.loader({ request: r, params: {}, context: context() } as never),
    },
  ];
  for (const page of PAGES) {
    for (const persona of REFUSED) {
      it(`${page.name}: ${persona} is sent away`, async () => {
        const outcome = await run(() => page.load(getRequest(persona, page.path())));
        expect(outcome.status).toBeGreaterThanOrEqual(300);
        expect(outcome.body).not.toContain("usd_per_unit");
        expect(outcome.body).not.toContain("Account Type");
        if (persona === "anonymous") expect(outcome.location).toMatch(/^\/login/);
      });
    }
  }
});

describe("staff", () => {
  it("add rows by hand: posted, audited, 'Transactions added successfully!'", async () => {
    const before = await state();
    const outcome = await run(() => ACTIONS[0]!.act("staff"));
    expect(outcome.status).toBe(200);
    expect(outcome.body).toContain("Transactions added successfully!");
    const after = await state();
    expect(after.audit).toBe(before.audit + 1);
    expect((after.transactions as { n: number }).n).toBe((before.transactions as { n: number }).n + 1);
  });

  it("a bad row by hand is refused by row with 'Failed to add transactions: ...' and the rows come back", async () => {
    const before = await state();
    const outcome = await run(() =>
      actAdd(
        formRequest("staff", addPath(), {
          intent: "add_rows",
          account: [member.checking.account_number, member.savings.account_number],
          type: ["credit", "debit"],
          amount: ["1.00", "1.005"],
          description: ["Fine", "Three decimals"],
          category: ["Deposit", "Other"],
          date: ["", ""],
          time: ["", ""],
          status: ["Completed", "Completed"],
        }),
      ),
    );
    expect(outcome.status).toBe(400);
    const body = JSON.parse(outcome.body) as { message: string; rows: unknown[]; line_errors: unknown[] };
    expect(body.message).toBe(
      "Failed to add transactions: 1 row has an error: row 2: Amount may have at most two decimals",
    );
    expect(body.rows).toHaveLength(2);
    expect(await state()).toEqual(before);
  });

  it("upload a CSV: posted; a bad one 'Failed to parse CSV file: ...' with its lines, nothing posted", async () => {
    const good = await run(() => ACTIONS[1]!.act("staff"));
    expect(good.status).toBe(200);
    expect(good.body).toContain("Transactions added successfully!");
    const before = await state();
    const bad = await run(() =>
      actAdd(
        fileRequest("staff", addPath(), {
          name: "bad.csv",
          bytes: csv(
            "Checking,credit,1.00,Fine,Deposit,,,Completed",
            'Checking,credit,1.00,"=HYPERLINK(""https://evil.example"")",Deposit,,,Completed',
            "Savings,credit,1.00,Fine,Gambling,2024-02-31,,Completed",
          ),
        }),
      ),
    );
    expect(bad.status).toBe(400);
    const body = JSON.parse(bad.body) as { message: string; line_errors: { line: number }[] };
    expect(body.message).toMatch(
      /^Failed to parse CSV file: 2 lines have errors: line 3: Description starts with = \+ - or @/,
    );
    expect(body.line_errors.map((e) => e.line)).toEqual([3, 4]);
    expect(await state()).toEqual(before);
  });

  it("a binary file renamed .csv is refused", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe]);
    const outcome = await run(() => actAdd(fileRequest("staff", addPath(), { name: "photo.csv", bytes: png })));
    expect(outcome.status).toBe(400);
    expect(outcome.body).toContain("Failed to parse CSV file: the file is not a text CSV file");
  });

  it("a file over the limit is refused from its declared length, before the body is read, with the limit in the message", async () => {
    const before = await state();
    // Declares 50 MB and sends a body that would fail if read: the action must not read it.
    const headers = people.headers("staff", {
      "content-type": "multipart/form-data; boundary=x",
      "content-length": String(50 * 1024 * 1024),
    });
    let read = false;
    // highWaterMark 0: the stream is pulled only when someone reads it.
    const body = new ReadableStream(
      {
        pull() {
          read = true;
          throw new Error("the body was read");
        },
      },
      { highWaterMark: 0 },
    );
    const request = new Request(`${HOST}${addPath()}`, {
      method: "POST",
      headers,
      body,
      duplex: "half",
    } as RequestInit);
    const outcome = await run(() => actAdd(request));
    expect(outcome.status).toBe(413);
    expect(outcome.body).toContain(
      "Failed to parse CSV file: the file is 50.0 MB; the limit is 10,000 rows and 2 MB per file",
    );
    expect(read).toBe(false);
    expect(await state()).toEqual(before);
    // Just over 2 MB, declared honestly: the same refusal.
    const big = new Uint8Array(POSTING_CSV_MAX_BYTES + 1).fill(0x41);
    const over = await run(() => actAdd(fileRequest("staff", addPath(), { name: "big.csv", bytes: big })));
    expect(over.status).toBe(413);
    expect(over.body).toContain("the limit is 10,000 rows and 2 MB per file");
  });

  it("the Add Transactions page (the form without JavaScript) shows the member's open accounts; an unknown member is a 404", async () => {
    const outcome = await run(() =>
      addRoute.loader({
        request: getRequest("staff", addPath()),
        params: { memberId: member.member.id },
        context: context(),
      } as never),
    );
    expect(outcome.status).toBe(200);
    expect(outcome.body).toContain(member.member.email);
    expect(outcome.body).toContain(member.checking.account_number);
    const missing = await run(() =>
      addRoute.loader({
        request: getRequest("staff", "/admin/members/nobody/transactions"),
        params: { memberId: "nobody" },
        context: context(),
      } as never),
    );
    expect(missing.status).toBe(404);
  });

  it("the template is the header and one example row, as an attachment", async () => {
    const outcome = await run(() =>
      templateRoute.loader({
        request: getRequest("staff", "/admin/transactions-template.csv"),
        params: {},
        context: context(),
      } as never),
    );
    expect((outcome.value as Response).headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect((outcome.value as Response).headers.get("content-disposition")).toBe(
      'attachment; filename="transactions-template.csv"',
    );
    const records = parse(outcome.body) as string[][];
    expect(records).toHaveLength(2);
    expect(records[0]).toEqual([...POSTING_CSV_HEADER]);
  });

  it("pause needs a reason; pause and resume are audited with before and after", async () => {
    const db = database.db;
    const empty = await run(() =>
      actPayments(formRequest("staff", "/admin/payments", { intent: "pause", paused: "on", reason: "  " })),
    );
    expect(empty.status).toBe(400);
    expect(empty.body).toContain("Please give the reason for pausing payments");
    expect((await paymentControlsState(db)).outgoing_paused).toBe(false);
    const before = await state();
    expect((await run(() => ACTIONS[2]!.act("staff"))).status).toBe(200);
    const paused = await paymentControlsState(db);
    expect(paused).toMatchObject({ outgoing_paused: true, reason: "Matrix pause" });
    const [row] = await db
      .execute<{ before: unknown; after: unknown; action: string }>(
        sql`select action, before, after from audit_log order by id desc limit 1`,
      )
      .then((r) => r.rows);
    expect(row).toMatchObject({
      action: "payments.outgoing.pause",
      before: { outgoing_paused: false },
      after: { outgoing_paused: true, reason: "Matrix pause" },
    });
    expect((await state()).audit).toBe(before.audit + 1);
    expect(
      (
        await run(() =>
          actPayments(
            formRequest("staff", "/admin/payments", { intent: "pause", paused: "off", reason: "Matrix over" }),
          ),
        )
      ).status,
    ).toBe(200);
    expect((await paymentControlsState(db)).outgoing_paused).toBe(false);
  });

  it("set a rate: bad code or rate refused next to the field; a good one saved, audited", async () => {
    const db = database.db;
    for (const [form, field] of [
      [{ code: "USD", usd_per_unit: "1" }, "code"],
      [{ code: "XYZ", usd_per_unit: "1" }, "code"],
      [{ code: "GBP", usd_per_unit: "0" }, "usd_per_unit"],
      [{ code: "GBP", usd_per_unit: "-1.2" }, "usd_per_unit"],
      [{ code: "GBP", usd_per_unit: "1e3" }, "usd_per_unit"],
    ] as const) {
      const outcome = await run(() =>
        actPayments(formRequest("staff", "/admin/payments", { intent: "set_rate", ...form })),
      );
      expect(outcome.status, JSON.stringify(form)).toBe(400);
      const reply = (JSON.parse(outcome.body) as { reply: { error: Record<string, string[] | null> } }).reply;
      expect(Object.keys(reply.error).filter((k) => reply.error[k]?.length)).toEqual([field]);
    }
    expect(await currencyRate(db, "GBP")).toBeNull();
    expect((await run(() => ACTIONS[3]!.act("staff"))).status).toBe(200);
    expect(await currencyRate(db, "GBP")).toMatchObject({ usd_per_unit: "1.25" });
    const [row] = await db
      .execute<{ before: unknown; after: unknown; action: string }>(
        sql`select action, before, after from audit_log order by id desc limit 1`,
      )
      .then((r) => r.rows);
    expect(row).toMatchObject({ action: "payments.currency_rate.set", before: null, after: { usd_per_unit: "1.25" } });
  });

  it("the ledger verifies and the member's balance moved only by what staff added", async () => {
    const report = await verifyLedger(database.db);
    expect(report.ok, JSON.stringify(report).slice(0, 500)).toBe(true);
    const [checking] = await getBalances(database.db, [member.checking.id]);
    expect(checking!.current_cents).toBe(50_000 + 100 + 100);
  });
});
