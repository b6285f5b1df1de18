import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import { parse } from "csv-parse/sync";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database } from "~/server/db/client.server";
import { accountDividends, auditLog, taxForms } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { payMonthlyDividends } from "~/server/dividends/dividends.server";
import {
  issueDueTaxForms,
  issueForms1099Int,
  memberTaxForms,
  taxFormPdf,
  taxFormsCsv,
} from "~/server/dividends/tax-forms.server";
import { storeTaxpayerId } from "~/server/members/taxpayer-ids.server";
import { reverseTransaction } from "~/server/ledger/ledger.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import * as pdfRoute from "~/routes/member/tax-form-pdf";
import * as csvRoute from "~/routes/admin/tax-forms-csv";
import * as statementsRoute from "~/routes/member/statements";
import { fundedMember, staff as newStaff } from "../../factories";
import { openTestDatabase } from "../test-database";
import { accepted, newKey } from "../ledger-fixtures";
import { expectSentAway, matrixCast, routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * Form 1099-INT (docs/product.md#tax-forms): the year's posted dividends per member on the demo
 * profile's rates (savings 3.50% APY), issued from $10, once; a reversed dividend left out; the
 * backup-withholding flag without a US taxpayer number; the member's PDF read back with unpdf
 * (number masked), staff's CSV read back with csv-parse; who may reach each.
 */
let database: Database;
const ORIGIN = { request_id: "tax-forms-0001", ip: "203.0.113.91" };
const YEAR = 2027;

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
});
afterAll(async () => {
  expect((await verifyLedger(database.db)).ok).toBe(true);
  await database?.close();
});

/** Every month of the year paid by the real dividend run (its run on the 1st of the next month). */
async function payYear() {
  for (let month = 2; month <= 13; month++) {
    const y = month === 13 ? YEAR + 1 : YEAR;
    const m = month === 13 ? 1 : month;
    await payMonthlyDividends(database.db, new Date(`${y}-${String(m).padStart(2, "0")}-01T12:00:00Z`));
  }
}

async function paidTo(account_id: number): Promise<number> {
  const rows = await database.db
    .select({ cents: accountDividends.dividend_cents })
    .from(accountDividends)
    .where(eq(accountDividends.account_id, account_id));
  return rows.reduce((sum, r) => sum + r.cents, 0);
}

describe("the year's forms", () => {
  let with_tin: Awaited<ReturnType<typeof fundedMember>>;
  let no_tin: Awaited<ReturnType<typeof fundedMember>>;
  let small: Awaited<ReturnType<typeof fundedMember>>;
  let reversed: Awaited<ReturnType<typeof fundedMember>>;

  beforeAll(async () => {
    const db = database.db;
    with_tin = await fundedMember(db, { savings_cents: 100_000 }); // $1,000: about $35 of dividends
    no_tin = await fundedMember(db, { savings_cents: 40_000 }); // $400: about $14
    small = await fundedMember(db, { savings_cents: 20_000 }); // $200: about $7, under $10
    reversed = await fundedMember(db, { savings_cents: 30_000 }); // $300: about $10.60, less one month
    await storeTaxpayerId(db, {
      user_id: with_tin.member.id,
      party: "member",
      tin: { type: "ssn", number: "401234567", country: null },
    });
    await payYear();
    const [december] = await db
      .select({ transaction_id: accountDividends.transaction_id })
      .from(accountDividends)
      .where(
        and(eq(accountDividends.account_id, reversed.savings.id), eq(accountDividends.period_month, `${YEAR}-12`)),
      );
    await accepted(
      reverseTransaction(db, {
        transaction_id: december!.transaction_id!,
        idempotency_key: newKey("reverse-dividend"),
        initiator: "system:test",
        created_by: "test",
        effective_date: `${YEAR}-12-31`,
      }),
    );
  });

  it("issues a form to each member whose posted dividends reached $10, once", async () => {
    expect(await paidTo(small.savings.id)).toBeLessThan(1_000);
    expect(await paidTo(reversed.savings.id)).toBeGreaterThanOrEqual(1_000); // before its reversal is taken off
    const first = await issueForms1099Int(database.db, YEAR);
    expect(first).toMatchObject({ tax_year: YEAR, issued: 2, flagged: 1 });
    expect(await issueForms1099Int(database.db, YEAR)).toEqual({
      tax_year: YEAR,
      issued: 0,
      already_issued: 2,
      flagged: 0,
    });
    const forms = await database.db.select().from(taxForms).where(eq(taxForms.tax_year, YEAR));
    expect(forms.map((f) => f.member_id).sort()).toEqual([with_tin.member.id, no_tin.member.id].sort());
    const mine = forms.find((f) => f.member_id === with_tin.member.id)!;
    expect(mine).toMatchObject({
      form: "1099-INT",
      interest_cents: await paidTo(with_tin.savings.id),
      tin_type: "ssn",
      tin_last_four: "4567",
      backup_withholding_flag: false,
    });
    expect(forms.find((f) => f.member_id === no_tin.member.id)).toMatchObject({
      tin_type: null,
      backup_withholding_flag: true,
    });
    expect(await memberTaxForms(database.db, small.member.id)).toEqual([]);
    expect(await memberTaxForms(database.db, reversed.member.id)).toEqual([]);
  });

  it("the job waits for the 15th of January, then issues only what is missing", async () => {
    expect(await issueDueTaxForms(database.db, new Date(`${YEAR + 1}-01-14T17:00:00Z`))).toMatchObject({
      tax_year: YEAR,
      issued: 0,
      waiting_until: `${YEAR + 1}-01-15`,
    });
    expect(await issueDueTaxForms(database.db, new Date(`${YEAR + 1}-01-15T17:00:00Z`))).toMatchObject({
      tax_year: YEAR,
      issued: 0,
      already_issued: 2,
    });
  });

  it("the member's PDF says box 1 and the number masked, never in full", async () => {
    const found = await taxFormPdf(database.db, with_tin.member.id, YEAR);
    expect(found?.file_name).toBe(`1099-INT-${YEAR}.pdf`);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(found!.pdf)), { mergePages: true });
    const cents = await paidTo(with_tin.savings.id);
    expect(text).toContain(`Form 1099-INT: Interest Income, ${YEAR}`);
    expect(text).toContain(`Box 1, Interest income: $${(cents / 100).toFixed(2)}`);
    expect(text).toContain("•••-••-4567");
    expect(text).not.toContain("401234567");
    expect(text).not.toContain("backup withholding");
    const flagged = await taxFormPdf(database.db, no_tin.member.id, YEAR);
    const flagged_text = (await extractText(await getDocumentProxy(new Uint8Array(flagged!.pdf)), { mergePages: true }))
      .text;
    expect(flagged_text).toContain("None on file");
    expect(flagged_text).toContain("backup withholding");
    expect(await taxFormPdf(database.db, small.member.id, YEAR)).toBeNull();
  });

  it("staff's CSV holds the year's forms, numbers masked, and the export is audited", async () => {
    const staff = await newStaff(database.db);
    const audits = async () =>
      Number(
        (await database.db.select({ n: count() }).from(auditLog).where(eq(auditLog.action, "tax_forms.export")))[0]!.n,
      );
    const before = await audits();
    const { csv, count: forms } = await taxFormsCsv(database.db, {
      tax_year: YEAR,
      staff: { id: staff.id, email: staff.email },
      origin: ORIGIN,
    });
    expect(forms).toBe(2);
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    const mine = rows.find((r) => r["Member ID"] === with_tin.member.id)!;
    expect(mine).toMatchObject({
      "Tax year": String(YEAR),
      Form: "1099-INT",
      "Taxpayer number": "•••-••-4567",
      "Box 1 interest": ((await paidTo(with_tin.savings.id)) / 100).toFixed(2),
      "Backup withholding flag": "no",
    });
    expect(rows.find((r) => r["Member ID"] === no_tin.member.id)).toMatchObject({
      "Taxpayer number": "None on file",
      "Backup withholding flag": "yes",
    });
    expect(csv).not.toContain("401234567");
    expect(await audits()).toBe(before + 1);
  });
});

