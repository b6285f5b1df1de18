/**
 * Where a member's payment to another bank (To US Bank, International) stands, in the member's
 * words (docs/product.md#payment-queues): Pending while it waits for the next file, Sent once in a
 * file, Cancelled, In review while a possible sanctions match waits for staff, Stopped when staff
 * confirmed it, or Returned when the other bank sent it back (an ACH return reversed it and
 * the member was notified). One table for the payments page, the history, its CSV and the
 * dashboard's recent list, so a payment reads the same everywhere.
 *
 * `badge` is the colour, named as a ledger status (the badges' palette).
 */
export type PaymentStatus = "pending" | "sent" | "cancelled" | "returned" | "in_review" | "stopped";

export const PAYMENT_STATUS_LABELS: Record<
  PaymentStatus,
  { label: string; badge: "pending" | "posted" | "reversed" | "failed" }
> = {
  pending: { label: "Pending", badge: "pending" },
  sent: { label: "Sent", badge: "posted" },
  cancelled: { label: "Cancelled", badge: "reversed" },
  returned: { label: "Returned", badge: "failed" },
  // Sanctions screening (docs/product.md#screening-queue): no list is named to the member.
  in_review: { label: "In review", badge: "pending" },
  stopped: { label: "Stopped", badge: "failed" },
};

/**
 * The member-facing status of a payment: its stored status, except that a sent payment whose
 * return came back (the return's R-code, null when none) reads Returned. The payment row stays
 * "sent" (it was sent, and the file holds it); the return is the ACH entry that reversed it.
 */
export function memberPaymentStatus(
  stored: "pending" | "sent" | "cancelled" | "screening" | "blocked",
  return_code: string | null,
): PaymentStatus {
  if (stored === "screening") return "in_review";
  if (stored === "blocked") return "stopped";
  return stored === "sent" && return_code ? "returned" : stored;
}
