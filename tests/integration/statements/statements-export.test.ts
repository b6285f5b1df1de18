import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSync } from "ofx-js";
import type { Database, Db } from "~/server/db/client.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postTransfer, reverseTransaction } from "~/server/ledger/ledger.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { EXPORT_MESSAGES, exportFormats, memberExport } from "~/server/statements/export.server";
import { institution } from "~/config/institution.server";
import { openTestDatabase } from "../test-database";
import { accepted } from "../ledger-fixtures";
import { key, newMember } from "../member-support";

/**
 * Exports of a date range (docs/product.md#statements): CSV, and OFX 1.0.2 SGML as .ofx, .qfx
 * and .qbo, each read back by an independent OFX parser (ofx-js): the account, the range, every
 * posted transaction with its amount and id, and the balance at the range's end. Bad ranges and
 * another member's account are refused.
 */
let database: Database;
let db: Db;
let m: Awaited<ReturnType<typeof newMember>>;
let other: Awaited<ReturnType<typeof newMember>>;
const NOW = new Date("2026-11-24T15:00:00Z");

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  m = await newMember(db, { checking_cents: 0, savings_cents: 0 });
  other = await newMember(db, { checking_cents: 0, savings_cents: 0 });
  const cash = await institutionAccount(db, "cash");
  const post = (amount_cents: number, date: string, memo: string) =>
    accepted(
      postTransfer(db, {
        kind: amount_cents > 0 ? "ach_in" : "card_payment",
        initiator: "system:test",
        idempotency_key: key(),
        created_by: "test",
        effective_date: date,
        memo,
        entries: [
          { account_id: m.checking.id, amount_cents },
          { account_id: cash.id, amount_cents: -amount_cents },
        ],
      }),
    );
  await post(100_000, "2026-09-30", "Before the range");
  await post(50_000, "2026-10-01", "Pay & bonus <October>");
  await post(-1_234, "2026-10-15", '=HYPERLINK("x")');
  const wrong = await post(-999, "2026-10-20", "Charged twice");
  await accepted(
    reverseTransaction(db, {
      transaction_id: wrong.transaction.id,
      initiator: "system:test",
      idempotency_key: key(),
      created_by: "test",
      memo: "Refund",
      effective_date: "2026-10-21",
    }),
  );
  await post(-500, "2026-11-02", "After the range");
});
afterAll(async () => {
  expect((await verifyLedger(db)).ok).toBe(true);
  await database?.close();
});

const params = (extra: Record<string, string>) =>
  new URLSearchParams({
    account: String(m.checking.id),
    from: "2026-10-01",
    to: "2026-10-31",
    format: "ofx",
    ...extra,
  });

