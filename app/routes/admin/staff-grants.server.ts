import { data } from "react-router";
import { withDatabase } from "~/server/db/db.server";
import type { AuditOrigin } from "~/server/audit/audit.server";
import type { Actor } from "~/domain/actor";
import {
  approveStaffGrant,
  declineStaffGrant,
  pendingStaffGrants,
  requestNewStaff,
  requestRaise,
} from "~/server/admin/staff-grants.server";
import { parseSubmission, refusalStatus, replyTo } from "~/server/http/form.server";
import {
  ApproveStaffGrantSchema,
  DeclineStaffGrantSchema,
  RequestStaffRoleSchema,
  STAFF_GRANT_MESSAGES,
  type StaffGrantIntent,
} from "~/domain/staff-grants";
import type { MoneyResult } from "~/components/admin/money-result";

/**
 * What the pages call for staff role grants (docs/product.md#staff-role-grants): the waiting
 * requests for /admin/queues, the decision on one, and the requests filed from /admin (a new
 * staff account through Create New User, a member raised to staff). Each opens the database
 * itself. Answers have the shape of the back office's other decisions (`intent`, `target`,
 * `reply`, `message`, `tone`) so each shows beside its own form.
 */

export const staffGrantRows = withDatabase(pendingStaffGrants);
export const requestStaffAccount = withDatabase(requestNewStaff);
const approve = withDatabase(approveStaffGrant);
const decline = withDatabase(declineStaffGrant);
const raise = withDatabase(requestRaise);

/** Approve or Decline on /admin/queues (admins only: the route checked; the requester is refused here and by the database). */
export async function decideStaffGrant(input: {
  staff: Actor;
  origin: AuditOrigin;
  intent: StaffGrantIntent;
  form: FormData;
}) {
  const { intent, form } = input;
  const submission =
    intent === "approve_staff_grant"
      ? parseSubmission(ApproveStaffGrantSchema, form)
      : parseSubmission(DeclineStaffGrantSchema, form);
  const target = String(form.get("grant_id") ?? "");
  if (submission.status !== "success") {
    return data(
      {
        intent,
        target,
        reply: replyTo(submission),
        message: "Failed: please check the form.",
        tone: "error",
      } satisfies MoneyResult,
      { status: 400 },
    );
  }
  const value = submission.value as { grant_id: number; reason?: string };
  const result =
    intent === "approve_staff_grant"
      ? await approve({ staff: input.staff, grant_id: value.grant_id, origin: input.origin })
      : await decline({
          staff: input.staff,
          grant_id: value.grant_id,
          reason: value.reason ?? "",
          origin: input.origin,
        });
  if (result.ok) {
    const message =
      result.decision === "declined"
        ? STAFF_GRANT_MESSAGES.declined
        : result.grant.kind === "create"
          ? STAFF_GRANT_MESSAGES.approved_create
          : STAFF_GRANT_MESSAGES.approved_raise;
    return data(
      {
        intent,
        target,
        reply: replyTo(submission, { hideFields: ["reason"] }),
        message,
        tone: "success",
      } satisfies MoneyResult,
      { status: 200 },
    );
  }
  return data(
    {
      intent,
      target,
      reply: replyTo(submission, { formErrors: [result.message] }),
      message: result.message,
      tone: "error",
    } satisfies MoneyResult,
    { status: refusalStatus(result.kind) },
  );
}

/** "Request staff role" on a member's details in /admin (admins only: the route checked). */
export async function requestStaffRole(input: { staff: Actor; origin: AuditOrigin; form: FormData }) {
  const intent = "request_staff_role";
  const submission = parseSubmission(RequestStaffRoleSchema, input.form);
  const target = String(input.form.get("member_id") ?? "");
  if (submission.status !== "success") {
    return data(
      {
        intent,
        target,
        reply: replyTo(submission),
        message: "Failed: please check the form.",
        tone: "error",
      } satisfies MoneyResult,
      { status: 400 },
    );
  }
  const result = await raise({
    staff: input.staff,
    member_id: submission.value.member_id,
    role: submission.value.staff_role,
    origin: input.origin,
  });
  if (result.ok) {
    return data(
      {
        intent,
        target,
        reply: replyTo(submission, { hideFields: ["staff_role"] }),
        message: STAFF_GRANT_MESSAGES.requested,
        tone: "success",
      } satisfies MoneyResult,
      { status: 200 },
    );
  }
  return data(
    {
      intent,
      target,
      reply: replyTo(submission, { formErrors: [result.message] }),
      message: result.message,
      tone: "error",
    } satisfies MoneyResult,
    { status: refusalStatus(result.kind) },
  );
}
