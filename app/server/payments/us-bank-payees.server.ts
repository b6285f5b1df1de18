import type { DbOrTx } from "~/server/db/client.server";
import { usableLinkedAccount, verifiedLinkedAccounts } from "~/server/linked-accounts/linked-accounts.server";
import { achNameField, type ToUsBankTransfer, type UsBankFormValue } from "~/domain/transfers";
import { refuse, transferRefusal, type Member, type TransferRefusal } from "./transfers.server";

/**
 * Who a To US Bank payment goes to (docs/product.md#to-us-bank): an account the member types in,
 * or one of their own verified linked accounts (docs/product.md#linked-accounts). For a linked
 * account the browser posts only the link's id; the routing and account numbers come from the
 * member's own sealed link and the name on the account is the member's, so from here on the
 * payment is checked, screened, limited, confirmed and sent exactly as a typed one.
 */

/** A verified linked account as the To US Bank form offers it: never the full account number. */
export interface LinkedPayee {
  id: number;
  nickname: string;
  bank_name: string | null;
  routing_number: string;
  /** "••1234" */
  masked: string;
  account_type: "checking" | "savings";
}

/** The member's verified linked accounts, for the To US Bank form's choice. */
export async function linkedPayees(db: DbOrTx, member_id: string): Promise<LinkedPayee[]> {
  return (await verifiedLinkedAccounts(db, member_id)).map((a) => ({
    id: a.id,
    nickname: a.nickname,
    bank_name: a.bank_name,
    routing_number: a.routing_number,
    masked: a.masked,
    account_type: a.account_type,
  }));
}

/**
 * The payment the form asks for, with a linked account's numbers read from the member's own
 * verified link. Another member's link, one not verified (pending, failed, removed) or one that
 * does not exist is refused the same way, next to the choice, and nothing is read from it.
 */
export async function usBankTransferOf(
  db: DbOrTx,
  member: Member,
  value: UsBankFormValue,
): Promise<TransferRefusal | ToUsBankTransfer> {
  if (value.payee === "typed") {
    const { payee: _payee, ...form } = value;
    return form;
  }
  const link = await usableLinkedAccount(db, member.id, value.linked_account_id);
  if (!link) return refuse("linked_account_unavailable", "payee");
  // The member's own name is the receiver's at their other bank; a NACHA file must be able to carry it.
  const name = achNameField.safeParse(member.name);
  if (!name.success)
    return { ...transferRefusal("linked_account_unavailable", "payee"), message: name.error.issues[0]!.message };
  return {
    from_account_id: value.from_account_id,
    routing_number: link.routing_number,
    account_number: link.account_number,
    account_type: link.account_type,
    account_name: name.data,
    amount_cents: value.amount_cents,
    reference: value.reference,
    idempotency_key: value.idempotency_key,
    linked_account_id: link.id,
  };
}
