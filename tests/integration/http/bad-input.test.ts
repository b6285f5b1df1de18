import "../admin-support";
import "../member-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import type { Database } from "~/server/db/client.server";
import { auditLog, contactMessages, ledgerTransactions, memberProfiles, users } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { requestInfoContext } from "~/context";
import { CALENDAR_DATE_MESSAGE } from "~/domain/calendar-date";
import { MULTILINE_TEXT_MESSAGE, PLAIN_TEXT_MESSAGE } from "~/domain/plain-text";
import { ReviewDecisionSchema } from "~/domain/application-review";
import * as transactionsRoute from "~/routes/member/transactions";
import * as transactionsCsvRoute from "~/routes/member/transactions-csv";
import * as dashboardRoute from "~/routes/member/dashboard";
import * as adminIndexRoute from "~/routes/admin/index";
import * as auditRoute from "~/routes/admin/audit";
import * as auditCsvRoute from "~/routes/admin/audit-csv";
import * as profileRoute from "~/routes/settings/profile";
import * as signupRoute from "~/routes/auth/signup";
import * as loginRoute from "~/routes/auth/login";
import * as contactRoute from "~/routes/public/contact";
import { openTestDatabase } from "../test-database";
import { fieldErrors } from "../../form-reply";
import { applicationAnswers } from "../../application-answers";
import { applicant, person, signedIn } from "../admin-support";
import { fileOf, tinyPng } from "../identity-support";
import { key, newMember } from "../member-support";

/**
 * Bad input gets a 400 and a message for the field, never a 500, and changes nothing: impossible
 * dates and control characters (NUL first: PostgreSQL refuses it in text, so it used to reach
 * the database and fail there) in filters, searches and every stored text field, and a client
 * address (X-Forwarded-For behind a proxy) too long for a rate-limit key.
 */
let database: Database;
let memberCookie = "";
let staffCookie = "";
let member: Awaited<ReturnType<typeof newMember>>;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  member = await newMember(database.db, { checking_cents: 500_000, savings_cents: 100_000 });
  memberCookie = await signedIn(database.db, member.member.id);
  const staff = await person(database.db, "admin");
  staffCookie = await signedIn(database.db, staff.id);
});
afterAll(async () => {
  await database?.close();
});

function context(ip = "203.0.113.61") {
  const provider = new RouterContextProvider();
  provider.set(requestInfoContext, { request_id: "bad-input-0001", ip, nonce: "" });
  return provider;
}

function request(cookie: string | null, path: string, form?: Record<string, string> | FormData): Request {
  const headers = new Headers({ origin: "http://localhost:3000" });
  if (cookie) headers.set("cookie", cookie);
  if (!form) return new Request(`http://localhost:3000${path}`, { headers });
  if (form instanceof FormData)
    return new Request(`http://localhost:3000${path}`, { method: "POST", headers, body: form });
  headers.set("content-type", "application/x-www-form-urlencoded");
  return new Request(`http://localhost:3000${path}`, { method: "POST", headers, body: new URLSearchParams(form) });
}

type Outcome = { status: number; body: string; payload: unknown };

/** Runs a loader or action the way React Router does: what status and body the browser gets. */
async function run(fn: () => Promise<unknown>): Promise<Outcome> {
  let value: unknown;
  try {
    value = await fn();
  } catch (thrown) {
    // React Router answers anything thrown that is not a Response or data() with a 500.
    if (!(thrown instanceof Response) && !(thrown && typeof thrown === "object" && "init" in thrown))
      return { status: 500, body: String(thrown), payload: null };
    value = thrown;
  }
  if (value instanceof Response) return { status: value.status, body: await value.clone().text(), payload: null };
  const init = (value as { init?: { status?: number } } | null)?.init;
  const payload = (value as { data?: unknown } | null)?.data ?? value;
  return { status: init?.status ?? 200, body: JSON.stringify(payload) ?? "", payload };
}

const args = (r: Request, ip?: string) => ({ request: r, params: {}, context: context(ip) }) as never;
const auditRows = async () => Number((await database.db.select({ n: count() }).from(auditLog))[0]!.n);
const transactionRows = async () => Number((await database.db.select({ n: count() }).from(ledgerTransactions))[0]!.n);

