import { useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import type { MemberDetail, ReviewerMemberDetail } from "~/server/admin/directory.server";
import { Eye, FileText, RotateCcw, UserRound } from "lucide-react";
import { PROFILE_IMAGE_TYPES, profileImageProblem } from "~/domain/settings";
import { FileField } from "~/components/auth/file-field";
import { Button } from "~/components/ui";
import { groupAccountNumber } from "~/domain/account-display";
import { formatCents } from "~/domain/money";
import { ID_TYPE_OPTIONS, MARITAL_STATUS_OPTIONS } from "~/domain/membership-application";
import { StatusBadge } from "./admin-shell";
import { initials, withParams } from "./format";
import { useInstitutionDates } from "~/components/institution-dates";
import { joinedVerb, personKind, PERSON_KIND_LABELS, showsApplicationStatus } from "~/domain/staff-roles";
import { LINE_STATE_LABELS } from "~/domain/loans/line-changes";

/**
 * The detail pane shows exactly what the directory service returns (one shape, one place): the
 * staff view, or a reviewer's, whose accounts carry a masked number and no money.
 */
export type MemberDetailData = MemberDetail | ReviewerMemberDetail;
/** The staff view only (the money sections, account edits, holds). */
export type StaffMemberDetail = MemberDetail;

export const idTypeLabel = (value: string | null) =>
  ID_TYPE_OPTIONS.find((o) => o.value === value)?.label ?? value ?? "—";
export const maritalLabel = (value: string | null) =>
  MARITAL_STATUS_OPTIONS.find((o) => o.value === value)?.label ?? value ?? "—";

export function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-600">{label}</dt>
      <dd className="mt-0.5 break-words text-sm text-slate-900">{children || "—"}</dd>
    </div>
  );
}

/** The taxpayer numbers, masked, with the way to the reveal page for staff who may see them in full. */
export function TaxpayerIdFields({ member, canReveal }: { member: MemberDetailData; canReveal?: boolean }) {
  const p = member.profile;
  const of = (party: "member" | "joint") => member.taxpayer_ids.find((t) => t.party === party);
  const shown = (party: "member" | "joint") => {
    const t = of(party);
    if (!t) return "Not given (applied before taxpayer numbers were asked)";
    return `${t.type_label} ${t.masked}${t.country ? ` (${t.country})` : ""}`;
  };
  return (
    <>
      <Field label="Taxpayer ID">
        <span className="tabular font-mono">{shown("member")}</span>
        {canReveal && of("member") ? <RevealLink member_id={member.user_id} party="member" /> : null}
      </Field>
      {p.joint_account ? (
        <Field label="Joint owner's taxpayer ID">
          <span className="tabular font-mono">{shown("joint")}</span>
          {canReveal && of("joint") ? <RevealLink member_id={member.user_id} party="joint" /> : null}
        </Field>
      ) : null}
    </>
  );
}

function RevealLink({ member_id, party }: { member_id: string; party: "member" | "joint" }) {
  return (
    <Link
      to={`/admin/members/${encodeURIComponent(member_id)}/tin?party=${party}`}
      className="ml-2 inline-flex items-center gap-1 text-sm font-medium text-brand-700 underline underline-offset-2"
    >
      <Eye className="size-3.5" aria-hidden="true" /> Reveal<span className="sr-only"> the full number</span>
    </Link>
  );
}

export function documentHref(member_id: string, info_request_id?: number): string {
  return `/admin/members/${encodeURIComponent(member_id)}/document${info_request_id ? `?answer=${info_request_id}` : ""}`;
}

/**
 * The detail pane (docs/product.md#member-details): header, application data (masked), accounts
 * (read-only, or `accounts` in their place: the inline Edit of staff with money powers), cards,
 * history, then `children` (the money sections, for staff with money powers only).
 */
