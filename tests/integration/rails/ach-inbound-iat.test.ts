import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import {
  achInboundEntries,
  achInboundIatEntries,
  auditLog,
  ledgerAccounts,
  notifications,
  sanctionsScreenings,
} from "~/server/db/schema";
import { loadSanctionsLists } from "~/server/sanctions/lists.server";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { receiveAchFile } from "~/server/rails/inbound.server";
import { decideScreeningCase as decideInBackOffice } from "~/server/admin/screening-decisions.server";
import { iatScreeningDecisions } from "~/server/rails/inbound-iat-decisions.server";
import { exportReturnFile, returnFile } from "~/server/rails/inbound-returns.server";
import { readNachaFile } from "../../unit/nacha-reader";
import { fileDatabase } from "../test-database";
import { currentCents, expectLedgerVerifies } from "../ledger-fixtures";
import { newMember } from "../member-support";
import { person, staff as newStaff } from "../../factories";
import { buildInboundFile, type BuildBatch } from "../../unit/nacha-inbound-builder";

/**
 * IAT entries received (docs/product.md#iat-entries): every party an entry's addenda name is
 * screened before it posts. A clean entry posts with the file; one with a possible match moves no
 * money and waits in the screening queue; cleared, it posts (the member is told then); confirmed
 * by a second staff member, it is blocked (never posted) and the account frozen, with a report
 * drafted. The ledger verifies after each test.
 */
const fixtures = path.resolve(import.meta.dirname, "../../fixtures/sanctions");
let db: Db;
let staff: { id: string; email: string };
let second: { id: string; email: string };
const origin = { request_id: "iat-test", ip: "198.51.100.9" };
const bytes = (text: string) => new TextEncoder().encode(text);
fileDatabase({
  pool_max: 6,
  onOpen: async (database) => {
    db = database.db;
    staff = await newStaff(db);
    const other = await person(db, "admin");
    second = { id: other.id, email: other.email };
    const loaded = await loadSanctionsLists(db, {
      files: ["SDN.CSV", "ALT.CSV", "ADD.CSV"].map((name) => ({
        name,
        bytes: fs.readFileSync(path.join(fixtures, name)),
      })),
      published_on: "2026-11-28",
      loader: null,
    });
    if (!loaded.ok) throw new Error(loaded.message);
  },
  beforeClose: (db) => expectLedgerVerifies(db),
});

/** The decision as the back office's route takes it: the rails post or block the entry. */
const decideScreeningCase = (db: Db, input: Parameters<typeof decideInBackOffice>[1]) =>
  decideInBackOffice(db, { ...input, ...iatScreeningDecisions(input.staff) });

function iatBatch(
  account_number: string,
  originator: string,
  amount_cents: number,
  receiver = "Jordan Morgan",
): BuildBatch {
  return {
    company_name: "",
    company_id: "GB99887766",
    sec: "IAT",
    description: "REMITTANCE",
    odfi: "02100002",
    service_class: "220",
    entries: [
      {
        code: "22",
        account_number,
        amount_cents,
        name: receiver,
        iat: {
          originator_name: originator,
          originator_country: "GB",
          odfi_name: "Barclays Bank PLC",
          odfi_country: "GB",
        },
      },
    ],
  };
}

async function entryOf(file_id: number) {
  const [entry] = await db.select().from(achInboundEntries).where(eq(achInboundEntries.file_id, file_id));
  return entry!;
}

async function screeningOf(entry_id: number) {
  const [row] = await db
    .select()
    .from(sanctionsScreenings)
    .where(
      and(eq(sanctionsScreenings.subject_type, "ach_entry"), eq(sanctionsScreenings.subject_id, String(entry_id))),
    );
  return row;
}

