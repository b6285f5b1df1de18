import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { accountStatements, outbox } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as statementsRoute from "~/routes/member/statements";
import * as pdfRoute from "~/routes/member/statement-pdf";
import * as exportRoute from "~/routes/member/statements-export";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer } from "~/server/ledger/ledger.server";
import { businessDate } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";
import { addMonths, monthOfDate } from "~/domain/statements";
import { openTestDatabase } from "../test-database";
import { expectSentAway, matrixCast, routeContext, run, SignedIn, type Outcome } from "../authorization-matrix";
import { key } from "../member-support";
import { accepted } from "../ledger-fixtures";

/**
 * Who may see statements (docs/product.md#statements): a member, for their own accounts only.
 * A visitor is sent to sign in, an applicant and staff to their own home; another member's
 * account is "not found"; a month before the account's history, the month in progress or a
 * later one is refused with its message. Nothing is made for a refused request.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "staff";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "staff"];

let database: Database;
let people: SignedIn<Persona>;
let account_id = 0;
let account_number = "";
const this_month = monthOfDate(businessDate(institution().time_zone, new Date()));
const last_month = addMonths(this_month, -1);

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const {
    staff,
    applicant,
    member,
    other_member: other,
  } = await matrixCast(db, {
    member: { checking_cents: 0, savings_cents: 0 },
    other_member: { checking_cents: 0, savings_cents: 0 },
  });
  account_id = member.checking.id;
  account_number = member.checking.account_number;
  const cash = await institutionAccount(db, "cash");
  // History from two months back, so last month has a statement.
  await accepted(
    postTransfer(db, {
      kind: "ach_in",
      initiator: "system:test",
      idempotency_key: key(),
      created_by: "test",
      memo: "Pay",
      effective_date: `${addMonths(this_month, -2)}-15`,
      entries: [
        { account_id, amount_cents: 10_000 },
        { account_id: cash.id, amount_cents: -10_000 },
      ],
    }),
  );
  people = await SignedIn.as(db, {
    staff: staff.id,
    applicant: applicant.id,
    member: member.member.id,
    other_member: other.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "statements-matrix-0001", ip: "203.0.113.79" });
const request = (persona: Persona, path: string) => people.get(persona, path);
const typeOf = (result: Outcome) => (result.value as Response).headers.get("content-type");

async function statementsKept(): Promise<number> {
  const [row] = await database.db.select({ n: count() }).from(accountStatements);
  return Number(row!.n);
}

const pdf = (persona: Persona, id: string, month: string) =>
  run(() =>
    pdfRoute.loader({
      request: request(persona, `/dashboard/statements/${id}/${month}`),
      params: { accountId: id, month },
      context: context(),
    } as never),
  );

describe("the Statements page and its PDFs: the member's own accounts only", () => {
  for (const persona of PERSONAS) {
    it(`/dashboard/statements for ${persona}`, async () => {
      const page = await run(() =>
        statementsRoute.loader({
          request: request(persona, "/dashboard/statements"),
          params: {},
          context: context(),
        } as never),
      );
      if (persona === "member" || persona === "other_member") {
        expect(page.status).toBe(200);
        const accounts = (
          page.value as { accounts: { id: number; masked_number: string; months: { month: string }[] }[] }
        ).accounts;
        expect(accounts.some((a) => a.id === account_id)).toBe(persona === "member");
        if (persona === "member")
          expect(accounts.find((a) => a.id === account_id)!.months.map((m) => m.month)).toEqual([
            last_month,
            addMonths(this_month, -2),
          ]);
        expect(page.body).not.toContain(account_number);
        return;
      }
      expect(page.status).toBe(302);
      expectSentAway(page, persona, "/dashboard/statements");
    });

    it(`a statement PDF for ${persona}`, async () => {
      const before = await statementsKept();
      const result = await pdf(persona, String(account_id), last_month);
      if (persona === "member") {
        expect(result.status).toBe(200);
        expect(typeOf(result)).toBe("application/pdf");
        const response = result.value as Response;
        expect(response.headers.get("content-disposition")).toBe(
          `attachment; filename="statement-${account_number.slice(-4)}-${last_month}.pdf"`,
        );
        expect(response.headers.get("cache-control")).toBe("private, no-store");
        expect(
          Buffer.from(await response.arrayBuffer())
            .subarray(0, 5)
            .toString(),
        ).toBe("%PDF-");
        return;
      }
      expect(await statementsKept()).toBe(before);
      if (persona === "other_member") {
        expect(result).toMatchObject({
          status: 404,
          body: "Statement not found. Please choose one of your accounts.\n",
        });
        return;
      }
      expect(result.status).toBe(302);
      expectSentAway(result, persona, "");
    });
  }

  for (const persona of PERSONAS) {
    it(`an export for ${persona}`, async () => {
      const path = `/dashboard/statements/export?account=${account_id}&from=${addMonths(this_month, -2)}-01&to=${last_month}-01&format=ofx`;
      const result = await run(() =>
        exportRoute.loader({ request: request(persona, path), params: {}, context: context() } as never),
      );
      if (persona === "member") {
        expect(result.status).toBe(200);
        expect(typeOf(result)).toBe("application/x-ofx");
        expect(result.body).toContain(`<ACCTID>${account_number}`);
        return;
      }
      expect(result.body).not.toContain(account_number);
      if (persona === "other_member")
        expect(result).toMatchObject({
          status: 404,
          body: "The export was not made.\naccount: Statement not found. Please choose one of your accounts.\n",
        });
      else expect(result.status).toBe(302);
    });
  }

  for (const persona of PERSONAS) {
    it(`Email it to me for ${persona}`, async () => {
      const [{ n: before }] = (await database.db
        .select({ n: count() })
        .from(outbox)
        .where(eq(outbox.kind, "statement"))) as [{ n: number }];
      const post = people.post(persona, "/dashboard/statements", {
        intent: "email",
        account: String(account_id),
        month: last_month,
      });
      const result = await run(() =>
        statementsRoute.action({ request: post, params: {}, context: context() } as never),
      );
      const [{ n: after }] = (await database.db
        .select({ n: count() })
        .from(outbox)
        .where(eq(outbox.kind, "statement"))) as [{ n: number }];
      if (persona === "member") {
        expect(result.body).toContain("We emailed your");
        expect(Number(after)).toBe(Number(before) + 1);
        return;
      }
      expect(Number(after)).toBe(Number(before));
      // An action answers with a status, not a redirect: 401 signed out, 403 for an applicant or staff.
      expect(result.status).toBe({ other_member: 404, anonymous: 401, applicant: 403, staff: 403 }[persona]);
      if (persona === "other_member")
        expect(result.body).toContain("Statement not found. Please choose one of your accounts.");
    });
  }

  it("a month not offered is refused with its message, and nothing is made", async () => {
    const before = await statementsKept();
    for (const month of [
      this_month,
      addMonths(this_month, 1),
      addMonths(this_month, -3),
      addMonths(this_month, -14),
      "2026-13",
      "2026-1",
      "x",
      "2026-10-01",
    ]) {
      expect(await pdf("member", String(account_id), month)).toMatchObject({
        status: 400,
        body: "Please choose one of the statement months offered for this account\n",
      });
    }
    for (const id of ["999999", "abc", "-1", "1e3", "0"]) {
      expect((await pdf("member", id, last_month)).status).toBe(404);
    }
    expect(await statementsKept()).toBe(before);
  });
});
