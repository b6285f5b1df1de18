import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import type { Database } from "~/server/db/client.server";
import { accountStatements, auditLog, electronicDeliveryChoices, electronicDeliverySamples } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { addMonths, monthOfDate } from "~/domain/statements";
import { SAMPLE_CODE_MESSAGES } from "~/domain/electronic-delivery";
import * as consentRoute from "~/routes/member/electronic-delivery";
import * as sampleRoute from "~/routes/member/electronic-delivery-sample";
import * as accountRoute from "~/routes/settings/account";
import * as paperRoute from "~/routes/admin/paper-delivery";
import * as paperCsvRoute from "~/routes/admin/paper-delivery-csv";
import { statementFor } from "~/server/statements/statements.server";
import { getAccount } from "~/server/ledger/accounts.server";
import { fundedMember, person } from "../../factories";
import { openTestDatabase } from "../test-database";
import { routeContext, run, SignedIn } from "../authorization-matrix";

/**
 * Electronic delivery consent (E-SIGN, 15 U.S.C. 7001(c); docs/product.md#electronic-delivery):
 * the sample PDF read back by a PDF reader that is not pdfkit (unpdf, pdf.js), its code typed to
 * consent, a wrong or expired code refused next to the field with nothing recorded, withdrawal in
 * Account Settings putting the member on the back office's paper list (and its CSV), statements
 * made meanwhile marked for mailing, and consenting again taking them off it.
 */
let database: Database;
let people: SignedIn<"member" | "staff">;
let member: Awaited<ReturnType<typeof fundedMember>>;
const context = routeContext({ request_id: "esign-flow-0001", ip: "203.0.113.81" });

beforeAll(async () => {
  database = await openTestDatabase();
  setAppDatabase(database);
  member = await fundedMember(database.db, { first_name: "Robin", last_name: "Paperwright" });
  const staff = await person(database.db, "admin");
  people = await SignedIn.as(database.db, { member: member.member.id, staff: staff.id });
});
afterAll(async () => {
  await database?.close();
});

async function choices() {
  return database.db
    .select()
    .from(electronicDeliveryChoices)
    .where(eq(electronicDeliveryChoices.member_id, member.member.id))
    .orderBy(electronicDeliveryChoices.id);
}

/** Opens the sample PDF as the member and reads its code with pdf.js (unpdf), not with pdfkit. */
async function codeFromSample(): Promise<{ code: string; text: string }> {
  const outcome = await run(() =>
    sampleRoute.loader({
      request: people.get("member", "/dashboard/electronic-delivery/sample.pdf"),
      params: {},
      context: context(),
    } as never),
  );
  expect(outcome.status).toBe(200);
  const response = outcome.value as Response;
  expect(response.headers.get("content-type")).toBe("application/pdf");
  expect(response.headers.get("cache-control")).toBe("private, no-store");
  const bytes = new Uint8Array(await response.arrayBuffer());
  const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
  const code = /Your code:\s*([A-Z0-9](?:\s*[A-Z0-9]){5})/.exec(text)?.[1]?.replace(/\s/g, "");
  expect(code, text).toMatch(/^[A-Z0-9]{6}$/);
  return { code: code!, text };
}

const consent = (form: Record<string, string>) =>
  run(() =>
    consentRoute.action({
      request: people.post("member", "/dashboard/electronic-delivery", { intent: "consent", ...form }),
      params: {},
      context: context(),
    } as never),
  );

async function paperList(): Promise<{ member_id: string; reason: string; statements_to_mail: number }[]> {
  const outcome = await run(() =>
    paperRoute.loader({
      request: people.get("staff", "/admin/paper-delivery"),
      params: {},
      context: context(),
    } as never),
  );
  expect(outcome.status).toBe(200);
  return (outcome.value as { members: { member_id: string; reason: string; statements_to_mail: number }[] }).members;
}

