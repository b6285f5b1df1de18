import type { Actor } from "~/domain/actor";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "~/server/db/client.server";
import type { AchInboundEntry } from "~/server/db/schema";
import { institutionAccount } from "~/server/ledger/accounts.server";
import { postBatch, today, type EntryInput } from "~/server/ledger/ledger.server";
import { type NotificationInput } from "~/server/notifications/notifications.server";
import { formatCents } from "~/domain/money";
import { maskAccountNumber } from "~/domain/account-display";
import { spendableCents, toCents, toId, type AccountState } from "~/domain/ledger-rules";
import { ENTRY_CLASSES } from "~/domain/nacha/reader";
import { returnReason } from "~/domain/nacha/return-file";
import { type Item } from "./inbound-entries.server";
import { monitorPostedCredits, type recordCreditReviews, type CreditHold } from "./inbound-monitoring.server";

/**
 * Posting ACH in's credits and debits (docs/product.md#ach-in), for a file's chunks
 * (./inbound.server.ts) and for staff posting an entry held as a possible duplicate
 * (./inbound-held.server.ts) or cleared by sanctions screening (./inbound-iat-decisions.server.ts):
 * each entry decided against its account (locked with the ACH settlement account), the postable
 * ones posted as one ledger batch, each its own transaction; every credit checked by the monitoring
 * rules (./inbound-monitoring.server.ts); the members told. Also what the member's history shows
 * for an entry.
 */

export const INBOUND_INITIATOR = "system:ach-in";

type LockedAccount = AccountState & { account_number: string; member_id: string | null };
type Ledger = Map<number, LockedAccount>;

/** The ledger's refusal of an entry as the return reason the rules give it. */
const RETURN_FOR_REFUSAL: Record<string, string> = {
  account_not_found: "R03",
  account_closed: "R02",
  account_frozen: "R16",
  insufficient_funds: "R01",
};

export interface Decision {
  entry: Item;
  status: "posted" | "returned" | "applied" | "unmatched" | "noted" | "held" | "screening";
  return_code?: string | null;
  account_id?: number | null;
  transaction_id?: number | null;
  payment_id?: number | null;
  duplicate_of_entry_id?: number | null;
  /** A credit that met a monitoring rule: posted, its amount held for staff (./inbound-monitoring.server.ts). */
  review?: CreditHold;
  /** The member whose account it posted to (for a credit to review). */
  member_id?: string | null;
}

/**
 * What the member's history shows for an entry the company sent (docs/product.md#ach-in): the
 * company and its description as people read them ("ACME CORP PAYROLL" becomes "Acme Corp
 * Payroll"; short words such as LLC or IRS stay as they are), and for a PPD credit the category
 * Income (a payroll, a pension, a benefit).
 */
