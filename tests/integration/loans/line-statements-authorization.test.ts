import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, count, eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { creditLineCycles, creditLineStatements, outbox } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { runLineServicing } from "~/server/loans/line-servicing.server";
import * as pdfRoute from "~/routes/member/line-statement-pdf";
import * as statementsRoute from "~/routes/member/statements";
import * as lineRoute from "~/routes/member/line-of-credit";
import * as exportRoute from "~/routes/member/statements-export";
import { businessDate } from "~/domain/ledger-rules";
import { formatBusinessDate } from "~/domain/calendar-date";
import { institution } from "~/config/institution.server";
import { addMonths, monthOfDate } from "~/domain/statements";
import { openTestDatabase } from "../test-database";
import { person } from "../../factories";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";
import { openLine, castPeople, expectStatementPdf } from "./loan-fixtures";

/**
 * Who may have a line of credit's statement and its export (docs/product.md#line-statements): its
 * member only. Another member's line is "not found"; a visitor is sent to sign in; an applicant,
 * staff (admin and reviewer) and an accountant to their own home: no member powers. A date that is
 * not one of the line's closed cycles is refused with its message. Nothing is made or mailed for a
 * refused request.
 */
type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff" | "accountant";
const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff", "accountant"];

let database: Database;
let people: SignedIn<Persona>;
let line_id = 0;
let closed_on = "";
const today = businessDate(institution().time_zone, new Date());
const number = () => `LC-${String(line_id).padStart(6, "0")}`;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const db = database.db;
  const cast = await matrixCast(db, { member: { checking_cents: 50_000 }, other_member: { checking_cents: 50_000 } });
  // Opened two months ago with a draw, so at least one billing cycle has closed.
  const opened_at = new Date(`${addMonths(monthOfDate(today), -2)}-15T15:00:00Z`);
  line_id = await openLine(db, cast, { rate_ppm: 125_000, draw_cents: 400_00, at: opened_at });
  await runLineServicing(db, new Date());
  closed_on = (
    await db
      .select()
      .from(creditLineCycles)
      .where(eq(creditLineCycles.line_id, line_id))
      .orderBy(asc(creditLineCycles.closed_on))
  )[0]!.closed_on;
  people = await SignedIn.as(db, { ...castPeople(cast), accountant: (await person(db, "accountant")).id });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "line-statements-matrix", ip: "203.0.113.84" });
const kept = async () => Number((await database.db.select({ n: count() }).from(creditLineStatements))[0]!.n);
const pdf = (persona: Persona, id: string, date: string) =>
  run(() =>
    pdfRoute.loader({
      request: people.get(persona, `/dashboard/loans/lines/${id}/statements/${date}`),
      params: { lineId: id, closedOn: date },
      context: context(),
    } as never),
  );

describe("a line of credit's statements and export: its member's only", () => {
  for (const persona of PERSONAS) {
    it(`a line statement PDF for ${persona}`, async () => {
      const before = await kept();
      const result = await pdf(persona, String(line_id), closed_on);
      if (persona === "member") {
        await expectStatementPdf(result, `line-statement-${number()}-${closed_on}.pdf`);
        return;
      }
      expect(await kept()).toBe(before);
      if (persona === "other_member") {
        expect(result).toMatchObject({
          status: 404,
          body: "Statement not found. Please choose one of your lines of credit.\n",
        });
        return;
      }
      expectSentAway(result, persona, "");
    });
  }

  for (const persona of PERSONAS) {
    it(`the Statements page and the line's page list its statements for ${persona} only if it is theirs`, async () => {
      const page = await run(() =>
        statementsRoute.loader({
          request: people.get(persona, "/dashboard/statements"),
          params: {},
          context: context(),
        } as never),
      );
      const linePage = await run(() =>
        lineRoute.loader({
          request: people.get(persona, `/dashboard/loans/lines/${line_id}`),
          params: { lineId: String(line_id) },
          context: context(),
        } as never),
      );
      if (persona === "member" || persona === "other_member") {
        expect(page.status).toBe(200);
        const value = page.value as {
          line_statements: { id: number; cycles: { closed_on: string }[] }[];
          loans: { value: string }[];
        };
        if (persona === "member") {
          expect(value.line_statements.map((l) => l.id)).toEqual([line_id]);
          expect(value.line_statements[0]!.cycles.map((c) => c.closed_on)).toContain(closed_on);
          expect(value.loans).toEqual([{ value: `line-${line_id}`, label: `Personal Line of Credit ${number()}` }]);
          expect(linePage).toMatchObject({ kind: "ok" });
          expect(
            (linePage.value as { statements: { cycles: { closed_on: string }[] } }).statements.cycles.map(
              (c) => c.closed_on,
            ),
          ).toContain(closed_on);
        } else {
          expect(value.line_statements).toEqual([]);
          expect(value.loans).toEqual([]);
          expect(linePage).toMatchObject({ kind: "refused", status: 404 });
        }
        return;
      }
      expectSentAway(page, persona, "/dashboard/statements");
      expectSentAway(linePage, persona, `/dashboard/loans/lines/${line_id}`);
    });
  }

  for (const persona of PERSONAS) {
    it(`Email it to me for a line statement, for ${persona}`, async () => {
      const mailed = async () =>
        Number((await database.db.select({ n: count() }).from(outbox).where(eq(outbox.kind, "statement")))[0]!.n);
      const before = await mailed();
      const post = people.post(persona, "/dashboard/statements", {
        intent: "email_line",
        line: String(line_id),
        month: closed_on,
      });
      const result = await run(() =>
        statementsRoute.action({ request: post, params: {}, context: context() } as never),
      );
      if (persona === "member") {
        expect(result.body).toContain(
          `We emailed your ${formatBusinessDate(closed_on)} statement for Personal Line of Credit ${number()} to`,
        );
        expect(await mailed()).toBe(before + 1);
        return;
      }
      expect(await mailed()).toBe(before);
      expect(result.status).toBe(persona === "other_member" ? 404 : persona === "anonymous" ? 401 : 403);
      if (persona === "other_member")
        expect(result.body).toContain("Statement not found. Please choose one of your lines of credit.");
    });
  }

  for (const persona of PERSONAS) {
    it(`the line's export for ${persona}`, async () => {
      const path = `/dashboard/statements/export?account=line-${line_id}&from=${addMonths(monthOfDate(today), -2)}-15&to=${today}&format=csv`;
      const result = await run(() =>
        exportRoute.loader({ request: people.get(persona, path), params: {}, context: context() } as never),
      );
      if (persona === "member") {
        expect(result.status).toBe(200);
        const body = await (result.value as Response).text();
        expect(body).toContain(`"${number()}: draw"`);
        return;
      }
      if (persona === "other_member") {
        expect(result.status).toBe(404);
        return;
      }
      expectSentAway(result, persona, "");
    });
  }

  it("a date not one of the line's closed cycles or a line not the member's is refused, and nothing is made", async () => {
    const before = await kept();
    for (const date of [today, "2099-01-15", "2026-13-01", "x", "2026-10"])
      expect(await pdf("member", String(line_id), date)).toMatchObject({
        status: 400,
        body: "Please choose one of the statements offered for this line of credit\n",
      });
    for (const id of ["999999", "abc", "-1", "1e3", "0"])
      expect(await pdf("member", id, closed_on)).toMatchObject({
        status: 404,
        body: "Statement not found. Please choose one of your lines of credit.\n",
      });
    expect(await kept()).toBe(before);
  });
});
