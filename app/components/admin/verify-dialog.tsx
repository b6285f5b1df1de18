import { useState } from "react";
import { useNavigation } from "react-router";
import { FileText } from "lucide-react";
import { CHECKLIST_GROUPS, CHECKLIST_ITEM_IDS, ReviewDecisionSchema } from "~/domain/application-review";
import { Button, Checkbox, RadioGroup, SchemaForm, TextArea, useSchemaForm, type FormReply } from "~/components/ui";
import { IDENTITY_METHOD_OPTIONS } from "~/domain/taxpayer-id";
import { StatusBadge, StatusLine } from "./admin-shell";
import {
  Field,
  TaxpayerIdFields,
  documentHref,
  idTypeLabel,
  maritalLabel,
  type MemberDetailData,
} from "./member-detail";
import { UrlDialog } from "./overlay";
import { useHydrated } from "~/components/ui/use-hydrated";
import { useInstitutionDates } from "~/components/institution-dates";

interface ReviewResult {
  message?: string;
  tone?: "error" | "success";
  reply?: FormReply;
}

/**
 * The verification dialog (docs/product.md#staff-review): the applicant's data and document beside
 * the checklist, and Approve (enabled once every item is ticked), Reject (needs a reason) and
 * Request info (needs a description). The server checks all of it again.
 */
