import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import { openDatabase } from "~/server/db/client.server";
import { notifications, outbox, scheduledTransferRuns, scheduledTransfers } from "~/server/db/schema";
import { setAppDatabase } from "~/server/db/db.server";
import { getBalances } from "~/server/ledger/accounts.server";
import {
  cancelScheduledTransfer,
  editScheduledTransfer,
  skipNextTransfer,
} from "~/server/payments/scheduled-transfer-changes.server";
import { runDueScheduledTransfers } from "~/server/payments/scheduled-transfers-job.server";
import { transferAction } from "~/routes/member/dashboard.server";
import type { SessionUser } from "~/server/auth/session.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import { institution } from "~/config/institution.server";
import { businessDate } from "~/domain/ledger-rules";
import { businessDayOnOrAfter } from "~/domain/payment-dates";
import { addDays } from "~/domain/schedule";
import { whenSchema } from "~/domain/scheduled-transfers";
import { fileDatabase, onPostgres } from "../test-database";
import { newMember } from "../member-support";
import { expectLedgerVerifies } from "../ledger-fixtures";

/**
 * What the scheduled-transfer tests share (scheduled-transfers.test.ts for the transfers inside
 * the credit union, scheduled-us-bank.test.ts for To US Bank): the first day a schedule can start,
 * the job's clock, the When fields, and the file's database with what the tests read and do on it.
 */

export const today = businessDate(institution().time_zone);
export const first_day = businessDayOnOrAfter(addDays(today, 1));

/** Noon in the credit union's time zone on `date`. */
export function on(date: string): Date {
  return new Date(`${date}T17:00:00Z`);
}

/** The When fields as the form sends them: by default a transfer on the first day, going on after a failure. */
export function when(fields: Record<string, string>) {
  return whenSchema(today).parse({ transfer_date: first_day, on_failure: "continue", ...fields })!;
}

/** The transfer form posted to the dashboard's action, as the member's browser posts it. */
export function postTransferForm(user: SessionUser, fields: Record<string, string>, origin?: AuditOrigin) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return transferAction(user, form, origin);
}

/**
 * The test file's database, also the app's (the dashboard's action reads it), its ledger verified
 * after the last test; and what the tests read and do on it.
 */
export function scheduledTransfersFile() {
  const file = fileDatabase({ onOpen: setAppDatabase, beforeClose: expectLedgerVerifies });
  return {
    get db() {
      return file.db;
    },

    async available(account_id: number) {
      const [a] = await getBalances(file.db, [account_id]);
      return a!.available_cents;
    },

    /** A member with checking and savings, as the services take them (`who`) and as the routes do (`user`). */
    async member(checking_cents = 100_000) {
      const m = await newMember(file.db, { checking_cents, savings_cents: 5_000 });
      const user = { ...m.member, role: "user" } as unknown as SessionUser;
      return { ...m, who: { id: m.member.id, email: m.member.email, name: m.member.name }, user };
    },

    async series(id: number) {
      const [row] = await file.db.select().from(scheduledTransfers).where(eq(scheduledTransfers.id, id));
      return row!;
    },

    async runs(series_id: number) {
      return file.db.select().from(scheduledTransferRuns).where(eq(scheduledTransferRuns.series_id, series_id));
    },

    /** Three job runs at once for `day`: on PostgreSQL one on a second pool (a second app process's); PGlite has one connection, so they interleave on it. */
    async raceForSlot(day: string) {
      const second = onPostgres ? await openDatabase({ kind: "postgres", url: file.url! }) : null;
      try {
        await Promise.all([
          runDueScheduledTransfers(file.db, on(day)),
          runDueScheduledTransfers(second?.db ?? file.db, on(day)),
          runDueScheduledTransfers(file.db, on(day)),
        ]);
      } finally {
        await second?.close();
      }
    },

    /** Skip, cancel and edit by a member the series is not theirs: each answers not found. */
    async expectNotFoundFor(other: Parameters<typeof skipNextTransfer>[1], series_id: number, origin: AuditOrigin) {
      for (const change of [
        skipNextTransfer(file.db, other, series_id, origin),
        cancelScheduledTransfer(file.db, other, series_id, origin),
        editScheduledTransfer(file.db, other, { series_id, amount_cents: 1, next_date: first_day }, origin),
      ])
        expect(await change).toMatchObject({ ok: false, kind: "not_found" });
    },

    /** The member's bell notifications and emails of transfers not sent. */
    async failureNotices(member_id: string) {
      const bell = await file.db
        .select()
        .from(notifications)
        .where(and(eq(notifications.member_id, member_id), eq(notifications.kind, "scheduled_transfer_failed")));
      const mail = await file.db
        .select()
        .from(outbox)
        .where(and(eq(outbox.user_id, member_id), eq(outbox.kind, "scheduled_transfer_failed")));
      return { bell, mail };
    },
  };
}