describe("who may reach the tax forms", () => {
  type Persona = "anonymous" | "applicant" | "member" | "other_member" | "reviewer" | "staff";
  const PERSONAS: Persona[] = ["anonymous", "applicant", "member", "other_member", "reviewer", "staff"];
  let people: SignedIn<Persona>;
  const context = routeContext({ request_id: "tax-forms-matrix-0001", ip: "203.0.113.92" });

  beforeAll(async () => {
    const cast = await matrixCast(database.db);
    people = await SignedIn.as(database.db, {
      staff: cast.staff.id,
      reviewer: cast.reviewer.id,
      applicant: cast.applicant.id,
      member: cast.member.member.id,
      other_member: cast.other_member.member.id,
    });
    // The member has a form for the year; the other member has none.
    await database.db.insert(taxForms).values({
      member_id: cast.member.member.id,
      tax_year: YEAR - 1,
      form: "1099-INT",
      interest_cents: 1_234,
      tin_type: "ssn",
      tin_last_four: "1111",
      backup_withholding_flag: false,
    });
  });

  const load = (module: { loader: (args: never) => unknown }, persona: Persona, path: string, params = {}) =>
    run(
      () =>
        module.loader({ request: people.get(persona, path), params, context: context() } as never) as Promise<unknown>,
    );

  const exports = async () =>
    Number(
      (await database.db.select({ n: count() }).from(auditLog).where(eq(auditLog.action, "tax_forms.export")))[0]!.n,
    );

  for (const persona of PERSONAS) {
    it(`the member's PDF and Statements' list for ${persona}`, async () => {
      const path = `/dashboard/statements/tax/${YEAR - 1}`;
      const pdf = await load(pdfRoute, persona, path, { year: String(YEAR - 1) });
      const page = await load(statementsRoute, persona, "/dashboard/statements");
      if (persona === "member") {
        expect(pdf.status).toBe(200);
        expect(pdf.body).toBe("[application/pdf]");
        expect(page.value).toMatchObject({ tax_forms: [{ tax_year: YEAR - 1, form: "1099-INT", interest: "$12.34" }] });
        return;
      }
      if (persona === "other_member") {
        // Another member's year answers as a year with no form: nothing says whose it is.
        expect(pdf.status).toBe(404);
        expect(page.value).toMatchObject({ tax_forms: [] });
        return;
      }
      expectSentAway(pdf, persona, path);
      expectSentAway(page, persona, "/dashboard/statements");
    });

    it(`the year's CSV for ${persona}, and a refused request exports nothing`, async () => {
      const before = await exports();
      const path = `/admin/tax-forms/${YEAR - 1}`;
      const csv = await load(csvRoute, persona, path, { year: String(YEAR - 1) });
      if (persona === "staff") {
        expect(csv.status).toBe(200);
        expect(csv.body).toContain("1099-INT");
        expect(await exports()).toBe(before + 1);
        return;
      }
      expectSentAway(csv, persona, path);
      expect(await exports()).toBe(before);
    });
  }

  it("a year that is not one is a 400 with its message", async () => {
    const pdf = await load(pdfRoute, "member", "/dashboard/statements/tax/20x6", { year: "20x6" });
    expect(pdf).toMatchObject({ status: 400 });
    const csv = await load(csvRoute, "staff", "/admin/tax-forms/1", { year: "1" });
    expect(csv).toMatchObject({ status: 400 });
  });
});