export function VerifyDialog({
  member,
  closeTo,
  result,
}: {
  member: MemberDetailData;
  closeTo: string;
  search: string;
  result?: ReviewResult;
}) {
  const { formatDate } = useInstitutionDates();
  const hydrated = useHydrated();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "review";
  const form = useSchemaForm(ReviewDecisionSchema, { lastResult: result?.reply });
  const posted = (form.initialValue ?? {}) as Record<string, unknown>;
  const [ticked, setTicked] = useState<Record<string, boolean>>(() =>
    Object.fromEntries(CHECKLIST_ITEM_IDS.map((id) => [id, posted[`check_${id}`] === "on"])),
  );
  const [method, setMethod] = useState(String(posted.identity_method ?? ""));
  const [discrepancy, setDiscrepancy] = useState(String(posted.discrepancy ?? ""));
  const all = CHECKLIST_ITEM_IDS.every((id) => ticked[id]) && method !== "" && discrepancy !== "";
  const p = member.profile;
  const pending = p.status === "pending";
  const isImage = p.document_mime?.startsWith("image/") ?? false;
  return (
    <UrlDialog title={`Verify ${p.first_name} ${p.last_name}`} closeTo={closeTo} wide>
      <div className="grid gap-6 lg:grid-cols-2">
        <section aria-labelledby="verify-data" className="space-y-4">
          <h3 id="verify-data" className="text-base font-semibold text-brand-800">
            Application
          </h3>
          <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2">
            <Field label="Email">{member.email}</Field>
            <Field label="Date of birth">{p.date_of_birth}</Field>
            <Field label="Nationality">{p.nationality}</Field>
            <Field label="Marital status">{maritalLabel(p.marital_status)}</Field>
            <Field label="Address">
              {[p.street, p.city, p.state, p.postal_code, p.country].filter(Boolean).join(", ")}
            </Field>
            <Field label="Phone">{p.phone}</Field>
            <Field label="Emergency contact">
              {p.emergency_name
                ? `${p.emergency_name} (${p.emergency_relationship ?? "—"}), ${p.emergency_phone ?? "—"}`
                : null}
            </Field>
            <Field label="Identification">{p.id_type ? `${idTypeLabel(p.id_type)} ${p.id_number ?? ""}` : null}</Field>
            <TaxpayerIdFields member={member} />
          </dl>
          <div>
            <h4 className="text-sm font-semibold text-slate-900">ID document</h4>
            {p.has_document ? (
              <>
                {isImage ? (
                  <img
                    src={documentHref(member.user_id)}
                    alt={`ID document of ${p.first_name} ${p.last_name}`}
                    className="mt-2 max-h-72 w-full rounded-lg border border-slate-200 bg-slate-50 object-contain"
                  />
                ) : null}
                <a
                  href={documentHref(member.user_id)}
                  target="_blank"
                  rel="noopener"
                  className="mt-2 inline-flex items-center gap-1.5 text-sm font-medium text-brand-700 underline underline-offset-2"
                >
                  <FileText className="size-4" aria-hidden="true" /> Open the document in a new tab
                </a>
              </>
            ) : (
              <p className="mt-1 text-sm text-red-800">No document was uploaded.</p>
            )}
          </div>
          {member.info_requests.length ? (
            <div>
              <h4 className="text-sm font-semibold text-slate-900">Information requested before</h4>
              <ul className="mt-1 space-y-2 text-sm">
                {member.info_requests.map((r) => (
                  <li key={r.id} className="rounded-lg bg-slate-50 p-2">
                    <span className="text-slate-900">{r.message}</span> <StatusBadge status={r.status} />
                    {r.answer_text ? <span className="mt-1 block text-slate-700">Answer: {r.answer_text}</span> : null}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </section>

        <section aria-labelledby="verify-checklist">
          <h3 id="verify-checklist" className="text-base font-semibold text-brand-800">
            Checklist
          </h3>
          {!pending ? (
            <p className="mt-3 rounded-lg border border-slate-200 bg-slate-50 p-4 text-sm text-slate-800">
              This application was {p.status}
              {p.decided_at ? ` on ${formatDate(p.decided_at)}` : ""}. There is nothing left to decide.
            </p>
          ) : (
            <SchemaForm
              form={form}
              method="post"
              preventScrollReset
              className="mt-3 space-y-5"
              aria-label="Review decision"
            >
              <input type="hidden" name="intent" value="review" />
              <input type="hidden" name="member_id" value={member.user_id} />
              <>
                {CHECKLIST_GROUPS.map((group) => (
                  <fieldset key={group.id} className="rounded-lg border border-slate-200 p-4">
                    <legend className="px-1 text-sm font-semibold text-slate-900">{group.title}</legend>
                    <div className="mt-1 grid gap-2.5">
                      {group.items.map((item) => (
                        <Checkbox
                          key={item.id}
                          name={`check_${item.id}`}
                          isSelected={ticked[item.id]}
                          onChange={(selected) => setTicked((t) => ({ ...t, [item.id]: selected }))}
                        >
                          {item.label}
                        </Checkbox>
                      ))}
                    </div>
                  </fieldset>
                ))}
                {/* Customer Identification Program (31 CFR 1020.220(a)(2)(ii), (a)(3)): how, and what was found. */}
                <fieldset className="space-y-4 rounded-lg border border-slate-200 p-4">
                  <legend className="px-1 text-sm font-semibold text-slate-900">Identity verification</legend>
                  <RadioGroup
                    name="identity_method"
                    label="How was identity verified?"
                    orientation="vertical"
                    options={IDENTITY_METHOD_OPTIONS}
                    onChange={setMethod}
                    isRequired
                  />
                  <RadioGroup
                    name="discrepancy"
                    label="Discrepancies"
                    options={[
                      { value: "none", label: "None found" },
                      { value: "resolved", label: "Found and resolved" },
                    ]}
                    onChange={setDiscrepancy}
                    isRequired
                  />
                  <TextArea
                    name="discrepancy_note"
                    label="The discrepancy and how it was resolved"
                    rows={2}
                    optional={discrepancy !== "resolved"}
                    description="Kept with the approval for the examiner."
                  />
                </fieldset>
                <p className="text-sm text-slate-700" aria-live="polite">
                  {CHECKLIST_ITEM_IDS.filter((id) => ticked[id]).length} of {CHECKLIST_ITEM_IDS.length} checked
                  {method && discrepancy ? ", identity verification recorded" : ", identity verification not recorded"}
                  {all ? ": ready to approve" : ""}
                </p>
                <Button
                  type="submit"
                  name="decision"
                  value="approve"
                  className="w-full"
                  isDisabled={hydrated && !all}
                  isPending={busy && navigation.formData?.get("decision") === "approve"}
                  pendingLabel="Approving…"
                >
                  Approve
                </Button>
                <div className="grid gap-4 border-t border-slate-200 pt-4 sm:grid-cols-2">
                  <div className="space-y-2">
                    <TextArea
                      name="reason"
                      label="Reason for rejection"
                      rows={3}
                      description="Emailed to the applicant."
                    />
                    <Button
                      type="submit"
                      name="decision"
                      value="reject"
                      variant="danger"
                      className="w-full"
                      isPending={busy && navigation.formData?.get("decision") === "reject"}
                      pendingLabel="Rejecting…"
                    >
                      Reject
                    </Button>
                  </div>
                  <div className="space-y-2">
                    <TextArea
                      name="message"
                      label="Information needed"
                      rows={3}
                      description="Emailed to the applicant."
                    />
                    <Button
                      type="submit"
                      name="decision"
                      value="request_info"
                      variant="secondary"
                      className="w-full"
                      isPending={busy && navigation.formData?.get("decision") === "request_info"}
                      pendingLabel="Sending…"
                    >
                      Request info
                    </Button>
                  </div>
                </div>
              </>
              {result?.message ? <StatusLine message={result.message} tone={result.tone} /> : null}
            </SchemaForm>
          )}
        </section>
      </div>
    </UrlDialog>
  );
}