describe("history and its CSV export (/dashboard/transactions)", () => {
  it.each([
    ["from=2024-02-31", { from: CALENDAR_DATE_MESSAGE }],
    ["to=2023-02-29", { to: CALENDAR_DATE_MESSAGE }],
    ["from=0000-01-01", { from: CALENDAR_DATE_MESSAGE }],
    ["q=rent%00", { q: PLAIN_TEXT_MESSAGE }],
    ["q=%1B%5B2J", { q: PLAIN_TEXT_MESSAGE }],
  ])("%s: the page answers 400 with the message next to the filter", async (query, problems) => {
    const page = await run(() =>
      transactionsRoute.loader(args(request(memberCookie, `/dashboard/transactions?${query}`))),
    );
    expect(page.status).toBe(400);
    expect((page.payload as { problems: unknown }).problems).toEqual(problems);
    expect((page.payload as { rows: unknown[] }).rows).toEqual([]);
    const csv = await run(() =>
      transactionsCsvRoute.loader(args(request(memberCookie, `/dashboard/transactions.csv?${query}`))),
    );
    expect(csv.status).toBe(400);
    expect(csv.body).toContain(Object.values(problems)[0]);
  });

  it("a real leap day and ordinary search words still filter", async () => {
    const page = await run(() =>
      transactionsRoute.loader(args(request(memberCookie, "/dashboard/transactions?from=2024-02-29&q=deposit"))),
    );
    expect(page.status).toBe(200);
    expect((page.payload as { filters: unknown }).filters).toMatchObject({ from: "2024-02-29", q: "deposit" });
    const csv = await run(() =>
      transactionsCsvRoute.loader(args(request(memberCookie, "/dashboard/transactions.csv?from=2024-02-29"))),
    );
    expect(csv.status).toBe(200);
  });
});

describe("back office search and the audit log's filters", () => {
  it("a control character in the member search answers 400 with a message", async () => {
    const page = await run(() => adminIndexRoute.loader(args(request(staffCookie, "/admin?q=ada%00"))));
    expect(page.status).toBe(400);
    expect((page.payload as { search_problem: string }).search_problem).toBe(PLAIN_TEXT_MESSAGE);
  });

  it.each([
    ["actor=%00", { actor: PLAIN_TEXT_MESSAGE }],
    ["member=x%00y", { member: PLAIN_TEXT_MESSAGE }],
    ["member=a%00%40example.com", { member: PLAIN_TEXT_MESSAGE }],
    ["action=staff%00", { action: PLAIN_TEXT_MESSAGE }],
    ["from=2024-02-31&to=2024-13-01", { from: CALENDAR_DATE_MESSAGE, to: CALENDAR_DATE_MESSAGE }],
  ])(
    "%s: the log answers 400 with the message next to the filter; the export is refused and not recorded",
    async (query, problems) => {
      const page = await run(() => auditRoute.loader(args(request(staffCookie, `/admin/audit?${query}`))));
      expect(page.status).toBe(400);
      expect((page.payload as { problems: unknown }).problems).toEqual(problems);
      const before = await auditRows();
      const csv = await run(() => auditCsvRoute.loader(args(request(staffCookie, `/admin/audit.csv?${query}`))));
      expect(csv.status).toBe(400);
      expect(csv.body).toContain(Object.values(problems)[0]);
      expect(await auditRows()).toBe(before);
    },
  );
});