export function readableWords(text: string): string {
  return text
    .trim()
    .split(/\s+/)
    .map((word) => (/^[A-Z][A-Z']{3,}$/.test(word) ? `${word[0]}${word.slice(1).toLowerCase()}` : word))
    .join(" ");
}

export function historyCategory(entry: Pick<AchInboundEntry, "kind" | "sec_code">): string | null {
  return entry.kind === "credit" && entry.sec_code === "PPD" ? "Income" : null;
}

/**
 * What the member sees in their history: the company from the batch header and what it said,
 * and for a converted check its serial number (columns 40-54, POP's first nine), since that is
 * the number written on the check the member gave.
 */
export function historyDescription(
  entry: Pick<AchInboundEntry, "company_name" | "entry_description" | "sec_code" | "individual_id">,
): string {
  const text = readableWords(`${entry.company_name} ${entry.entry_description}`);
  // Classes converted from a paper check name where its serial number is (ENTRY_CLASSES).
  const columns = ENTRY_CLASSES[entry.sec_code]?.check_serial;
  if (!columns) return text;
  const serial = (columns === "40-48" ? entry.individual_id.slice(0, 9) : entry.individual_id).trim();
  return serial ? `${text} check ${serial}` : text;
}

/**
 * Credits and debits decided against their accounts (locked with the settlement account) and
 * the postable ones posted as one ledger batch, each its own transaction; returns each entry's
 * decision and adds the members' notifications to `notes`. Shared by the upload's chunks and by
 * staff posting a held entry (./inbound-held.server.ts).
 */
export async function postMoney(
  tx: DbOrTx,
  money: readonly Item[],
  staff: Actor,
  now: Date,
  key_prefix: string,
  notes: NotificationInput[],
): Promise<Decision[]> {
  const decisions: Decision[] = [];
  const settlement = await institutionAccount(tx, "ach_settlement");
  const ledger = await lockAccounts(tx, [...new Set(money.map((e) => e.account_number))], settlement.id);
  const byNumber = new Map([...ledger.values()].filter((a) => a.owner === "member").map((a) => [a.account_number, a]));
  let postable: { entry: Item; account: LockedAccount }[] = [];
  for (const entry of money) {
    const account = byNumber.get(entry.account_number);
    const code = returnCodeBeforePosting(entry, account);
    if (code) {
      decisions.push({ entry, status: "returned", return_code: code, account_id: account?.id ?? null });
      continue;
    }
    account!.posted_cents += entry.kind === "credit" ? entry.amount_cents : -entry.amount_cents;
    postable.push({ entry, account: account! });
  }
  // The ledger checks every entry again under its own locks; one it refuses is returned for
  // its reason and the rest post without it (each entry stays all or nothing).
  const business_date = today(now);
  for (let attempt = 0; postable.length > 0; attempt++) {
    const answer = await postBatch(tx, {
      idempotency_key: `${key_prefix}:${postable[0]!.entry.line}:${attempt}`,
      initiator: INBOUND_INITIATOR,
      created_by: staff.id,
      transactions: postable.map(({ entry, account }) =>
        achInTransaction(entry, account.id, settlement.id, business_date),
      ),
    });
    if (answer.ok) {
      // Every credit is checked before its money is available (Nacha's monitoring of credit entries).
      const credits = postable.flatMap(({ entry, account }, i) =>
        entry.kind === "credit" ? [{ entry, account, transaction_id: answer.transactions[i]!.transaction.id, i }] : [],
      );
      const holds = await monitorPostedCredits(tx, credits, settlement.id, staff.id, `${key_prefix}:${attempt}`, now);
      const held = new Map([...holds].map(([index, hold]) => [credits[index]!.i, hold]));
      answer.transactions.forEach((t, i) =>
        decisions.push({
          entry: postable[i]!.entry,
          status: "posted",
          account_id: postable[i]!.account.id,
          transaction_id: t.transaction.id,
          review: held.get(i),
          member_id: postable[i]!.account.member_id,
        }),
      );
      break;
    }
    const refused = answer.batch_index === undefined ? undefined : postable[answer.batch_index];
    const code = RETURN_FOR_REFUSAL[answer.code];
    if (!refused || !code)
      throw new Error(`ACH in: the ledger refused the chunk (${answer.code}) for no entry's own reason`);
    decisions.push({ entry: refused.entry, status: "returned", return_code: code, account_id: refused.account.id });
    postable = postable.filter((p) => p !== refused);
  }
  for (const d of decisions) {
    const account = d.account_id ? ledger.get(d.account_id) : undefined;
    const notice = account ? memberNotice(d, account) : null;
    if (notice) notes.push(notice);
  }
  return decisions;
}

/** The return reason of an entry its account cannot take, decided before posting; null when it can. */
function returnCodeBeforePosting(entry: Item, account: LockedAccount | undefined): string | null {
  if (!account) return "R03";
  if (account.status === "closed") return "R02";
  if (account.status === "frozen") return "R16";
  if (entry.kind === "debit" && spendableCents(account) < entry.amount_cents) return "R01";
  return null;
}

/** An entry as its own ledger transaction: between the member's account and the ACH settlement account. */
function achInTransaction(entry: Item, account_id: number, settlement_id: number, business_date: string) {
  return {
    kind: "ach_in" as const,
    entries: (entry.kind === "credit"
      ? [
          { account_id: settlement_id, amount_cents: -entry.amount_cents },
          { account_id, amount_cents: entry.amount_cents },
        ]
      : [
          { account_id, amount_cents: -entry.amount_cents },
          { account_id: settlement_id, amount_cents: entry.amount_cents },
        ]) satisfies EntryInput[],
    memo: historyDescription(entry),
    // The trace number stays on the entry for staff; the member reads what the company wrote, if anything.
    reference: entry.payment_information?.trim() || null,
    category: historyCategory(entry),
    effective_date: business_date,
  };
}

/** What the member is told of an entry posted to or returned from their account; null for anything else. */
function memberNotice(d: Decision, account: LockedAccount): NotificationInput | null {
  if (!account.member_id) return null;
  const amount = formatCents(d.entry.amount_cents);
  const where = `${account.type === "savings" ? "Savings" : account.type === "checking" ? "Checking" : "Account"} ${maskAccountNumber(account.account_number)}`;
  if (d.status === "posted")
    return d.entry.kind === "credit"
      ? {
          member_id: account.member_id,
          kind: "ach_received",
          title: `Deposit of ${amount} from ${readableWords(d.entry.company_name)}`,
          // A credit under review: the generic hold wording, no rule named (nothing that tips off).
          body: d.review
            ? `It was added to your ${where} and is on hold for now; it will be available once the hold is released.`
            : `It was added to your ${where} and is available now.`,
        }
      : {
          member_id: account.member_id,
          kind: "ach_received",
          title: `${readableWords(d.entry.company_name)} withdrew ${amount}`,
          body: `An ACH debit was paid from your ${where}.`,
        };
  if (d.status === "returned")
    return {
      member_id: account.member_id,
      kind: "ach_returned",
      title: `An ACH ${d.entry.kind} of ${amount} from ${readableWords(d.entry.company_name)} was returned`,
      body: `It could not be posted to your ${where}: ${returnReason(d.return_code!)}. It was sent back to ${readableWords(d.entry.company_name)}.`,
    };
  return null;
}

/** The review rows of the decisions whose credit met a monitoring rule. */
export function creditReviewsOf(decisions: readonly Decision[]): Parameters<typeof recordCreditReviews>[1] {
  return decisions.flatMap((d) =>
    d.review && d.account_id && d.transaction_id && d.member_id
      ? [
          {
            file_id: d.entry.file_id,
            line: d.entry.line,
            account_id: d.account_id,
            member_id: d.member_id,
            credit_transaction_id: d.transaction_id,
            hold: d.review,
            amount_cents: d.entry.amount_cents,
          },
        ]
      : [],
  );
}

/** The member accounts named by the entries and the settlement account, locked in id order (the ledger's own order). */
async function lockAccounts(tx: DbOrTx, account_numbers: readonly string[], settlement_id: number): Promise<Ledger> {
  const result = await tx.execute(sql`
    select id, account_number, owner, type, member_id, status, posted_cents, held_cents, overdraft_limit_cents, transfer_count, transfer_count_month
      from ledger_accounts
     where account_number in (select jsonb_array_elements_text(${JSON.stringify(account_numbers)}::jsonb)) or id = ${settlement_id}
     order by id
       for update`);
  const ledger: Ledger = new Map();
  for (const r of result.rows) {
    ledger.set(toId(r.id), {
      id: toId(r.id),
      account_number: String(r.account_number),
      owner: r.owner as AccountState["owner"],
      type: String(r.type),
      member_id: (r.member_id as string | null) ?? null,
      status: r.status as AccountState["status"],
      posted_cents: toCents(r.posted_cents),
      held_cents: toCents(r.held_cents),
      overdraft_limit_cents: toCents(r.overdraft_limit_cents),
      transfer_count: Number(r.transfer_count),
      transfer_count_month: (r.transfer_count_month as string | null) ?? null,
    });
  }
  return ledger;
}
