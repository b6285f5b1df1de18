import "../identity-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { disclosureChanges, disclosureNotices, notifications, outbox } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { today } from "~/server/ledger/ledger.server";
import { addCalendarDays } from "~/domain/payment-dates";
import {
  disclosureChangesForStaff,
  sendChangeInTermsNotices,
} from "~/server/electronic-delivery/change-in-terms.server";
import {
  memberDisclosures,
  paperDeliveryMembers,
  seedConsent,
} from "~/server/electronic-delivery/electronic-delivery.server";
import { APP_JOBS } from "~/server/jobs/registry.server";
import { openTestDatabase } from "../test-database";
import { fundedMember } from "../../factories";

/**
 * Change-in-terms notices (docs/product.md#disclosures): the first version of each disclosure is the
 * baseline; a new version in the profile is told to every approved member once, by email and in
 * the app with electronic delivery, on the paper list without it, and takes effect no sooner than
 * its rule's notice period (12 CFR 1005.8(a): 21 days). A run that stopped half way is finished by
 * the next, telling nobody twice.
 */
let database: Database;
let db: Db;

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

describe("change-in-terms notices", () => {
  it("baseline first; then a new Regulation E version is told once to each member, 21 days ahead at least", async () => {
    const now = new Date();
    const on = today(now);
    const first = await sendChangeInTermsNotices(db, now);
    expect(first).toMatchObject({ recorded: 6, changes: 0, told: 0 });
    expect((await db.select().from(disclosureChanges)).every((c) => c.baseline)).toBe(true);
    expect(await disclosureChangesForStaff(db)).toEqual([]);

    const electronic = await fundedMember(db, {});
    await seedConsent(db, electronic.member.id, now);
    const paper = await fundedMember(db, {});
    const resumed = await fundedMember(db, {});
    const ids = [electronic.member.id, paper.member.id, resumed.member.id];

    const reg_e = institution().disclosures.reg_e;
    const before = { ...reg_e };
    try {
      // Staff publish a new version said to take effect in 5 days: too soon for 1005.8(a).
      Object.assign(reg_e, { version: "2027-01", effective_on: addCalendarDays(on, 5) });
      // A run that stopped after telling one member (its row written) is finished by the next.
      await db.insert(disclosureNotices).values({
        member_id: resumed.member.id,
        kind: "reg_e",
        version: "2027-01",
        effective_on: addCalendarDays(on, 21),
        channel: "mail",
        sent_at: now,
      });
      const second = await sendChangeInTermsNotices(db, now);
      expect(second).toMatchObject({ recorded: 1, changes: 1 });
      const [change] = await db
        .select()
        .from(disclosureChanges)
        .where(and(eq(disclosureChanges.kind, "reg_e"), eq(disclosureChanges.version, "2027-01")));
      expect(change).toMatchObject({
        baseline: false,
        announced_on: on,
        profile_effective_on: addCalendarDays(on, 5),
        effective_on: addCalendarDays(on, 21),
      });
      expect(change!.notices_done_at).not.toBeNull();
      const told = await db
        .select()
        .from(disclosureNotices)
        .where(and(eq(disclosureNotices.version, "2027-01"), inArray(disclosureNotices.member_id, ids)));
      expect(Object.fromEntries(told.map((t) => [t.member_id, t.channel]))).toEqual({
        [electronic.member.id]: "email",
        [paper.member.id]: "mail",
        [resumed.member.id]: "mail",
      });
      // The email goes to the member on electronic delivery only; the in-app notice to both newly told.
      const mails = await db.select().from(outbox).where(inArray(outbox.user_id, ids));
      expect(mails.filter((m) => m.kind === "disclosure_notice").map((m) => m.user_id)).toEqual([electronic.member.id]);
      const letter = mails.find((m) => m.kind === "disclosure_notice")!;
      expect(letter.subject).toBe(`Change in terms: ${reg_e.title}`);
      expect(letter.text_body).toContain("The new version (2027-01) takes effect on");
      expect(letter.text_body).toContain("We tell you 21 days ahead, as 12 CFR 1005.8(a) requires.");
      const bells = await db.select().from(notifications).where(inArray(notifications.member_id, ids));
      expect(
        bells
          .filter((b) => b.kind === "disclosure_change")
          .map((b) => b.member_id)
          .sort(),
      ).toEqual([electronic.member.id, paper.member.id].sort());
      // The paper member's notice is on the paper list to mail.
      expect((await paperDeliveryMembers(db)).find((p) => p.member_id === paper.member.id)).toMatchObject({
        notices_to_mail: 1,
      });
      // The member sees it among their disclosures' notices.
      expect((await memberDisclosures(db, electronic.member.id)).notices).toMatchObject([
        { kind: "reg_e", version: "2027-01", channel: "email" },
      ]);
      // Staff see the change, its dates and how many were told how.
      const [view] = await disclosureChangesForStaff(db);
      expect(view).toMatchObject({
        kind: "reg_e",
        version: "2027-01",
        effective_on: addCalendarDays(on, 21),
        rule: "12 CFR 1005.8(a)",
        days_ahead: 21,
        done: true,
      });
      expect(view!.by_email).toBeGreaterThanOrEqual(1);
      expect(view!.by_mail).toBeGreaterThanOrEqual(2);

      // Never twice: another run tells nobody and sends nothing.
      const third = await sendChangeInTermsNotices(db, now);
      expect(third).toMatchObject({ recorded: 0, changes: 0, told: 0 });
      expect((await db.select().from(outbox).where(inArray(outbox.user_id, ids))).length).toBe(mails.length);
    } finally {
      Object.assign(reg_e, before);
    }
  });

  it("is a scheduled job", () => {
    expect(APP_JOBS.map((j) => j.name)).toContain("change-in-terms-notices");
  });
});
