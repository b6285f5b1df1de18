import { addBusinessDays } from "~/domain/payment-dates";
import { formatCents } from "~/domain/money";

/**
 * The report a confirmed sanctions match calls for, drafted for staff to file with OFAC (through
 * OFAC's own reporting system: the app sends nothing). Blocked property is reported within 10
 * business days (31 CFR 501.603): a stopped payment's held money, a member's frozen accounts. A
 * declined application blocked no property; its draft is the record kept (31 CFR 501.601, five
 * years) with what OFAC would ask if told. Pure: the facts come from the screening's decision.
 */
export interface ScreeningReportDraft {
  kind: "blocked_property" | "declined_application";
  rule: string;
  /** The business day the match was confirmed, and the one the report is due by (blocked property). */
  confirmed_on: string;
  due_by: string | null;
  party: string;
  listed_name: string;
  list_entry: string;
  /** What was done, in a banker's words, with the amounts. */
  facts: string[];
}

export type ReportSubject =
  | {
      type: "payment";
      kind: string;
      amount_cents: number;
      fee_cents: number;
      reference: string | null;
      from_account: string;
      to: string;
    }
  | { type: "member"; accounts: { label: string; balance_cents: number }[] }
  | {
      /** An incoming international ACH entry (IAT) blocked before it posted. */
      type: "ach_entry";
      kind: "credit" | "debit";
      amount_cents: number;
      originator: string;
      trace_number: string;
      /** The account it named, frozen; null when it is no member's account. */
      account: string | null;
    }
  | { type: "application"; applied_on: string };

export function screeningReportDraft(input: {
  confirmed_on: string;
  party: string;
  listed_name: string;
  source_name: string;
  uid: string;
  subject: ReportSubject;
}): ScreeningReportDraft {
  const { subject } = input;
  const base = {
    confirmed_on: input.confirmed_on,
    party: input.party,
    listed_name: input.listed_name,
    list_entry: `${input.source_name}, entry ${input.uid}`,
  };
  if (subject.type === "application")
    return {
      ...base,
      kind: "declined_application",
      rule: "31 CFR 501.601 (records); no property was blocked",
      due_by: null,
      facts: [
        `Membership application of ${subject.applied_on} declined on ${input.confirmed_on}; no account was opened and no money received.`,
      ],
    };
  const due_by = addBusinessDays(input.confirmed_on, 10);
  if (subject.type === "payment")
    return {
      ...base,
      kind: "blocked_property",
      rule: "31 CFR 501.603 (blocked property), within 10 business days",
      due_by,
      facts: [
        `${subject.kind} payment of ${formatCents(subject.amount_cents)}${subject.fee_cents ? ` (fee ${formatCents(subject.fee_cents)})` : ""} to ${subject.to}${subject.reference ? `, reference "${subject.reference}"` : ""}, stopped: never sent.`,
        `${formatCents(subject.amount_cents + subject.fee_cents)} stays held in ${subject.from_account}, which is frozen.`,
      ],
    };
  if (subject.type === "ach_entry")
    return {
      ...base,
      kind: "blocked_property",
      rule: "31 CFR 501.603 (blocked property), within 10 business days",
      due_by,
      facts: [
        `Incoming international ACH ${subject.kind} (IAT) of ${formatCents(subject.amount_cents)} from ${subject.originator}, trace number ${subject.trace_number}: blocked, never posted; the money stays in the ACH settlement account.`,
        subject.account ? `${subject.account}, which it named, is frozen.` : "It named no member's account.",
      ],
    };
  const total = subject.accounts.reduce((sum, a) => sum + a.balance_cents, 0);
  return {
    ...base,
    kind: "blocked_property",
    rule: "31 CFR 501.603 (blocked property), within 10 business days",
    due_by,
    facts: [
      subject.accounts.length === 0
        ? "The member has no open account."
        : `${subject.accounts.map((a) => `${a.label} (${formatCents(a.balance_cents)})`).join(", ")} frozen: ${formatCents(total)} in all.`,
    ],
  };
}
