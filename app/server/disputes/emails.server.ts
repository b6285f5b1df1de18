import { institution } from "~/config/institution.server";
import type { OutgoingEmail } from "~/server/mail/outbox.server";
import { formatCents } from "~/domain/money";
import { formatBusinessDate } from "~/domain/calendar-date";
import { CLOCK_STATE_LABELS, DISPUTE_KIND_LABELS, type ClockState, type DisputeKind } from "~/domain/disputes";

/**
 * The letters of error resolution (Regulation E, 12 CFR 1005.11; docs/product.md#disputes): each
 * step told to the member in writing, by email through the outbox, and the deadline job's word to
 * staff. Plain text, as every message the app sends.
 */
type Message = Omit<OutgoingEmail, "to" | "user_id">;

function signature(): string {
  const profile = institution();
  return `\n\n${profile.name}\n${profile.support_email} · ${profile.support_phone}`;
}

const day = (date: string) => formatBusinessDate(date);

export function disputeAcknowledgedEmail(c: {
  case_number: string;
  description: string;
  amount_cents: number;
  kind: DisputeKind;
  received_on: string;
  investigate_by: string;
  complete_by: string;
}): Message {
  return {
    kind: "dispute",
    subject: `We received your report: case ${c.case_number}`,
    text:
      `We received your report of a problem with a transaction on ${day(c.received_on)}. Your case number is ${c.case_number}.\n\n` +
      `Transaction: ${c.description}, ${formatCents(c.amount_cents)}\n` +
      `What you told us is wrong: ${DISPUTE_KIND_LABELS[c.kind]}\n\n` +
      `What happens next: we will look into it and tell you what we find by ${day(c.investigate_by)}. ` +
      `If we need more time, we will credit the amount to your account by then while we finish, and tell you within 2 business days of that credit; ` +
      `we will then finish by ${day(c.complete_by)}.\n\n` +
      `You can follow your case in online banking under Transactions → Reported problems.` +
      signature(),
  };
}

export function disputeProvisionalCreditEmail(c: {
  case_number: string;
  amount_cents: number;
  credited_on: string;
  complete_by: string;
}): Message {
  return {
    kind: "dispute",
    subject: `Provisional credit for case ${c.case_number}`,
    text:
      `While we finish looking into case ${c.case_number}, we credited ${formatCents(c.amount_cents)} to your account on ${day(c.credited_on)}. ` +
      `You can use this money.\n\n` +
      `We will finish our investigation by ${day(c.complete_by)} and tell you what we find. If we find no error, we will tell you in writing ` +
      `before we take the credit back, with the date we will do it.` +
      signature(),
  };
}

export function disputeErrorFoundEmail(c: {
  case_number: string;
  amount_cents: number;
  was_provisional: boolean;
  on: string;
  explanation: string;
}): Message {
  return {
    kind: "dispute",
    subject: `Case ${c.case_number}: we corrected the error`,
    text:
      `We finished looking into case ${c.case_number} and found the error you reported.\n\n${c.explanation}\n\n` +
      (c.was_provisional
        ? `The provisional credit of ${formatCents(c.amount_cents)} is now final: there is nothing more to do.`
        : `We credited ${formatCents(c.amount_cents)} to your account on ${day(c.on)}.`) +
      signature(),
  };
}

export function disputeNoErrorEmail(c: {
  case_number: string;
  explanation: string;
  reversal: { amount_cents: number; on: string } | null;
}): Message {
  return {
    kind: "dispute",
    subject: `Case ${c.case_number}: what we found`,
    text:
      `We finished looking into case ${c.case_number} and found no error.\n\n${c.explanation}\n\n` +
      (c.reversal
        ? `We will debit the provisional credit of ${formatCents(c.reversal.amount_cents)} from your account on ${day(c.reversal.on)}, ` +
          `5 business days from this notice. Until then we will pay your checks, drafts and preauthorized payments from the account ` +
          `up to that amount, without any overdraft charge because of the debit.\n\n`
        : "") +
      `You may ask us for copies of the documents we relied on to reach this conclusion: reply to this email or call us.` +
      signature(),
  };
}

export function disputeReversedEmail(c: { case_number: string; amount_cents: number; on: string }): Message {
  return {
    kind: "dispute",
    subject: `Case ${c.case_number}: provisional credit debited`,
    text:
      `As we wrote to you, we debited the provisional credit of ${formatCents(c.amount_cents)} for case ${c.case_number} from your account on ${day(c.on)}. ` +
      `The case is closed.\n\nYou may still ask us for the documents we relied on.` +
      signature(),
  };
}

export function disputeDeadlineEmail(
  on: string,
  cases: ReadonlyArray<{
    number: string;
    what: string;
    due_on: string;
    rule: string;
    state: ClockState;
    problem: string | null;
  }>,
): Message {
  const lines = cases.map(
    (c) =>
      `- ${c.number}: ${c.what} by ${day(c.due_on)} (${CLOCK_STATE_LABELS[c.state]})${c.rule ? `, ${c.rule}` : ""}` +
      (c.problem ? `. The debit could not post: ${c.problem}` : ""),
  );
  return {
    kind: "dispute_deadline",
    subject: `Disputes: ${cases.length} case${cases.length === 1 ? "" : "s"} at a deadline`,
    text:
      `On ${day(on)}, these error resolution cases are due within one business day or overdue:\n\n${lines.join("\n")}\n\n` +
      `Open the disputes queue in the back office (/admin/disputes) to act on them.` +
      signature(),
  };
}
