import "../admin-support";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Database } from "~/server/db/client.server";
import { externalPayments, ledgerAccounts, sanctionsScreenings } from "~/server/db/schema";
import { loadSanctionsLists } from "~/server/sanctions/lists.server";
import { decideScreening } from "~/server/sanctions/screening.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { openTestDatabase } from "../test-database";
import { matrixCast } from "../authorization-matrix";
import { person } from "../admin-support";
import { queueAch } from "../rails-support";

/**
 * Screening a To US Bank payee (docs/product.md#screening-queue): a clean name goes to the queue
 * as before; a possible match is held but waits in the screening queue; cleared with a reason it
 * goes to the payment queue; confirmed by a second staff member it is blocked and the account
 * frozen. The one who asked cannot approve their own confirmation.
 */
const fixtures = path.resolve(import.meta.dirname, "../../fixtures/sanctions");
let database: Database;
let cast: Awaited<ReturnType<typeof matrixCast>>;
let second: { id: string; email: string };
const origin = { request_id: "screening-0001", ip: "203.0.113.62" };

beforeAll(async () => {
  database = await openTestDatabase();
  cast = await matrixCast(database.db, { member: { checking_cents: 100_000 } });
  const other = await person(database.db, "admin");
  second = { id: other.id, email: other.email };
  const loaded = await loadSanctionsLists(database.db, {
    files: ["SDN.CSV", "ALT.CSV", "ADD.CSV"].map((name) => ({
      name,
      bytes: fs.readFileSync(path.join(fixtures, name)),
    })),
    published_on: "2026-11-28",
    loader: null,
  });
  if (!loaded.ok) throw new Error(loaded.message);
});
afterAll(async () => {
  if (database) expect((await verifyLedger(database.db)).ok).toBe(true);
  await database?.close();
});

const statusOf = async (id: number) =>
  (await database.db.select().from(externalPayments).where(eq(externalPayments.id, id)))[0]!.status;

describe("screening To US Bank payees", () => {
  it("a payee on no list goes to the payment queue as before", async () => {
    const { payment_id } = await queueAch(database.db, cast.member.member, cast.member.checking.id, {
      amount: "5.00",
      account_name: "Maria Garcia",
    });
    expect(await statusOf(payment_id)).toBe("pending");
  });

  it("a possible match is held in review; cleared with a reason, it goes to the queue", async () => {
    const { payment_id } = await queueAch(database.db, cast.member.member, cast.member.checking.id, {
      amount: "6.00",
      account_name: "Jose Luis Gonzales Moreno",
    });
    expect(await statusOf(payment_id)).toBe("screening");
    const [screening] = await database.db
      .select()
      .from(sanctionsScreenings)
      .where(eq(sanctionsScreenings.subject_id, String(payment_id)));
    expect(screening).toMatchObject({ status: "open", screened_name: "Jose Luis Gonzales Moreno" });
    expect(screening!.matches[0]).toMatchObject({ uid: "10005", listed_name: "GONZALEZ MORENO, Jose Luis" });
    const staff = { id: cast.staff.id, email: cast.staff.email };
    expect(
      await decideScreening(database.db, {
        screening_id: screening!.id,
        decision: "clear",
        reason: " ",
        staff,
        origin,
      }),
    ).toMatchObject({ ok: false, field: "reason" });
    expect(
      await decideScreening(database.db, {
        screening_id: screening!.id,
        decision: "clear",
        reason: "Payee is a 30-year-old student in Ohio; the listed person was born in 1975.",
        staff,
        origin,
      }),
    ).toMatchObject({ ok: true });
    expect(await statusOf(payment_id)).toBe("pending");
  });

  it("a confirmation needs a second staff member: then the payment is blocked and the account frozen", async () => {
    const { payment_id } = await queueAch(database.db, cast.member.member, cast.member.checking.id, {
      amount: "7.00",
      account_name: "Khaled Abdallah al Rashidi",
    });
    const [screening] = await database.db
      .select()
      .from(sanctionsScreenings)
      .where(eq(sanctionsScreenings.subject_id, String(payment_id)));
    const staff = { id: cast.staff.id, email: cast.staff.email };
    const id = screening!.id;
    expect(
      await decideScreening(database.db, {
        screening_id: id,
        decision: "request_confirm",
        reason: "Same name and country",
        staff,
        origin,
      }),
    ).toMatchObject({ ok: true });
    expect(
      await decideScreening(database.db, { screening_id: id, decision: "approve_confirm", reason: "", staff, origin }),
    ).toMatchObject({ ok: false, kind: "conflict" });
    expect(await statusOf(payment_id)).toBe("screening");
    expect(
      await decideScreening(database.db, {
        screening_id: id,
        decision: "approve_confirm",
        reason: "",
        staff: second,
        origin,
      }),
    ).toMatchObject({ ok: true });
    expect(await statusOf(payment_id)).toBe("blocked");
    const [account] = await database.db
      .select()
      .from(ledgerAccounts)
      .where(eq(ledgerAccounts.id, cast.member.checking.id));
    expect(account!.status).toBe("frozen");
    expect(
      await decideScreening(database.db, { screening_id: id, decision: "clear", reason: "x", staff: second, origin }),
    ).toMatchObject({ ok: false, kind: "conflict" });
  });
});