describe("stored text refuses control characters with a field message, and nothing is saved", () => {
  it("profile fields (/settings/profile)", async () => {
    const [before] = await database.db
      .select()
      .from(memberProfiles)
      .where(eq(memberProfiles.user_id, member.member.id));
    for (const [field, value] of [
      ["first_name", "Al\u0000ex"],
      ["last_name", "Morgan\u001b"],
      ["street", "1 Main\u0000Street"],
      ["city", "Dover\u0007"],
      ["state", "N\u0000H"],
      ["country", "United\u0000States"],
    ] as const) {
      const form = {
        intent: "profile",
        first_name: "Pat",
        last_name: "Member",
        phone: "(555) 010-0000",
        street: "1 Main Street",
        city: "Portsmouth",
        state: "NH",
        postal_code: "03801",
        country: "United States",
        [field]: value,
      };
      const outcome = await run(() => profileRoute.action(args(request(memberCookie, "/settings/profile", form))));
      expect(outcome.status, field).toBe(400);
      expect(fieldErrors(outcome.payload)[field], field).toBe(PLAIN_TEXT_MESSAGE);
    }
    const [after] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, member.member.id));
    expect(after).toEqual(before);
  });

  it("review reasons and requests for information (back office)", async () => {
    const subject = await applicant(database.db);
    const audits = await auditRows();
    const forms: Record<string, string>[] = [
      { decision: "reject", reason: "Not\u0000eligible" },
      { decision: "request_info", message: "Please send\u0000 a clearer photo" },
    ];
    for (const form of forms) {
      const outcome = await run(() =>
        adminIndexRoute.action(
          args(request(staffCookie, "/admin?index", { intent: "review", member_id: subject.id, ...form })),
        ),
      );
      expect(outcome.status).toBe(400);
      const field = form.decision === "reject" ? "reason" : "message";
      expect(fieldErrors(outcome.payload)[field]).toBe(MULTILINE_TEXT_MESSAGE);
    }
    // A reason may still run over several lines.
    expect(ReviewDecisionSchema.parse({ decision: "reject", reason: "Not eligible:\r\n\tno address" })).toEqual({
      decision: "reject",
      reason: "Not eligible:\r\n\tno address",
    });
    const [profile] = await database.db
      .select({ status: memberProfiles.status })
      .from(memberProfiles)
      .where(eq(memberProfiles.user_id, subject.id));
    expect(profile!.status).toBe("pending");
    expect(await auditRows()).toBe(audits);
  });

  it("Create New User (back office)", async () => {
    const email = `made-${Date.now()}@example.com`;
    const outcome = await run(() =>
      adminIndexRoute.action(
        args(
          request(staffCookie, "/admin?index", {
            intent: "create_member",
            email,
            password: "Temporary harbor pass 9",
            first_name: "Ma\u0000de",
            last_name: "ByTest",
            phone: "(555) 010-0000",
            street: "1 Road\u0000",
            city: "Dover",
            state: "NH",
            postal_code: "03820",
            role: "user",
          }),
        ),
      ),
    );
    expect(outcome.status).toBe(400);
    expect(fieldErrors(outcome.payload)).toMatchObject({ first_name: PLAIN_TEXT_MESSAGE, street: PLAIN_TEXT_MESSAGE });
    expect(await database.db.select().from(users).where(eq(users.email, email))).toEqual([]);
  });

  it("the membership application (/signup)", async () => {
    const email = `applicant-nul-${Date.now()}@example.com`;
    const form = new FormData();
    for (const [name, value] of Object.entries(
      applicationAnswers(email, "Harbor lights at dusk 7", {
        first_name: "Jamie\u0000",
        nationality: "Amer\u0000ican",
        emergency_name: "Casey\u001bRivera",
      }),
    ))
      form.set(name, value);
    form.set("id_document", fileOf(tinyPng(), "id.png", "image/png"));
    const outcome = await run(() => signupRoute.action(args(request(null, "/signup", form), "198.51.100.201")));
    expect(outcome.status).toBe(400);
    expect(fieldErrors(outcome.payload)).toMatchObject({
      first_name: PLAIN_TEXT_MESSAGE,
      nationality: PLAIN_TEXT_MESSAGE,
      emergency_name: PLAIN_TEXT_MESSAGE,
    });
    expect(await database.db.select().from(users).where(eq(users.email, email))).toEqual([]);
  });

  it("transfer text: references, names and bank names in the dashboard's transfer forms", async () => {
    const transactions = await transactionRows();
    const forms: Record<string, string>[] = [
      {
        intent: "internal",
        from_account_id: String(member.checking.id),
        to_account_id: String(member.savings.id),
        amount: "1.00",
        reference: "Rent\u0000",
        idempotency_key: key(),
      },
      {
        intent: "member",
        from_account_id: String(member.checking.id),
        recipient_email: "someone@example.com",
        amount: "1.00",
        reference: "Gift\u001b",
        idempotency_key: key(),
      },
      {
        intent: "ach-review",
        from_account_id: String(member.checking.id),
        bank: "other",
        routing_number: "011000015",
        account_number: "123456789",
        account_name: "Pat\u0000Member",
        amount: "1.00",
        reference: "Bills",
        idempotency_key: key(),
      },
      {
        intent: "wire-review",
        from_account_id: String(member.checking.id),
        recipient_name: "Hans\u0000Muller",
        bank_name: "Deutsche\u0007Bank",
        bic: "DEUTDEFF",
        account_number: "DE89370400440532013000",
        iban: "",
        country: "DE",
        currency: "EUR",
        amount: "10",
        reference: "Invoice",
        idempotency_key: key(),
      },
    ];
    for (const form of forms) {
      const outcome = await run(() => dashboardRoute.action(args(request(memberCookie, "/dashboard", form))));
      expect(outcome.status, form.intent).toBeLessThan(500);
      const result = outcome.payload as { status: string };
      expect(result.status, form.intent).toBe("refused");
      expect(Object.values(fieldErrors(result)), form.intent).toContain(PLAIN_TEXT_MESSAGE);
    }
    expect(await transactionRows()).toBe(transactions);
  });
});

describe("a client address too long for a rate-limit key (X-Forwarded-For behind TRUST_PROXY=1)", () => {
  const longAddress = "x".repeat(300);

  it("sign-in answers as usual (wrong password: 401), not 500", async () => {
    const outcome = await run(() =>
      loginRoute.action(
        args(
          request(null, "/login", { intent: "password", email: "nobody@example.com", password: "not the password" }),
          longAddress,
        ),
      ),
    );
    expect(outcome.status).toBe(401);
  });

  it("the contact form stores the message, not 500", async () => {
    const before = Number((await database.db.select({ n: count() }).from(contactMessages))[0]!.n);
    const outcome = await run(() =>
      contactRoute.action(
        args(
          request(null, "/contact", {
            name: "Ada Lovelace",
            email: "ada@example.com",
            subject: "general",
            message: "A question about savings accounts.",
            preferred_contact: "email",
          }),
          longAddress,
        ),
      ),
    );
    expect(outcome.status).toBe(200);
    expect((outcome.payload as { status: string }).status).toBe("sent");
    expect(Number((await database.db.select({ n: count() }).from(contactMessages))[0]!.n)).toBe(before + 1);
  });
});
