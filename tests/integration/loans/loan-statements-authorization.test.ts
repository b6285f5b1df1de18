import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { loanStatements, outbox } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import * as pdfRoute from "~/routes/member/loan-statement-pdf";
import * as statementsRoute from "~/routes/member/statements";
import * as loanRoute from "~/routes/member/loan";
import { businessDate } from "~/domain/ledger-rules";
import { institution } from "~/config/institution.server";
import { addMonths, monthLabel, monthOfDate } from "~/domain/statements";
import { openTestDatabase } from "../test-database";
import { person } from "../../factories";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { bookLoan, castPeople, expectStatementPdf } from "./loan-fixtures";

/**
 * Who may have a loan's statement (docs/product.md#loan-statements): its member only. Another
 * member's loan is "not found"; a visitor is sent to sign in; an applicant, staff (admin and
 * reviewer) and an accountant to their own home: no member powers. A month not offered is refused
 * with its message. Nothing is made for a refused request.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff" | "accountant";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff", "accountant"];

let database: Database;
let people: SignedIn<Persona>;
let loan_id = 0;
const this_month = monthOfDate(businessDate(institution().time_zone, new Date()));
const last_month = addMonths(this_month, -1);

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 50_000 }, other_member: { checking_cents: 50_000 } });
  // Paid out two months ago, so last month has a statement.
  const booked_at = new Date(`${addMonths(this_month, -2)}-15T15:00:00Z`);
  loan_id = await bookLoan(db, cast, { at: booked_at });
  people = await SignedIn.as(db, { ...castPeople(cast), accountant: (await person(db, "accountant")).id });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "loan-statements-matrix", ip: "203.0.113.83" });
const kept = async () => Number((await database.db.select({ n: count() }).from(loanStatements))[0]!.n);
const pdf = (persona: Persona, id: string, month: string) =>
  run(() =>
    pdfRoute.loader({
      request: people.get(persona, `/dashboard/loans/${id}/statements/${month}`),
      params: { loanId: id, month },
      context: context(),
    } as never),
  );

describe("a loan's statements: its member's only", () => {
  for (const persona of PERSONAS) {
    it(`a loan statement PDF for ${persona}`, async () => {
      const before = await kept();
      const result = await pdf(persona, String(loan_id), last_month);
      if (persona === "member") {
        await expectStatementPdf(result, `loan-statement-L-${String(loan_id).padStart(6, "0")}-${last_month}.pdf`);
        return;
      }
      expect(await kept()).toBe(before);
      if (persona === "other_member") {
        expect(result).toMatchObject({
          status: 404,
          body: "Statement not found. Please choose one of your loans.\n",
        });
        return;
      }
      expectSentAway(result, persona, "");
    });
  }

  for (const persona of PERSONAS) {
    it(`the Statements page and the loan page list the loan's statements for ${persona} only if it is theirs`, async () => {
      const page = await run(() =>
        statementsRoute.loader({
          request: people.get(persona, "/dashboard/statements"),
          params: {},
          context: context(),
        } as never),
      );
      const loanPage = await run(() =>
        loanRoute.loader({
          request: people.get(persona, `/dashboard/loans/${loan_id}`),
          params: { loanId: String(loan_id) },
          context: context(),
        } as never),
      );
      if (persona === "member" || persona === "other_member") {
        expect(page.status).toBe(200);
        const listed = (page.value as { loan_statements: { id: number; months: { month: string }[] }[] })
          .loan_statements;
        if (persona === "member") {
          expect(listed.map((l) => [l.id, l.months.map((m) => m.month)])).toEqual([
            [loan_id, [last_month, addMonths(this_month, -2)]],
          ]);
          expect(loanPage).toMatchObject({ kind: "ok" });
          expect(
            (loanPage.value as { statements: { months: { month: string }[] } }).statements.months.map((m) => m.month),
          ).toEqual([last_month, addMonths(this_month, -2)]);
        } else {
          expect(listed).toEqual([]);
          expect(loanPage).toMatchObject({ kind: "refused", status: 404 });
        }
        return;
      }
      expectSentAway(page, persona, "/dashboard/statements");
      expectSentAway(loanPage, persona, `/dashboard/loans/${loan_id}`);
    });
  }

  for (const persona of PERSONAS) {
    it(`Email it to me for a loan statement, for ${persona}`, async () => {
      const mailed = async () =>
        Number((await database.db.select({ n: count() }).from(outbox).where(eq(outbox.kind, "statement")))[0]!.n);
      const before = await mailed();
      const post = people.post(persona, "/dashboard/statements", {
        intent: "email_loan",
        loan: String(loan_id),
        month: last_month,
      });
      const result = await run(() =>
        statementsRoute.action({ request: post, params: {}, context: context() } as never),
      );
      if (persona === "member") {
        expect(result.body).toContain(
          `We emailed your ${monthLabel(last_month)} statement for Personal Loan L-${String(loan_id).padStart(6, "0")} to`,
        );
        expect(await mailed()).toBe(before + 1);
        return;
      }
      expect(await mailed()).toBe(before);
      // An action answers with a status, not a redirect: 401 signed out, 403 for anyone else signed in.
      expect(result.status).toBe(persona === "other_member" ? 404 : persona === "anonymous" ? 401 : 403);
      if (persona === "other_member")
        expect(result.body).toContain("Statement not found. Please choose one of your loans.");
    });
  }

  it("a month not offered or a loan not the member's is refused with its message, and nothing is made", async () => {
    const before = await kept();
    for (const month of [
      this_month,
      addMonths(this_month, 1),
      addMonths(this_month, -3),
      "2026-13",
      "2026-1",
      "x",
      "2026-10-01",
    ])
      expect(await pdf("member", String(loan_id), month)).toMatchObject({
        status: 400,
        body: "Please choose one of the statement months offered for this loan\n",
      });
    for (const id of ["999999", "abc", "-1", "1e3", "0"])
      expect(await pdf("member", id, last_month)).toMatchObject({
        status: 404,
        body: "Statement not found. Please choose one of your loans.\n",
      });
    expect(await kept()).toBe(before);
  });
});