describe("exports for a date range", () => {
  for (const format of ["ofx", "qfx", "qbo"] as const) {
    it(`${format.toUpperCase()}: read back by ofx-js with every posted line and the balance at the end`, async () => {
      const answer = await memberExport(db, m.member.id, params({ format }), NOW);
      if (!answer.ok) throw new Error(JSON.stringify(answer));
      expect(answer.file_name).toBe(
        `transactions-${m.checking.account_number.slice(-4)}-2026-10-01-to-2026-10-31.${format}`,
      );
      expect(answer.media_type).toBe(
        { ofx: "application/x-ofx", qfx: "application/vnd.intu.qfx", qbo: "application/vnd.intu.qbo" }[format],
      );
      expect(answer.body.startsWith("OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\n")).toBe(true);
      expect(answer.body).toContain("<NAME>Pay &amp; bonus &lt;October&gt;<MEMO>MU");
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed file, read field by field
      const parsed = parseSync(answer.body) as { OFX: Record<string, any> };
      expect(parsed.OFX.SIGNONMSGSRSV1.SONRS.FI.FID).toBe(institution().routing_number);
      // Quicken and QuickBooks find the credit union by the bank id Intuit assigned it.
      // (ofx-js reads the tag INTU.BID as INTUBID.)
      expect(parsed.OFX.SIGNONMSGSRSV1.SONRS.INTUBID).toBe(format === "ofx" ? undefined : "99999");
      expect(answer.body.includes("\r\n<INTU.BID>99999\r\n")).toBe(format !== "ofx");
      const rs = parsed.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
      expect(rs.CURDEF).toBe("USD");
      expect(rs.BANKACCTFROM).toMatchObject({
        BANKID: institution().routing_number,
        ACCTID: m.checking.account_number,
        ACCTTYPE: "CHECKING",
      });
      expect(rs.BANKTRANLIST.DTSTART).toBe("20261001");
      expect(rs.BANKTRANLIST.DTEND).toBe("20261031");
      const lines = [rs.BANKTRANLIST.STMTTRN].flat();
      expect(lines.map((l: Record<string, string>) => [l.TRNTYPE, l.DTPOSTED, l.TRNAMT, l.NAME])).toEqual([
        ["CREDIT", "20261001", "500.00", "Pay & bonus <October>"], // escaped in the file, read back as typed
        ["DEBIT", "20261015", "-12.34", '=HYPERLINK("x")'],
        ["DEBIT", "20261020", "-9.99", "Charged twice"],
        ["CREDIT", "20261021", "9.99", "Refund"],
      ]);
      expect(new Set(lines.map((l: Record<string, string>) => l.FITID)).size).toBe(4);
      expect(rs.LEDGERBAL.BALAMT).toBe("1487.66");
    });
  }

  it("CSV: the posted lines of the range with the balance after each, formulas made inert", async () => {
    const answer = await memberExport(db, m.member.id, params({ format: "csv" }), NOW);
    if (!answer.ok) throw new Error(JSON.stringify(answer));
    const lines = answer.body.trim().split("\r\n");
    expect(lines[0]).toBe("Date,Description,Amount,Balance,Status,Reference number");
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 5).join(","))).toEqual([
      `2026-10-01,"Pay & bonus <October>",500.00,1500.00,Completed`,
      `2026-10-15,"'=HYPERLINK(""x"")",-12.34,1487.66,Completed`,
      `2026-10-20,"Charged twice",-9.99,1477.67,Reversed`,
      `2026-10-21,"Refund",9.99,1487.66,Completed`,
    ]);
  });

  it("without an Intuit bank id in the profile, QFX and QBO are refused with their message and not offered; OFX and CSV still are", async () => {
    const profile = institution();
    const kept = profile.intuit_bank_id;
    delete profile.intuit_bank_id;
    try {
      expect(exportFormats()).toEqual(["csv", "ofx"]);
      for (const format of ["qfx", "qbo"]) {
        expect(await memberExport(db, m.member.id, params({ format }), NOW)).toEqual({
          ok: false,
          status: 400,
          problems: { format: EXPORT_MESSAGES.intuit },
        });
      }
      const ofx = await memberExport(db, m.member.id, params({ format: "ofx" }), NOW);
      expect(ofx.ok && !ofx.body.includes("INTU.BID")).toBe(true);
    } finally {
      profile.intuit_bank_id = kept;
    }
    expect(exportFormats()).toEqual(["csv", "ofx", "qfx", "qbo"]);
  });

  it("refuses a bad range or format with its message, and another member's account as not found", async () => {
    const refused = async (extra: Record<string, string>, member_id = m.member.id) => {
      const answer = await memberExport(db, member_id, params(extra), NOW);
      if (answer.ok) throw new Error("expected a refusal");
      return answer;
    };
    expect(await refused({ to: "2026-11-25" })).toMatchObject({
      status: 400,
      problems: { to: EXPORT_MESSAGES.future },
    });
    expect(await refused({ from: "2026-10-31", to: "2026-10-01" })).toMatchObject({
      status: 400,
      problems: { from: EXPORT_MESSAGES.order },
    });
    expect(await refused({ from: "2025-10-31", to: "2026-11-01" })).toMatchObject({
      status: 400,
      problems: { from: EXPORT_MESSAGES.range },
    });
    expect(await refused({ from: "2026-02-30" })).toMatchObject({
      status: 400,
      problems: { from: "Please enter a real date (YYYY-MM-DD)" },
    });
    expect(await refused({ format: "pdf" })).toMatchObject({
      status: 400,
      problems: { format: EXPORT_MESSAGES.format },
    });
    expect(await refused({}, other.member.id)).toMatchObject({ status: 404 });
    expect(await refused({ account: "abc" })).toMatchObject({ status: 404 });
    // A full year is allowed (366 days in a range that holds 29 February).
    expect((await memberExport(db, m.member.id, params({ from: "2024-01-01", to: "2024-12-31" }), NOW)).ok).toBe(true);
  });
});
