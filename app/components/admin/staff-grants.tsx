import { useNavigation } from "react-router";
import { Button, FormMessage, SchemaForm, Select, TextField, useSchemaForm } from "~/components/ui";
import {
  ApproveStaffGrantSchema,
  DeclineStaffGrantSchema,
  RequestStaffRoleSchema,
  STAFF_GRANT_INTENTS,
  STAFF_ROLE_LABELS,
} from "~/domain/staff-grants";
import type { PendingStaffGrant } from "~/server/admin/staff-grants.server";
import { useInstitutionDates } from "~/components/institution-dates";
import { StatusLine } from "./admin-shell";
import { formMessageOf, resultFor } from "./money-result";
import { QueueSection } from "./queues";

/**
 * Staff roles waiting for a second admin, a section of /admin/queues
 * (docs/product.md#staff-role-grants): the address the role is for (the approver checks it is the
 * person's own), the role, who asked and when. Another admin approves (the role takes effect) or
 * declines with a reason; the one who asked sees their own request without the buttons (the
 * server and the database refuse them anyway).
 */
export function StaffGrantQueue({
  title,
  count,
  items,
  staffId,
  result,
}: {
  title: string;
  count: number;
  items: PendingStaffGrant[];
  staffId: string;
  result: unknown;
}) {
  const { formatDateTime } = useInstitutionDates();
  const answer = resultFor(result, STAFF_GRANT_INTENTS);
  return (
    <QueueSection id="staff_grants" title={title} count={count}>
      {answer ? (
        <div className="px-4 pt-4 sm:px-5">
          <StatusLine message={answer.message} tone={answer.tone} />
        </div>
      ) : null}
      {items.length === 0 ? (
        <p className="px-5 py-8 text-center text-sm text-slate-700">Nothing is waiting.</p>
      ) : (
        <ul className="space-y-3 p-4 sm:p-5">
          {items.map((g) => (
            <li
              key={g.id}
              className="rounded-xl border border-slate-200 p-3 text-sm"
              data-testid={`staff-grant-${g.id}`}
            >
              <p className="font-medium text-slate-900">
                {g.kind === "create" ? "New account" : "Member raised"}: {g.name}, {STAFF_ROLE_LABELS[g.role]}
              </p>
              <p className="text-slate-900">
                Email: <strong className="break-all">{g.email}</strong>
                {g.kind === "create" ? " (the set-up link goes to this address: check it is the person's own)" : null}
              </p>
              <p className="text-slate-700">
                Asked by {g.requested_by_email ?? "an admin"} on {formatDateTime(g.requested_at)}
              </p>
              {g.requested_by === staffId ? (
                <p className="mt-2 text-slate-700">
                  You asked for this role: another admin must approve or decline it.
                </p>
              ) : (
                <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end">
                  <ApproveGrantForm grant={g} result={resultFor(result, "approve_staff_grant", g.id)} />
                  <DeclineGrantForm grant={g} result={resultFor(result, "decline_staff_grant", g.id)} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </QueueSection>
  );
}

function ApproveGrantForm({ grant, result }: { grant: PendingStaffGrant; result: ReturnType<typeof resultFor> }) {
  const navigation = useNavigation();
  const form = useSchemaForm(ApproveStaffGrantSchema, { lastResult: result?.reply, id: `approve-grant-${grant.id}` });
  const busy =
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === "approve_staff_grant" &&
    navigation.formData?.get("grant_id") === String(grant.id);
  return (
    <SchemaForm form={form} method="post" preventScrollReset aria-label={`Approve staff role for ${grant.email}`}>
      <input type="hidden" name="intent" value="approve_staff_grant" />
      <input type="hidden" name="grant_id" value={grant.id} />
      <Button type="submit" isPending={busy} pendingLabel="Approving…">
        Approve role
      </Button>
    </SchemaForm>
  );
}

function DeclineGrantForm({ grant, result }: { grant: PendingStaffGrant; result: ReturnType<typeof resultFor> }) {
  const navigation = useNavigation();
  const form = useSchemaForm(DeclineStaffGrantSchema, { lastResult: result?.reply, id: `decline-grant-${grant.id}` });
  const formMessage = formMessageOf(result);
  const busy =
    navigation.state === "submitting" &&
    navigation.formData?.get("intent") === "decline_staff_grant" &&
    navigation.formData?.get("grant_id") === String(grant.id);
  return (
    <SchemaForm
      form={form}
      method="post"
      preventScrollReset
      aria-label={`Decline staff role for ${grant.email}`}
      className="flex min-w-0 flex-1 flex-col gap-2 sm:flex-row sm:items-end"
    >
      {formMessage ? <FormMessage tone="error">{formMessage}</FormMessage> : null}
      <input type="hidden" name="intent" value="decline_staff_grant" />
      <input type="hidden" name="grant_id" value={grant.id} />
      <TextField name="reason" label="Reason to decline" maxLength={500} isRequired className="min-w-0 flex-1" />
      <Button type="submit" variant="secondary" isPending={busy} pendingLabel="Declining…">
        Decline
      </Button>
    </SchemaForm>
  );
}

/**
 * "Staff access" on a member's details (admins only): asks for a member to be raised to staff or
 * reviewer. It takes effect only once another admin approves it in Queues.
 */
export function StaffRoleRequest({ memberId, result }: { memberId: string; result: unknown }) {
  const navigation = useNavigation();
  const answer = resultFor(result, "request_staff_role", memberId);
  const form = useSchemaForm(RequestStaffRoleSchema, {
    lastResult: answer?.reply,
    id: `staff-role-${memberId}`,
    defaultValue: { staff_role: "reviewer" },
  });
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "request_staff_role";
  return (
    <div className="rounded-xl border border-slate-200 bg-slate-50 p-4">
      <h3 className="text-base font-semibold text-brand-800">Staff access</h3>
      <p className="mt-0.5 text-sm text-slate-700">
        Give this member back-office access. Another admin must approve it in Queues before it takes effect.
      </p>
      {answer ? (
        <div className="mt-3">
          <StatusLine message={answer.message} tone={answer.tone} />
        </div>
      ) : null}
      <SchemaForm
        form={form}
        method="post"
        preventScrollReset
        aria-label="Request staff role"
        className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end"
      >
        <input type="hidden" name="intent" value="request_staff_role" />
        <input type="hidden" name="member_id" value={memberId} />
        <Select
          name="staff_role"
          label="Staff role"
          className="min-w-0 sm:w-72"
          options={[
            { value: "reviewer", label: "Reviewer (no money powers)" },
            { value: "admin", label: "Staff (admin)" },
          ]}
        />
        <Button type="submit" variant="secondary" isPending={busy} pendingLabel="Filing…" className="shrink-0">
          Request staff role
        </Button>
      </SchemaForm>
    </div>
  );
}