export function MemberDetailPane({
  member,
  missing,
  search,
  imageError,
  accounts,
  canReveal,
  children,
}: {
  member: MemberDetailData | null;
  missing: boolean;
  search: string;
  imageError?: string;
  accounts?: React.ReactNode;
  /** False for a reviewer, who sees members' details masked only. */
  canReveal?: boolean;
  children?: React.ReactNode;
}) {
  const { formatDate, formatDateTime } = useInstitutionDates();
  if (!member) {
    return (
      <section
        aria-label="User details"
        className="flex min-h-64 flex-col items-center justify-center rounded-2xl border border-dashed border-slate-300 bg-white p-8 text-center"
      >
        <UserRound className="size-10 text-slate-400" aria-hidden="true" />
        <p className="mt-3 font-medium text-slate-800">
          {missing ? "That user was not found." : "Select a user to view and edit their details"}
        </p>
      </section>
    );
  }
  const p = member.profile;
  const address = [p.street, [p.city, p.state, p.postal_code].filter(Boolean).join(" "), p.country]
    .filter(Boolean)
    .join(", ");
  return (
    <section aria-labelledby="member-title" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
      <header className="flex flex-wrap items-start justify-between gap-4 border-b border-slate-200 p-5">
        <div className="flex min-w-0 items-center gap-4">
          <MemberAvatar
            name={member.name}
            imageUrl={member.has_image ? profileImageHref(member.user_id, search) : null}
          />
          <div className="min-w-0">
            <h2 id="member-title" className="break-all text-lg font-semibold text-brand-800">
              User Details: {member.email}
            </h2>
            <p className="text-sm text-slate-700">
              {member.name} · {joinedVerb(p.source)} {formatDate(member.created_at)}
            </p>
            <p className="mt-1 flex flex-wrap gap-1.5">
              {showsApplicationStatus(member.role) ? <StatusBadge status={p.status} /> : null}
              {showsApplicationStatus(member.role) && p.status === "pending" ? (
                <StatusBadge status={p.document_status} />
              ) : null}
              <span className="inline-flex items-center rounded-full bg-slate-100 px-2.5 py-0.5 text-xs font-semibold text-slate-800">
                {PERSON_KIND_LABELS[personKind(member.role)]}
              </span>
            </p>
          </div>
        </div>
        <Link
          to={withParams(search, { verify: "1", notice: null })}
          preventScrollReset
          className="inline-flex items-center gap-2 rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-800"
        >
          Verify User
        </Link>
        {/* A new key after each upload (the address's image version) clears the chosen file. */}
        <ProfileImageForm
          key={`${member.user_id}:${new URLSearchParams(search).get("image") ?? ""}`}
          member={member}
          serverError={imageError}
        />
      </header>

      <div className="space-y-6 p-5">
        {member.money_codes_locked_until ? (
          <p role="status" className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950">
            <strong>
              Transfers and card services that need a code are locked until{" "}
              {formatDateTime(member.money_codes_locked_until)}
            </strong>{" "}
            after 10 wrong codes in 15 minutes. The member was emailed; each wrong code is in the audit log. The lock
            ends by itself. If the member did not type them, someone else is using their session: ask them to reset
            their password.
          </p>
        ) : null}
        {p.status === "rejected" && p.rejection_reason ? (
          <p className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
            <strong>Rejected{p.decided_at ? ` on ${formatDate(p.decided_at)}` : ""}:</strong> {p.rejection_reason}
          </p>
        ) : null}

        <div>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h3 className="text-base font-semibold text-brand-800">Application</h3>
            {member.revealed ? (
              <span className="text-xs font-medium text-amber-900">
                Shown in full · this view was recorded in the audit log
              </span>
            ) : canReveal === false ? null : (
              <Link
                to={withParams(search, { reveal: "1" })}
                preventScrollReset
                className="inline-flex items-center gap-1.5 text-sm font-medium text-brand-700 underline underline-offset-2"
              >
                <Eye className="size-4" aria-hidden="true" /> Show full date of birth and ID number (audited)
              </Link>
            )}
          </div>
          <dl className="mt-3 grid gap-x-6 gap-y-3 sm:grid-cols-2 xl:grid-cols-3">
            <Field label="Name">
              {p.first_name} {p.last_name}
            </Field>
            <Field label="Date of birth">{p.date_of_birth}</Field>
            <Field label="Nationality">{p.nationality}</Field>
            <Field label="Marital status">{maritalLabel(p.marital_status)}</Field>
            <Field label="Phone">{p.phone}</Field>
            <Field label="Alternative email">{p.alt_email}</Field>
            <Field label="Address">{address}</Field>
            <Field label="Emergency contact">
              {p.emergency_name
                ? `${p.emergency_name} (${p.emergency_relationship ?? "—"}), ${p.emergency_phone ?? "—"}`
                : null}
            </Field>
            <Field label="Identification">{p.id_type ? `${idTypeLabel(p.id_type)} ${p.id_number ?? ""}` : null}</Field>
            {p.joint_account ? (
              <Field label="Joint owner">{`${p.joint_name ?? ""}, ${p.joint_email ?? ""}, ${p.joint_phone ?? ""}`}</Field>
            ) : null}
            <TaxpayerIdFields member={member} canReveal={canReveal !== false} />
            <Field label="Source">{p.source === "staff" ? "Created by staff" : "Online application"}</Field>
          </dl>
          {p.has_document ? (
            <a
              href={documentHref(member.user_id)}
              target="_blank"
              rel="noopener"
              className="mt-3 inline-flex items-center gap-1.5 text-sm font-medium text-brand-700 underline underline-offset-2"
            >
              <FileText className="size-4" aria-hidden="true" /> Open the ID document (opens in a new tab; audited)
            </a>
          ) : null}
        </div>

        <div>
          <h3 className="text-base font-semibold text-brand-800">Accounts</h3>
          {accounts ? (
            accounts
          ) : member.accounts.length === 0 ? (
            <p className="mt-2 text-sm text-slate-700">
              No accounts yet. Checking and Savings open when the application is approved.
            </p>
          ) : (
            // One table at every width. On a phone each account is a block of labelled figures
            // (the header row is kept for screen readers only), so nothing scrolls sideways or is
            // cut, and an account number never breaks inside a group. The explicit roles keep the
            // table's meaning once its parts are displayed as blocks.
            <table role="table" className="mt-2 block w-full text-left text-sm sm:table">
              <caption className="sr-only">Accounts of {member.name}</caption>
              <thead
                role="rowgroup"
                className="sr-only border-b border-slate-200 text-xs uppercase tracking-wide text-slate-600 sm:not-sr-only sm:table-header-group"
              >
                <tr role="row">
                  <th role="columnheader" scope="col" className="py-2 pr-3 font-medium">
                    Account
                  </th>
                  <th role="columnheader" scope="col" className="py-2 pr-3 font-medium">
                    Number
                  </th>
                  {member.view === "staff" ? (
                    <th role="columnheader" scope="col" className="py-2 pr-3 font-medium">
                      Routing
                    </th>
                  ) : null}
                  <th role="columnheader" scope="col" className="py-2 pr-3 font-medium">
                    Status
                  </th>
                  {member.view === "staff" ? (
                    <>
                      <th role="columnheader" scope="col" className="py-2 pr-3 text-right font-medium">
                        Current
                      </th>
                      <th role="columnheader" scope="col" className="py-2 text-right font-medium">
                        Available
                      </th>
                    </>
                  ) : null}
                </tr>
              </thead>
              <tbody role="rowgroup" className="block divide-y divide-slate-100 sm:table-row-group">
                {/* A reviewer's accounts carry a masked number and no money (the loader sent nothing more). */}
                {member.accounts.map((a) => (
                  <tr key={a.id} role="row" className="grid grid-cols-2 gap-x-4 gap-y-2 py-3 sm:table-row sm:py-0">
                    <td role="cell" className="font-medium text-slate-900 sm:py-2 sm:pr-3">
                      {a.name}
                    </td>
                    <td role="cell" className="tabular font-mono whitespace-nowrap sm:py-2 sm:pr-3">
                      <PhoneLabel>Number</PhoneLabel>
                      {"account_number" in a ? groupAccountNumber(a.account_number) : a.masked_number}
                    </td>
                    {"routing_number" in a ? (
                      <td role="cell" className="tabular font-mono whitespace-nowrap sm:py-2 sm:pr-3">
                        <PhoneLabel>Routing</PhoneLabel>
                        {a.routing_number}
                      </td>
                    ) : null}
                    <td role="cell" className="row-start-1 col-start-2 justify-self-end sm:py-2 sm:pr-3">
                      <StatusBadge status={a.status} />
                    </td>
                    {"current_cents" in a ? (
                      <>
                        <td role="cell" className="tabular whitespace-nowrap sm:py-2 sm:pr-3 sm:text-right">
                          <PhoneLabel>Current</PhoneLabel>
                          {formatCents(a.current_cents)}
                        </td>
                        <td role="cell" className="tabular whitespace-nowrap sm:py-2 sm:text-right">
                          <PhoneLabel>Available</PhoneLabel>
                          {formatCents(a.available_cents)}
                        </td>
                      </>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {member.cards.length ? (
            <ul className="mt-3 space-y-1 text-sm text-slate-800">
              {member.cards.map((c) => (
                <li key={c.id} className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">Debit card</span>
                  <span className="tabular font-mono">{c.masked_number}</span>
                  <span className="text-slate-700">
                    expires {String(c.expiry_month).padStart(2, "0")}/{c.expiry_year}
                  </span>
                  <StatusBadge status={c.status} />
                </li>
              ))}
            </ul>
          ) : null}
          {/* Staff who may move money stand in for the card network (docs/product.md#card-transactions-staff). */}
          {member.cards.length && accounts ? (
            <Link
              to={`/admin/members/${encodeURIComponent(member.user_id)}/cards`}
              className="mt-2 inline-flex text-sm font-medium text-brand-700 underline underline-offset-2"
            >
              Post card transaction
            </Link>
          ) : null}
        </div>

        {member.credit ? <MemberLoans credit={member.credit} /> : null}

        {member.info_requests.length ? (
          <div>
            <h3 className="text-base font-semibold text-brand-800">Information requests</h3>
            <ul className="mt-2 space-y-3">
              {member.info_requests.map((r) => (
                <li key={r.id} className="rounded-lg border border-slate-200 p-3 text-sm">
                  <p className="flex flex-wrap items-center justify-between gap-2 text-slate-700">
                    <span>Asked {formatDateTime(r.requested_at)}</span>
                    <StatusBadge status={r.status} />
                  </p>
                  <p className="mt-1 text-slate-900">{r.message}</p>
                  {r.answer_text ? (
                    <p className="mt-2 border-l-4 border-accent-600 pl-3 text-slate-900">
                      <span className="block text-xs text-slate-700">
                        Answer{r.answered_at ? `, ${formatDateTime(r.answered_at)}` : ""}
                      </span>
                      {r.answer_text}
                    </p>
                  ) : null}
                  {r.has_answer_document ? (
                    <a
                      href={documentHref(member.user_id, r.id)}
                      target="_blank"
                      rel="noopener"
                      className="mt-2 inline-flex items-center gap-1.5 font-medium text-brand-700 underline underline-offset-2"
                    >
                      <FileText className="size-4" aria-hidden="true" /> Document sent with the answer (audited)
                    </a>
                  ) : null}
                </li>
              ))}
            </ul>
          </div>
        ) : null}

        {member.decisions.length ? (
          <div>
            <h3 className="text-base font-semibold text-brand-800">Review history</h3>
            <ul className="mt-2 space-y-2 text-sm">
              {member.decisions.map((d) => (
                <li key={d.id} className="flex flex-wrap gap-x-2 text-slate-800">
                  <StatusBadge status={d.decision} />
                  <span>
                    {formatDateTime(d.decided_at)} by {d.decided_by_email ?? "staff"}
                  </span>
                  {d.note ? <span className="w-full text-slate-700">“{d.note}”</span> : null}
                  {d.identity_verification ? (
                    <span className="w-full text-slate-700">
                      Identity verified:{" "}
                      {d.identity_verification.method === "documentary" ? "documentary" : "non-documentary"};{" "}
                      {d.identity_verification.discrepancy
                        ? `discrepancy resolved: “${d.identity_verification.discrepancy}”`
                        : "no discrepancy"}
                    </span>
                  ) : null}
                </li>
              ))}
            </ul>
          </div>
        ) : null}

        {children}

        {/* Resetting counts is a money control too: shown with the other staff controls only. */}
        {accounts ? <ResetTransferCountsBox /> : null}
      </div>
    </section>
  );
}

/** The image URL; `image` in the address (set after an upload) makes the browser fetch the new one. */
function profileImageHref(user_id: string, search: string): string {
  const version = new URLSearchParams(search).get("image");
  const base = `/settings/profile-image/${encodeURIComponent(user_id)}`;
  return version && /^[0-9a-f]{1,16}$/.test(version) ? `${base}?v=${version}` : base;
}

/**
 * The member's image over their initials: a missing or broken image leaves the initials
 * (docs/product.md#settings).
 */
function MemberAvatar({ name, imageUrl }: { name: string; imageUrl: string | null }) {
  const [broken, setBroken] = useState<string | null>(null);
  return (
    <span
      aria-hidden="true"
      className="relative flex size-14 shrink-0 items-center justify-center overflow-hidden rounded-full border border-slate-200 bg-brand-100 text-lg font-semibold text-brand-800"
    >
      {initials(name)}
      {imageUrl && broken !== imageUrl ? (
        <img
          src={imageUrl}
          alt=""
          className="absolute inset-0 size-full object-cover"
          onError={() => setBroken(imageUrl)}
          data-member-image=""
        />
      ) : null}
    </span>
  );
}

/**
 * Staff upload a new profile image for the selected member (docs/product.md#member-details): a
 * plain multipart form, so it works before JavaScript; with JavaScript the file is checked at once
 * with the same rules as the member's own upload. The server checks the content again, re-encodes
 * it and audits the change.
 */
function ProfileImageForm({ member, serverError }: { member: MemberDetailData; serverError?: string }) {
  const navigation = useNavigation();
  const [clientError, setClientError] = useState<string | null>(null);
  const [edited, setEdited] = useState(false);
  const error = clientError ?? (edited ? undefined : serverError);
  const uploading = navigation.state === "submitting" && navigation.formData?.get("intent") === "member_image";
  return (
    <Form
      method="post"
      encType="multipart/form-data"
      preventScrollReset
      aria-label={`Profile image of ${member.name}`}
      className="flex w-full flex-col gap-3 sm:flex-row sm:items-end"
      onSubmit={(event) => {
        const file = (event.currentTarget.elements.namedItem("image") as HTMLInputElement | null)?.files?.[0];
        const problem = file ? profileImageProblem(file) : "Please select an image file";
        if (problem) {
          event.preventDefault();
          setClientError(problem);
        }
      }}
    >
      <input type="hidden" name="intent" value="member_image" />
      <input type="hidden" name="member_id" value={member.user_id} />
      <FileField
        name="image"
        label="Profile image"
        accept={PROFILE_IMAGE_TYPES.join(",")}
        description="JPEG, PNG or WebP, under 5 MB. Stored resized, without metadata."
        error={error ?? undefined}
        className="min-w-0 flex-1"
        onChange={(file) => {
          setEdited(true);
          setClientError(file ? profileImageProblem(file) : null);
        }}
      />
      <Button type="submit" variant="secondary" isPending={uploading} pendingLabel="Uploading…" className="shrink-0">
        Upload image
      </Button>
    </Form>
  );
}

/**
 * The Reset Transfer Counts box (docs/product.md#member-details); its button goes to
 * /admin/reset-transfers.
 */
function ResetTransferCountsBox() {
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-slate-200 bg-slate-50 p-4">
      <div className="min-w-0">
        <h3 className="text-base font-semibold text-brand-800">Reset Transfer Counts</h3>
        <p className="mt-0.5 text-sm text-slate-700">
          Savings transfers out are limited each month. Reset one member&apos;s count or everyone&apos;s.
        </p>
      </div>
      <Link
        to="/admin/reset-transfers"
        className="inline-flex items-center gap-2 rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-800"
      >
        <RotateCcw className="size-4" aria-hidden="true" /> Reset Transfer Counts
      </Link>
    </div>
  );
}

/** A figure's name above it on a phone, where the table's header row is not shown (screen readers have the header). */
/**
 * The member's booked loans and lines of credit, each a link to its page in the back office
 * (docs/product.md#member-details): names and states only, for staff and reviewers alike.
 */
function MemberLoans({ credit }: { credit: NonNullable<MemberDetailData["credit"]> }) {
  const links = [
    ...credit.loans.map((l) => ({
      key: `loan-${l.id}`,
      to: `/admin/loans/booked/${l.id}`,
      name: `${l.product_name} ${l.number}`,
      state: l.status === "active" ? "Active" : "Paid off",
    })),
    ...credit.lines.map((l) => ({
      key: `line-${l.id}`,
      to: `/admin/loans/lines/${l.id}`,
      name: `${l.product_name} ${l.number}`,
      state: LINE_STATE_LABELS[l.state],
    })),
  ];
  return (
    <div>
      <h3 className="text-base font-semibold text-brand-800">Loans</h3>
      {links.length === 0 ? (
        <p className="mt-2 text-sm text-slate-700">No loans or lines of credit.</p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-100 text-sm">
          {links.map((l) => (
            <li key={l.key} className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 py-2">
              <Link to={l.to} className="font-medium text-brand-700 underline underline-offset-2">
                {l.name}
              </Link>
              <span className="text-slate-700">{l.state}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function PhoneLabel({ children }: { children: string }) {
  return (
    <span
      aria-hidden="true"
      className="block font-sans text-xs font-medium tracking-wide text-slate-600 uppercase sm:hidden"
    >
      {children}
    </span>
  );
}