describe("IAT entries: screened before they post", () => {
  it("a credit whose parties are on no list posts with the file, its parties kept", async () => {
    const m = await newMember(db, { first_name: "Jordan", last_name: "Morgan", checking_cents: 10_000 });
    const result = await receiveAchFile(db, {
      bytes: bytes(
        buildInboundFile([iatBatch(m.checking.account_number, "Hartley Trading Ltd", 25_000)], { modifier: "A" }),
      ),
      file_name: "iat-clean.ach",
      staff,
      origin,
    });
    expect(result).toMatchObject({ ok: true, posted: 1 });
    if (!result.ok) return;
    const entry = await entryOf(result.file_id);
    expect(entry).toMatchObject({ status: "posted", sec_code: "IAT", company_name: "HARTLEY TRADING LTD" });
    expect(await currentCents(db, m.checking.id)).toBe(35_000);
    const [kept] = await db.select().from(achInboundIatEntries).where(eq(achInboundIatEntries.entry_id, entry.id));
    expect(kept!.details.originator).toMatchObject({ name: "HARTLEY TRADING LTD", country: "GB" });
    expect(kept!.details.addenda_records).toHaveLength(7);
    expect(await screeningOf(entry.id)).toBeUndefined();
    const [note] = await db.select().from(notifications).where(eq(notifications.member_id, m.member.id));
    expect(note!.title).toBe("Deposit of $250.00 from Hartley Trading LTD");
  });

  it("a credit from a listed originator is held in the screening queue, no money moved; cleared, it posts", async () => {
    const m = await newMember(db, { first_name: "Jordan", last_name: "Morgan", checking_cents: 10_000 });
    const settlement = (await institutionAccount(db, "ach_settlement")).id;
    const settlement_before = await currentCents(db, settlement);
    const result = await receiveAchFile(db, {
      bytes: bytes(
        buildInboundFile([iatBatch(m.checking.account_number, "Karimi Trading Company LLC", 40_000)], {
          modifier: "B",
        }),
      ),
      file_name: "iat-hit.ach",
      staff,
      origin,
    });
    expect(result).toMatchObject({ ok: true, posted: 0 });
    if (!result.ok) return;
    const entry = await entryOf(result.file_id);
    expect(entry).toMatchObject({ status: "screening", transaction_id: null, resolved_at: null });
    expect(await currentCents(db, m.checking.id)).toBe(10_000);
    expect(await currentCents(db, settlement)).toBe(settlement_before);
    const screening = (await screeningOf(entry.id))!;
    expect(screening).toMatchObject({
      status: "open",
      member_id: m.member.id,
      screened_name: "KARIMI TRADING COMPANY LLC",
    });
    expect(screening.matches[0]).toMatchObject({ uid: "10003", listed_name: "KARIMI TRADING COMPANY LLC" });
    expect(screening.screened_details).toMatchObject({ amount: "$400.00", trace_number: entry.trace_number });
    // The member hears nothing while it is screened.
    expect(await db.select().from(notifications).where(eq(notifications.member_id, m.member.id))).toEqual([]);

    const cleared = await decideScreeningCase(db, {
      screening_id: screening.id,
      decision: "clear",
      reason: "Another company of the same name: registered in Leeds, not the listed Tehran one",
      staff,
      origin,
    });
    expect(cleared).toEqual({ ok: true, message: "Cleared: the credit of $400.00 was posted." });
    expect(await entryOf(result.file_id)).toMatchObject({ status: "posted", account_id: m.checking.id });
    expect(await currentCents(db, m.checking.id)).toBe(50_000);
    const [note] = await db.select().from(notifications).where(eq(notifications.member_id, m.member.id));
    expect(note!.title).toBe("Deposit of $400.00 from Karimi Trading Company LLC");
    const audit = await db.select().from(auditLog).where(eq(auditLog.action, "ach_inbound.iat_cleared"));
    expect(audit.map((a) => a.subject_id)).toContain(String(entry.id));
  });

  it("confirmed by a second staff member, it is blocked: never posted, the account frozen, a report drafted", async () => {
    const m = await newMember(db, { first_name: "Jordan", last_name: "Morgan", checking_cents: 10_000 });
    const result = await receiveAchFile(db, {
      bytes: bytes(
        buildInboundFile([iatBatch(m.checking.account_number, "Karimi Trading Company", 70_000)], { modifier: "C" }),
      ),
      file_name: "iat-confirm.ach",
      staff,
      origin,
    });
    if (!result.ok) throw new Error(result.message);
    const entry = await entryOf(result.file_id);
    const screening = (await screeningOf(entry.id))!;
    expect(
      await decideScreeningCase(db, {
        screening_id: screening.id,
        decision: "request_confirm",
        reason: "Same company, same address in the list entry",
        staff,
        origin,
      }),
    ).toMatchObject({ ok: true });
    // The one who asked cannot approve.
    expect(
      await decideScreeningCase(db, {
        screening_id: screening.id,
        decision: "approve_confirm",
        reason: "",
        staff,
        origin,
      }),
    ).toMatchObject({ ok: false, kind: "conflict" });
    const approved = await decideScreeningCase(db, {
      screening_id: screening.id,
      decision: "approve_confirm",
      reason: "",
      staff: second,
      origin,
    });
    expect(approved).toMatchObject({ ok: true });
    if (!approved.ok) return;
    expect(approved.message).toMatch(
      /^Confirmed: the entry is blocked and never posts; its money stays in the ACH settlement account\. The account it named is frozen\. A report to OFAC is drafted/,
    );
    expect(await entryOf(result.file_id)).toMatchObject({ status: "blocked", transaction_id: null });
    expect(await currentCents(db, m.checking.id)).toBe(10_000);
    const [account] = await db.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, m.checking.id));
    expect(account!.status).toBe("frozen");
    const [after] = await db.select().from(sanctionsScreenings).where(eq(sanctionsScreenings.id, screening.id));
    expect(after!.report_draft).toMatchObject({ kind: "blocked_property" });
    expect(after!.report_draft!.facts[0]).toMatch(
      /^Incoming international ACH credit \(IAT\) of \$700\.00 from KARIMI TRADING COMPANY/,
    );
  });

  it("one that cannot post (no such account) goes back in the IAT layout in the return file", async () => {
    const result = await receiveAchFile(db, {
      bytes: bytes(buildInboundFile([iatBatch("99887766554", "Hartley Trading Ltd", 12_345)], { modifier: "D" })),
      file_name: "iat-r03.ach",
      staff,
      origin,
    });
    expect(result).toMatchObject({ ok: true, returned: 1 });
    if (!result.ok) return;
    const entry = await entryOf(result.file_id);
    expect(entry).toMatchObject({ status: "returned", return_code: "R03" });
    const exported = await exportReturnFile(db, staff, origin);
    if (!exported.ok) throw new Error(exported.message);
    const stored = await returnFile(db, exported.file.id);
    const read = readNachaFile(stored!.content, { returns: true });
    const iat = read.batches.find((b) => b.sec_code === "IAT")!;
    expect(iat.iat).toMatchObject({ foreign_exchange_indicator: "FV", originating_currency: "GBP" });
    const back = iat.entries.find((e) =>
      e.addenda.some((a) => a.type === "99" && a.text.includes(entry.trace_number)),
    )!;
    expect(back).toMatchObject({ transaction_code: "21", account_number: "99887766554", amount_cents: 12_345 });
    expect(back.addenda.map((a) => a.type)).toEqual(["10", "11", "12", "13", "14", "15", "16", "99"]);
    expect(back.addenda[7]!.text.slice(0, 3)).toBe("R03");
  });
});
