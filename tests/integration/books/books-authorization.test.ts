import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "~/server/db/client.server";
import { setAppDatabase } from "~/server/db/db.server";
import * as layoutRoute from "~/routes/books/layout";
import * as accountsRoute from "~/routes/books/accounts";
import * as accountRoute from "~/routes/books/account";
import * as trialBalanceRoute from "~/routes/books/trial-balance";
import * as trialBalanceCsvRoute from "~/routes/books/trial-balance-csv";
import * as trialBalancePdfRoute from "~/routes/books/trial-balance-pdf";
import * as settlementRoute from "~/routes/books/settlement";
import * as entriesRoute from "~/routes/books/entries";
import * as glExportRoute from "~/routes/books/gl-export-csv";
import { BOOKS_MESSAGES } from "~/domain/books";
import { today } from "~/server/ledger/ledger.server";
import { openTestDatabase } from "../test-database";
import { applicant, person } from "../admin-support";
import { fundedMember } from "../../factories";
import { expectSentAway, routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * The authorization matrix of the books (docs/product.md#books, docs/security.md#roles): every
 * /admin/books page and file for a visitor, an applicant, a member, a reviewer, staff and an
 * accountant. Staff and accountants read them; everyone else is sent away to their own home with
 * none of the books' figures.
 */
type Persona = "anonymous" | "pending" | "member" | "reviewer" | "staff" | "accountant";
const PERSONAS: Persona[] = ["anonymous", "pending", "member", "reviewer", "staff", "accountant"];
const READERS: Persona[] = ["staff", "accountant"];

let database: Database;
let people: SignedIn<Persona>;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  const member = await fundedMember(database.db, { checking_cents: 123_45 });
  people = await SignedIn.as(database.db, {
    staff: (await person(database.db, "admin")).id,
    reviewer: (await person(database.db, "reviewer")).id,
    accountant: (await person(database.db, "accountant")).id,
    pending: (await applicant(database.db)).id,
    member: member.member.id,
  });
});
afterAll(async () => {
  await database?.close();
});

const context = routeContext({ request_id: "books-matrix-0001", ip: "203.0.113.78" });
const load =
  (route: { loader: (args: never) => Promise<unknown> }, params: Record<string, string> = {}) =>
  (r: Request) =>
    route.loader({ request: r, params, context: context() } as never);

const PAGES: { path: string; load: (r: Request) => Promise<unknown> }[] = [
  { path: "/admin/books", load: load(layoutRoute) },
  { path: "/admin/books?index", load: load(accountsRoute) },
  { path: "/admin/books/accounts/cash", load: load(accountRoute, { type: "cash" }) },
  { path: "/admin/books/trial-balance", load: load(trialBalanceRoute) },
  { path: "/admin/books/trial-balance.csv", load: load(trialBalanceCsvRoute) },
  { path: "/admin/books/trial-balance.pdf", load: load(trialBalancePdfRoute) },
  { path: "/admin/books/settlement", load: load(settlementRoute) },
  { path: "/admin/books/entries", load: load(entriesRoute) },
  { path: "/admin/books/gl-export.csv", load: load(glExportRoute) },
];

describe("every /admin/books page and file", () => {
  for (const page of PAGES) {
    for (const persona of PERSONAS) {
      it(`${page.path} for ${persona}`, async () => {
        const outcome = await run(() => page.load(people.get(persona, page.path)));
        if (READERS.includes(persona)) {
          expect(outcome.kind).toBe("ok");
          return;
        }
        expectSentAway(outcome, persona, "/admin/books");
        expect(outcome.body).not.toContain("123.45");
        expect(outcome.body).not.toContain("Cash");
      });
    }
  }

  it("the CSV and PDF are attachments named for the day, never cached", async () => {
    for (const [route, type, ext] of [
      [trialBalanceCsvRoute, "text/csv; charset=utf-8", "csv"],
      [trialBalancePdfRoute, "application/pdf", "pdf"],
    ] as const) {
      const response = (await load(route)(people.get("accountant", `/admin/books/trial-balance.${ext}`))) as Response;
      expect(response.headers.get("content-type")).toBe(type);
      expect(response.headers.get("content-disposition")).toBe(
        `attachment; filename="trial-balance-${today()}.${ext}"`,
      );
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("a bad or future day gets its message and today's figures on the pages, 400 for the files", async () => {
    const page = (await load(trialBalanceRoute)(
      people.get("accountant", "/admin/books/trial-balance?date=2026-02-30"),
    )) as { error: string; tb: { as_of: string } };
    expect(page.error).toBe(BOOKS_MESSAGES.bad_date);
    expect(page.tb.as_of).toBe(today());
    const future = (await load(accountsRoute)(people.get("accountant", "/admin/books?date=2999-01-01"))) as {
      error: string;
    };
    expect(future.error).toBe(BOOKS_MESSAGES.future_date);
    const file = await run(() =>
      load(trialBalanceCsvRoute)(people.get("accountant", "/admin/books/trial-balance.csv?date=nope")),
    );
    expect(file).toMatchObject({ kind: "refused", status: 400, body: BOOKS_MESSAGES.bad_date });
  });

  it("an account that is not one of the institution's is not found", async () => {
    const outcome = await run(() =>
      load(accountRoute, { type: "checking" })(people.get("accountant", "/admin/books/accounts/checking")),
    );
    expect(outcome).toMatchObject({ kind: "refused", status: 404 });
  });
});
