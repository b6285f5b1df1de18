import { z } from "zod";
import { plainText } from "./plain-text";

/**
 * Staff role grants under dual control (docs/product.md#staff-role-grants): the forms' schemas
 * and every message, shared by the browser and the server.
 */
export const DECLINE_GRANT_REASON_MESSAGE = "Please give the reason for declining";
const REASON_CHARS_MAX = 500;

export const STAFF_GRANT_MESSAGES = {
  requested: "Request filed. Another admin must approve it in Queues before the staff role takes effect.",
  approved_create:
    "Approved. The staff account exists now; a link to set their own password was emailed to the address shown.",
  approved_raise: "Approved. The staff role is in effect now; the person was emailed.",
  declined: "Declined. Nothing was granted; the reason is kept with the request.",
  not_found: "Failed: this request was not found.",
  already_decided: "Failed: this request was already decided.",
  own_request: "Failed: you asked for this role yourself. Another admin must approve or decline it.",
  email_taken: "Failed: an account with this email already exists.",
  already_pending: "Failed: a staff role request for this address is already waiting for approval.",
  not_a_member: "Failed: only an approved member can be given a staff role.",
  no_longer_a_member:
    "Failed: this person is no longer a member (their role changed since the request). Decline it and ask again if needed.",
} as const;

/** The decisions on /admin/queues. */
export const STAFF_GRANT_INTENTS = ["approve_staff_grant", "decline_staff_grant"] as const;
export type StaffGrantIntent = (typeof STAFF_GRANT_INTENTS)[number];

const grantId = z
  .string({ error: STAFF_GRANT_MESSAGES.not_found })
  .trim()
  .regex(/^[1-9]\d{0,15}$/, STAFF_GRANT_MESSAGES.not_found)
  .transform(Number);

export const ApproveStaffGrantSchema = z.object({ grant_id: grantId });

export const DeclineStaffGrantSchema = z.object({
  grant_id: grantId,
  reason: plainText({ missing: DECLINE_GRANT_REASON_MESSAGE }).pipe(
    z
      .string()
      .min(1, DECLINE_GRANT_REASON_MESSAGE)
      .max(REASON_CHARS_MAX, `Please keep the reason under ${REASON_CHARS_MAX} characters`),
  ),
});

/** Raising a member to staff or reviewer (the member's details in the back office). */
export const RequestStaffRoleSchema = z.object({
  member_id: z
    .string({ error: "Please select a user first" })
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "Please select a user first"),
  staff_role: z.enum(["admin", "reviewer"], "Please choose a staff role"),
});

export const STAFF_ROLE_LABELS = { admin: "Staff (admin)", reviewer: "Reviewer (staff without money powers)" } as const;
