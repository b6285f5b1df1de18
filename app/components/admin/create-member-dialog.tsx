import { useState } from "react";
import { useNavigation } from "react-router";
import { CreateMemberSchema } from "~/domain/application-review";
import { Button, Checkbox, SchemaForm, Select, TextField, useSchemaForm, type FormReply } from "~/components/ui";
import { StatusLine } from "./admin-shell";
import { UrlDialog } from "./overlay";

interface CreateResult {
  message?: string;
  tone?: "error" | "success";
  reply?: FormReply;
}

/**
 * Create New User (docs/product.md#create-new-user): an active member (or a staff account) with a
 * temporary password the person must change at first sign-in. Staff stay signed in as themselves.
 */
export function CreateMemberDialog({ closeTo, result }: { closeTo: string; search: string; result?: CreateResult }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "create_member";
  const form = useSchemaForm(CreateMemberSchema, { lastResult: result?.reply, defaultValue: { role: "user" } });
  const v = (form.initialValue ?? {}) as Record<string, unknown>;
  const [joint, setJoint] = useState(v.joint_account === "on");
  // A member gets a temporary password typed here; staff and reviewers choose their own after a
  // second admin approves the request (docs/product.md#staff-role-grants).
  const [role, setRole] = useState(typeof v.role === "string" ? v.role : "user");
  const member = role === "user";
  return (
    <UrlDialog title="Create New User" closeTo={closeTo}>
      <SchemaForm form={form} method="post" preventScrollReset className="space-y-5" aria-label="Create New User">
        <input type="hidden" name="intent" value="create_member" />
        <>
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField name="first_name" label="First name" isRequired autoComplete="off" />
            <TextField name="last_name" label="Last name" isRequired autoComplete="off" />
            <TextField
              name="email"
              type="email"
              label="Email address"
              isRequired
              autoComplete="off"
              className="sm:col-span-2"
            />
            <Select
              name="role"
              label="Role"
              onChange={setRole}
              className="sm:col-span-2"
              description={
                member
                  ? undefined
                  : "A staff role needs a second admin: this files a request, and the account is created only once another admin approves it in Queues."
              }
              options={[
                { value: "user", label: "Member (user)" },
                { value: "admin", label: "Staff (admin)" },
                { value: "reviewer", label: "Reviewer (staff without money powers)" },
              ]}
            />
            {member ? (
              <TextField
                name="password"
                type="password"
                label="Temporary password"
                isRequired
                autoComplete="new-password"
                description="At least 12 characters. The member must change it at first sign-in. (Staff choose their own password: no password is typed for them.)"
                className="sm:col-span-2"
              />
            ) : null}
            <TextField
              name="phone"
              type="tel"
              label="Phone number"
              isRequired
              autoComplete="off"
              className="sm:col-span-2"
            />
            <TextField name="street" label="Street" isRequired autoComplete="off" className="sm:col-span-2" />
            <TextField name="city" label="City" isRequired autoComplete="off" />
            <div className="grid grid-cols-2 gap-4">
              <TextField name="state" label="State" isRequired autoComplete="off" />
              <TextField name="postal_code" label="ZIP code" isRequired inputMode="numeric" autoComplete="off" />
            </div>
          </div>
          {member ? (
            <>
              <Checkbox
                name="joint_account"
                isSelected={joint}
                onChange={setJoint}
                description="A second owner who shares the accounts."
              >
                Joint account
              </Checkbox>
              {joint || v.joint_account === "on" ? (
                <fieldset className="grid gap-4 rounded-lg border border-slate-200 p-4 sm:grid-cols-3">
                  <legend className="px-1 text-sm font-semibold text-slate-900">Joint owner</legend>
                  <TextField name="joint_name" label="Name" isRequired autoComplete="off" />
                  <TextField name="joint_email" type="email" label="Email" isRequired autoComplete="off" />
                  <TextField name="joint_phone" type="tel" label="Phone" isRequired autoComplete="off" />
                </fieldset>
              ) : (
                <noscript>
                  <p className="text-sm text-slate-700">
                    Without JavaScript: tick Joint account and send; the joint owner fields then appear.
                  </p>
                </noscript>
              )}
            </>
          ) : null}
        </>
        {result?.message ? <StatusLine message={result.message} tone={result.tone} /> : null}
        <p className="text-sm text-slate-700">
          {member
            ? "Members get a Checking and a Savings account at zero and a debit card."
            : "Staff accounts get no bank accounts. Once approved, the set-up link goes to the email address above only: the approver checks it is the person's own."}
        </p>
        <Button
          type="submit"
          size="lg"
          className="w-full"
          isPending={busy}
          pendingLabel={member ? "Creating…" : "Filing…"}
        >
          {member ? "Create user" : "Request staff account"}
        </Button>
      </SchemaForm>
    </UrlDialog>
  );
}