describe("consent, withdrawal and the paper list", () => {
  it("a member who has not answered is on the paper list, and their statement is marked for mailing", async () => {
    expect(await choices()).toEqual([]);
    const mine = (await paperList()).find((m) => m.member_id === member.member.id);
    expect(mine).toMatchObject({ reason: "Has not answered yet", statements_to_mail: 0 });
    const month = addMonths(monthOfDate(businessDate(institution().time_zone, new Date())), -1);
    const account = (await getAccount(database.db, member.checking.id))!;
    const { statement } = await statementFor(database.db, account, month, "system:test");
    expect(statement.mail_paper_copy).toBe(true);
    expect((await paperList()).find((m) => m.member_id === member.member.id)?.statements_to_mail).toBe(1);
  });

  it("the sample PDF holds the member's code, the same on a second opening", async () => {
    const first = await codeFromSample();
    expect(first.text).toContain(institution().name);
    expect(first.text).toContain("Sample document for electronic delivery");
    const again = await codeFromSample();
    expect(again.code).toBe(first.code);
    const [kept] = await database.db
      .select()
      .from(electronicDeliverySamples)
      .where(eq(electronicDeliverySamples.member_id, member.member.id));
    expect(kept).toMatchObject({ code: first.code, used_at: null });
  });

  it("a wrong, badly shaped or missing code, or no agreement, is refused next to its field and records nothing", async () => {
    const { code } = await codeFromSample();
    const wrong = code === "AAAAAA" ? "CCCCCC" : "AAAAAA";
    const cases: [Record<string, string>, string, string][] = [
      [{ code: wrong, agree: "yes" }, "code", SAMPLE_CODE_MESSAGES.wrong],
      [{ code: "12", agree: "yes" }, "code", SAMPLE_CODE_MESSAGES.shape],
      [{ code: "", agree: "yes" }, "code", SAMPLE_CODE_MESSAGES.empty],
      [{ code }, "agree", SAMPLE_CODE_MESSAGES.agree],
    ];
    for (const [form, field, message] of cases) {
      const result = await consent(form);
      expect(result.status, JSON.stringify(form)).toBe(400);
      const reply = (result.value as { reply: { error: Record<string, string[]> } }).reply;
      expect(reply.error[field]).toEqual([message]);
      // The typed code is a secret field: never sent back.
      expect(result.body).not.toContain(code);
    }
    expect(await choices()).toEqual([]);
  });

  it("the right code consents: the version, the time, the request id and address, audited", async () => {
    const { code } = await codeFromSample();
    const result = await consent({ code: ` ${code.slice(0, 3).toLowerCase()}-${code.slice(3)} `, agree: "yes" });
    expect(result.status).toBe(200);
    expect(result.body).toContain("From now on your statements");
    const [row] = await choices();
    expect(row).toMatchObject({
      choice: "consented",
      disclosure_version: institution().disclosures.esign.version,
      made_by: `member:${member.member.id}`,
      request_id: "esign-flow-0001",
      ip: "203.0.113.81",
    });
    expect(row!.disclosure_versions).toMatchObject({ reg_e: institution().disclosures.reg_e.version });
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "electronic_delivery.consented"), eq(auditLog.member_id, member.member.id)));
    expect(audit).toMatchObject({ actor_id: member.member.id, request_id: "esign-flow-0001", ip: "203.0.113.81" });
    expect((await paperList()).some((m) => m.member_id === member.member.id)).toBe(false);
    // The code is used: typing it again is refused and records nothing more.
    expect((await consent({ code, agree: "yes" })).status).toBe(400);
    expect(await choices()).toHaveLength(1);
  });

  it("withdrawing in Account Settings is a new row: the member is on the paper list and in its CSV", async () => {
    const withdraw = () =>
      run(() =>
        accountRoute.action({
          request: people.post("member", "/settings/account", { intent: "paper-delivery" }),
          params: {},
          context: context(),
        } as never),
      );
    const result = await withdraw();
    expect(result.status).toBe(200);
    expect(result.body).toContain("Consent withdrawn");
    expect((await choices()).map((c) => c.choice)).toEqual(["consented", "withdrawn"]);
    // Twice is once.
    await withdraw();
    expect(await choices()).toHaveLength(2);
    expect((await paperList()).find((m) => m.member_id === member.member.id)).toMatchObject({
      reason: "Withdrew consent",
    });
    const csv = await run(() =>
      paperCsvRoute.loader({
        request: people.get("staff", "/admin/paper-delivery.csv"),
        params: {},
        context: context(),
      } as never),
    );
    expect(csv.status).toBe(200);
    expect(csv.body.split("\r\n")[0]).toBe(
      "name,email,street,city,state,postal_code,country,delivery_reason,since,statements_to_mail,notices_to_mail",
    );
    expect(csv.body).toContain(`"Robin Paperwright",${member.member.email},"1 Main Street","Portsmouth",NH,03801`);
    const [exported] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "paper_delivery.export"))
      .orderBy(desc(auditLog.id));
    expect(exported).toBeDefined();
  });

  it("consenting again clears it, with a new sample's code", async () => {
    const { code } = await codeFromSample();
    expect((await consent({ code, agree: "yes" })).status).toBe(200);
    expect((await choices()).map((c) => c.choice)).toEqual(["consented", "withdrawn", "consented"]);
    expect((await paperList()).some((m) => m.member_id === member.member.id)).toBe(false);
    const page = await run(() =>
      consentRoute.loader({
        request: people.get("member", "/dashboard/electronic-delivery"),
        params: {},
        context: context(),
      } as never),
    );
    expect(page.value).toMatchObject({ delivery: "electronic", answered: true });
  });

  it("an expired sample's code is refused", async () => {
    const { code } = await codeFromSample();
    await database.db
      .update(electronicDeliverySamples)
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where(eq(electronicDeliverySamples.code, code));
    const result = await consent({ code, agree: "yes" });
    expect(result.status).toBe(400);
    expect((result.value as { reply: { error: Record<string, string[]> } }).reply.error.code).toEqual([
      SAMPLE_CODE_MESSAGES.expired,
    ]);
    expect(await choices()).toHaveLength(3);
    const statements = await database.db
      .select({ n: accountStatements.id })
      .from(accountStatements)
      .where(eq(accountStatements.member_id, member.member.id));
    expect(statements).toHaveLength(1);
  });
});
