import { and, eq, sql } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import { auditLog, users } from "~/server/db/schema";
import { recordAudit } from "~/server/audit/audit.server";
import { sendEmail } from "~/server/mail/outbox.server";
import { logger } from "~/server/logger.server";
import { institution } from "~/config/institution.server";
import { today } from "~/server/ledger/ledger.server";
import { screeningQueue } from "~/server/sanctions/screening.server";
import { sarList } from "~/server/sanctions/suspicious-activity.server";
import { waitingCreditReviews } from "~/server/rails/inbound-review.server";
import { formatBusinessDate } from "~/domain/calendar-date";
import { formatCents } from "~/domain/money";
import { isBusinessDay } from "~/domain/payment-dates";
import { CLOCK_STATE_LABELS, type ClockState } from "~/domain/disputes";

/**
 * The compliance-deadlines job (docs/product.md#review-deadlines): once a business day, emails
 * every staff member ("admin") the items about to miss their deadline (due today, the next
 * business day, or overdue): the screening queue, the incoming credits to review and the
 * suspicious activity reports not yet filed. The email names items by number and amount only: no
 * party's name, no narrative (a SAR is confidential, 31 CFR 1020.320(e)). Told once a day: the
 * day's run is recorded in the audit log and a later run that day sends nothing.
 */
const ACTION = "compliance.deadlines_flagged";
const URGENT: readonly ClockState[] = ["overdue", "due_today", "due_soon"];

export interface DeadlineItem {
  what: string;
  due_on: string;
  state: ClockState;
}

export async function itemsAtDeadline(db: Db, now: Date): Promise<DeadlineItem[]> {
  const [screenings, credits, reports] = await Promise.all([
    screeningQueue(db, now),
    waitingCreditReviews(db, now),
    sarList(db, now),
  ]);
  const items: DeadlineItem[] = [
    ...screenings.map((s) => ({
      what: `Screening item ${s.id}`,
      due_on: s.deadline.due_on,
      state: s.deadline.state,
    })),
    ...credits.map((c) => ({
      what: `Incoming credit to review ${c.id} (${formatCents(c.amount_cents)})`,
      due_on: c.deadline.due_on,
      state: c.deadline.state,
    })),
    ...reports.flatMap((r) =>
      r.state ? [{ what: `Suspicious activity report ${r.id} to file`, due_on: r.due_on, state: r.state }] : [],
    ),
  ];
  return items.filter((i) => URGENT.includes(i.state)).sort((a, b) => a.due_on.localeCompare(b.due_on));
}

export async function flagComplianceDeadlines(db: Db, now: Date): Promise<{ items: number; told: number }> {
  const day = today(now);
  if (!isBusinessDay(day)) return { items: 0, told: 0 };
  const [already] = await db
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(and(eq(auditLog.action, ACTION), sql`${auditLog.after}->>'on' = ${day}`))
    .limit(1);
  if (already) return { items: 0, told: 0 };
  const items = await itemsAtDeadline(db, now);
  if (items.length === 0) return { items: 0, told: 0 };
  await recordAudit(db, {
    actor_id: null,
    action: ACTION,
    subject_type: "compliance",
    after: { on: day, items: items.length },
    at: now,
  });
  const staff = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(and(eq(users.role, "admin"), sql`coalesce(${users.banned}, false) = false`));
  const profile = institution();
  const lines = items.map((i) => `- ${i.what}: due ${formatBusinessDate(i.due_on)} (${CLOCK_STATE_LABELS[i.state]})`);
  let told = 0;
  for (const person of staff) {
    try {
      await sendEmail(db, {
        to: person.email,
        user_id: person.id,
        kind: "compliance_deadline",
        subject: `Compliance: ${items.length} item${items.length === 1 ? "" : "s"} at a deadline`,
        text:
          `On ${formatBusinessDate(day)}, these compliance items are due within one business day or overdue:\n\n${lines.join("\n")}\n\n` +
          `Open Sanctions (/admin/sanctions), the queues (/admin/queues) or the reports (/admin/sar) in the back office to act on them.` +
          `\n\n${profile.name}`,
      });
      told++;
    } catch (error) {
      logger.error({ err: error }, "could not queue a compliance deadline email");
    }
  }
  return { items: items.length, told };
}
