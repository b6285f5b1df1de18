import { data, Link, redirect } from "react-router";
import { UserPlus } from "lucide-react";
import type { Route } from "./+types/index";
import { requestInfoContext } from "~/context";
import {
  checklistFromForm,
  checklistComplete,
  CreateMemberSchema,
  ReviewDecisionSchema,
  APPROVE_NEEDS_CHECKLIST,
} from "~/domain/application-review";
import { IDENTITY_MESSAGES, identityVerificationFromForm } from "~/domain/taxpayer-id";
import { requireStaff } from "~/server/admin/context.server";
import { parseTab } from "~/server/admin/directory.server";
import {
  formReply,
  parseSubmission,
  readForm,
  refusalStatus,
  replyTo,
  type FormReply,
} from "~/server/http/form.server";
import { PLAIN_TEXT_MESSAGE, hasControlCharacters } from "~/domain/plain-text";
import { pageTitle } from "~/components/site/page-title";
import { withParams } from "~/components/admin/format";
import { StatusLine } from "~/components/admin/admin-shell";
import { MemberList } from "~/components/admin/member-list";
import { MemberDetailPane } from "~/components/admin/member-detail";
import { VerifyDialog } from "~/components/admin/verify-dialog";
import { CreateMemberDialog } from "~/components/admin/create-member-dialog";
import { CodePanel } from "~/components/admin/code-panel";
import { mayMoveMoney } from "~/domain/staff-roles";
import { signInEmailField } from "~/domain/sign-in";
import { isMoneyIntent } from "~/server/member-accounts/actions.server";
import { NOT_ALLOWED_MESSAGE } from "~/domain/staff-roles";
import {
  adjustmentsAwaitingApproval,
  approve,
  askForInformation,
  clearUsedSignInCodes,
  createMember,
  directoryPage,
  issueSignInCode,
  memberCounts,
  memberDetails,
  memberMoney,
  reviewerMemberDetails,
  moneyControl,
  reject,
  removeSignInCode,
  setMemberImage,
  signInCodes,
} from "./index.server";
import { StaffAccounts } from "~/components/admin/account-edit";
import { HoldsBox } from "~/components/admin/holds";
import { MemberTransactions, ReverseAllBox } from "~/components/admin/member-transactions";
import { ApprovalsBox } from "~/components/admin/approvals";
import { isMoneyResult } from "~/components/admin/money-result";
import { AddTransactions } from "~/components/admin/add-transactions";
import { StaffRoleRequest } from "~/components/admin/staff-grants";
import { STAFF_GRANT_MESSAGES } from "~/domain/staff-grants";
import { requestStaffAccount, requestStaffRole } from "./staff-grants.server";

/**
 * The back office home (docs/product.md#back-office): the one-time-code panel, the member
 * directory (tabs with counts, search, pages), the detail pane of `?member=`, the verification
 * dialog (`&verify=1`) and Create New User (`?create=1`).
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Back office", matches), { name: "robots", content: "noindex" }];
}

const NOTICES: Record<string, string> = {
  approved: "Application approved. Checking and Savings are open and a debit card was issued; the member was emailed.",
  rejected: "Application rejected. The applicant was emailed the reason.",
  info_requested: "Information requested. The applicant was emailed and can answer on their status page.",
  created: "User created. They must change the temporary password at first sign-in.",
  grant_requested:
    "Request filed. Another admin must approve the staff role in Queues before the account exists; the approver sees the email address, and the new staff member then gets a link to choose their own password.",
  image_updated: "Profile image updated.",
};

export async function loader({ request, context }: Route.LoaderArgs) {
  const { staff, role, origin } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  // A reviewer sees members' details masked and none of the money controls.
  const money_powers = mayMoveMoney(role);
  const url = new URL(request.url);
  const params = url.searchParams;
  const tab = parseTab(params.get("tab"));
  // A control character in the search is refused with a message (the database cannot search for NUL).
  const typed = (params.get("q") ?? "").slice(0, 100);
  const search_problem = hasControlCharacters(typed) ? PLAIN_TEXT_MESSAGE : null;
  const query = search_problem ? "" : typed;
  const page = Number(params.get("page") ?? "1");
  const member_id = params.get("member");
  const reveal = params.get("reveal") === "1" && money_powers;
  const counts = await memberCounts();
  const wanted = member_id && /^[A-Za-z0-9_-]{1,64}$/.test(member_id) ? member_id : null;
  const [list, detail, codes, approvals] = await Promise.all([
    directoryPage({ tab, query, page, counts }),
    // What a loader returns is shaped by role on the server: a reviewer's member has no balance
    // and no full account number, in the page's data as in its HTML (docs/product.md#member-details).
    !wanted
      ? Promise.resolve(null)
      : money_powers
        ? memberDetails({ member_id: wanted, reveal: reveal ? { staff, origin } : null })
        : reviewerMemberDetails({ member_id: wanted }),
    signInCodes(staff.id),
    money_powers ? adjustmentsAwaitingApproval() : Promise.resolve([]),
  ]);
  const money =
    detail?.view === "staff" ? await memberMoney(detail.user_id, { before: params.get("tx_before") }) : null;
  const page_data = {
    search: url.search,
    search_problem,
    tab,
    query,
    counts,
    list,
    member: detail,
    member_missing: Boolean(member_id) && !detail,
    verify: params.get("verify") === "1" && Boolean(detail),
    create: params.get("create") === "1",
    codes_open: params.get("codes") === "1",
    notice: NOTICES[params.get("notice") ?? ""] ?? null,
    codes,
    staff_id: staff.id,
    money_powers,
    money,
    approvals,
  };
  return search_problem ? data(page_data, { status: 400 }) : page_data;
}

export type AdminActionResult = {
  intent: string;
  message?: string;
  tone?: "error" | "success";
  /** The form's field messages and the values to show again (docs/contributing.md#add-a-form). */
  reply?: FormReply;
  issued?: { code: string; member_email: string; expires_at: string };
};

export async function action({ request, context }: Route.ActionArgs) {
  const { staff, role, origin } = await requireStaff(request, context.get(requestInfoContext), { reviewer: true });
  const form = await readForm(request);
  const intent = String(form.get("intent") ?? "");
  const url = new URL(request.url);

  // Reversals, adjustments, holds, account edits: staff with money powers only (403 for a reviewer).
  if (isMoneyIntent(intent)) return moneyControl({ staff, role, origin, intent, form });
  // Creating people (staff among them) is not a reviewer's to do.
  if ((intent === "create_member" || intent === "request_staff_role") && !mayMoveMoney(role))
    throw data({ form_error: NOT_ALLOWED_MESSAGE }, { status: 403 });

  // A member raised to staff or reviewer: a request another admin approves (docs/product.md#staff-role-grants).
  if (intent === "request_staff_role") return requestStaffRole({ staff, origin, form });

  if (intent === "review") {
    const member_id = String(form.get("member_id") ?? "");
    const checklist = checklistFromForm((name) => form.get(name));
    const parsed = parseSubmission(ReviewDecisionSchema, form);
    if (parsed.status !== "success") {
      return data(
        {
          intent,
          reply: replyTo(parsed),
          message: "Failed: please check the form.",
          tone: "error",
        } satisfies AdminActionResult,
        { status: 400 },
      );
    }
    const decision = parsed.value;
    // How identity was verified (31 CFR 1020.220(a)(3)): required to approve, kept with the decision.
    const identity = identityVerificationFromForm((name) => form.get(name));
    if (decision.decision === "approve" && !identity.ok) {
      return data(
        {
          intent,
          reply: replyTo(parsed, {
            fieldErrors: Object.fromEntries(identity.problems.map((p) => [p.field, [p.message]])),
          }),
          message: `Failed: ${IDENTITY_MESSAGES.method_missing}`,
          tone: "error",
        } satisfies AdminActionResult,
        { status: 400 },
      );
    }
    if (decision.decision === "approve" && !checklistComplete(checklist)) {
      return data(
        {
          intent,
          reply: replyTo(parsed),
          message: `Failed: ${APPROVE_NEEDS_CHECKLIST}`,
          tone: "error",
        } satisfies AdminActionResult,
        { status: 400 },
      );
    }
    const result =
      decision.decision === "approve"
        ? await approve({ member_id, staff, checklist, identity: identity.ok ? identity.value : null, origin })
        : decision.decision === "reject"
          ? await reject({ member_id, staff, checklist, reason: decision.reason, origin })
          : await askForInformation({ member_id, staff, checklist, message: decision.message, origin });
    if (!result.ok) {
      return data(
        { intent, reply: replyTo(parsed), message: result.message, tone: "error" } satisfies AdminActionResult,
        { status: refusalStatus(result.kind) },
      );
    }
    const notice =
      decision.decision === "approve" ? "approved" : decision.decision === "reject" ? "rejected" : "info_requested";
    throw redirect(withParams(url.search, { verify: null, reveal: null, index: null, notice, member: member_id }));
  }

  if (intent === "create_member") {
    const parsed = parseSubmission(CreateMemberSchema, form);
    if (parsed.status !== "success") {
      return data(
        {
          intent,
          reply: replyTo(parsed),
          message: "Failed to create user: please check the highlighted fields.",
          tone: "error",
        } satisfies AdminActionResult,
        { status: 400 },
      );
    }
    if (parsed.value.role !== "user") {
      // A staff or reviewer account is a role grant: filed here, created only once another admin approves it.
      const v = parsed.value;
      const profile = {
        first_name: v.first_name,
        last_name: v.last_name,
        street: v.street,
        city: v.city,
        state: v.state,
        postal_code: v.postal_code,
        phone: v.phone,
      };
      const grant = await requestStaffAccount({
        requester: { kind: "staff", staff },
        email: v.email,
        role: v.role === "admin" ? "admin" : "reviewer",
        profile,
        origin,
      });
      if (grant.ok) throw redirect(withParams(url.search, { create: null, index: null, notice: "grant_requested" }));
      const message =
        grant.code === "already_pending" ? STAFF_GRANT_MESSAGES.already_pending : STAFF_GRANT_MESSAGES.email_taken;
      const field =
        grant.code === "already_pending"
          ? "A staff role request for this address is already waiting for approval."
          : "An account with this email already exists.";
      return data(
        {
          intent,
          message,
          tone: "error",
          reply: replyTo(parsed, { fieldErrors: { email: [field] } }),
        } satisfies AdminActionResult,
        { status: 409 },
      );
    }
    const result = await createMember({ staff, member: parsed.value, origin });
    if (result.status === "created")
      throw redirect(withParams(url.search, { create: null, index: null, notice: "created", member: result.user_id }));
    const message =
      result.status === "email_taken"
        ? "Failed to create user: an account with this email already exists."
        : result.status === "screening_hit"
          ? "Not created: this person may match an entry on a sanctions list. Ask them to apply online, so that the possible match is reviewed in the screening queue before any account opens."
          : `Failed to create user: ${result.detail}`;
    const reply = replyTo(
      parsed,
      result.status === "email_taken" ? { fieldErrors: { email: ["An account with this email already exists."] } } : {},
    );
    return data({ intent, message, tone: "error", reply } satisfies AdminActionResult, {
      status: result.status === "email_taken" || result.status === "screening_hit" ? 409 : 500,
    });
  }

  if (intent === "member_image") {
    const member_id = String(form.get("member_id") ?? "");
    const upload = form.get("image");
    const result = await setMemberImage({ staff, member_id, upload: upload instanceof File ? upload : null, origin });
    if (result.ok)
      throw redirect(
        withParams(url.search, {
          index: null,
          notice: "image_updated",
          member: member_id,
          image: result.file.slice(0, 8),
        }),
      );
    // Bad input (the file, no member chosen) is said as a failed update; a store failure says itself.
    const bad_input = result.kind === "bad_input";
    const message = bad_input ? `Failed to update profile image: ${result.message}` : result.message;
    return data(
      {
        intent,
        message,
        tone: "error",
        reply: formReply(form, { fieldErrors: { image: [result.message] } }),
      } satisfies AdminActionResult,
      { status: refusalStatus(result.kind) },
    );
  }

  if (intent === "issue_code") {
    const member_email = String(form.get("member_email") ?? "").trim();
    const code = String(form.get("code") ?? "").trim();
    // An address that cannot be one (a control character would also fail the database lookup).
    if (!signInEmailField.safeParse(member_email).success)
      return data(
        {
          intent,
          message: "Failed: enter the member's email address.",
          tone: "error",
          reply: formReply(form),
        } satisfies AdminActionResult,
        { status: 400 },
      );
    const result = await issueSignInCode({ staff, member_email, code: code || null, origin });
    switch (result.status) {
      case "issued":
        return {
          intent,
          message: `Code issued for ${result.member_email}. Read it to the member now: it is shown only once.`,
          tone: "success",
          issued: { code: result.code, member_email: result.member_email, expires_at: result.expires_at.toISOString() },
        } satisfies AdminActionResult;
      case "invalid_code":
        return data(
          { intent, message: result.message, tone: "error", reply: formReply(form) } satisfies AdminActionResult,
          { status: 400 },
        );
      case "member_not_found":
        return data(
          {
            intent,
            message: `Failed: no user has the email ${member_email}.`,
            tone: "error",
            reply: formReply(form),
          } satisfies AdminActionResult,
          { status: 404 },
        );
      case "not_a_member":
        return data(
          {
            intent,
            message: "Failed: sign-in codes are for members, not staff accounts.",
            tone: "error",
            reply: formReply(form),
          } satisfies AdminActionResult,
          { status: 400 },
        );
    }
  }

  if (intent === "remove_code") {
    const id = Number(form.get("code_id"));
    const removed = Number.isSafeInteger(id) && id > 0 ? await removeSignInCode({ staff, code_id: id, origin }) : false;
    return data(
      {
        intent,
        message: removed ? "Code removed." : "Failed: that code is no longer valid.",
        tone: removed ? "success" : "error",
      } satisfies AdminActionResult,
      { status: removed ? 200 : 409 },
    );
  }

  if (intent === "clear_used_codes") {
    await clearUsedSignInCodes({ staff, origin });
    return { intent, message: "Used codes cleared from the list.", tone: "success" } satisfies AdminActionResult;
  }

  return data({ intent, message: "Failed: unknown action.", tone: "error" } satisfies AdminActionResult, {
    status: 400,
  });
}

export default function AdminHome({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as AdminActionResult | undefined;
  const { member } = loaderData;
  const search = loaderData.search;
  const closeVerify = withParams(search, { verify: null });
  const closeCreate = withParams(search, { create: null });
  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Members</h1>
          <p className="mt-1 text-sm text-slate-700">Review applications, look up members and issue sign-in codes.</p>
        </div>
        {loaderData.money_powers ? (
          <Link
            to={withParams(search, { create: "1" })}
            preventScrollReset
            className="inline-flex items-center gap-2 rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-800"
          >
            <UserPlus className="size-4" aria-hidden="true" /> Create New User
          </Link>
        ) : null}
      </div>
      {loaderData.notice ? <StatusLine message={loaderData.notice} tone="success" /> : null}
      {loaderData.search_problem ? <StatusLine message={`Search: ${loaderData.search_problem}.`} tone="error" /> : null}
      {result?.message &&
      !isMoneyResult(result) &&
      result.intent !== "create_member" &&
      result.intent !== "review" &&
      !["issue_code", "remove_code", "clear_used_codes"].includes(result.intent) ? (
        <StatusLine message={result.message} tone={result.tone} />
      ) : null}
      <ApprovalsBox items={loaderData.approvals} staffId={loaderData.staff_id} search={search} result={result} />
      <CodePanel
        codes={loaderData.codes}
        result={result}
        defaultEmail={member?.email ?? ""}
        initiallyOpen={
          loaderData.codes_open ||
          Boolean(result && ["issue_code", "remove_code", "clear_used_codes"].includes(result.intent))
        }
      />
      <div className="grid grid-cols-1 gap-5 lg:grid-cols-[minmax(0,30rem)_minmax(0,1fr)]">
        <div className={member ? "order-2 lg:order-1" : ""}>
          <MemberList
            tab={loaderData.tab}
            query={loaderData.query}
            counts={loaderData.counts}
            list={loaderData.list}
            search={search}
            selectedId={member?.user_id ?? null}
          />
        </div>
        <div className={member ? "order-1 lg:order-2" : ""}>
          <MemberDetailPane
            member={member}
            missing={loaderData.member_missing}
            search={search}
            imageError={result?.intent === "member_image" ? result.reply?.error?.image?.[0] : undefined}
            canReveal={loaderData.money_powers}
            accounts={
              member?.view === "staff" && loaderData.money ? (
                <StaffAccounts
                  member={member}
                  settings={loaderData.money.settings}
                  search={search}
                  result={result}
                  secondApprovalAboveCents={loaderData.money.second_approval_above_cents}
                />
              ) : undefined
            }
          >
            {member?.view === "staff" && loaderData.money ? (
              <>
                <HoldsBox
                  member={member}
                  holds={loaderData.money.holds}
                  requestKey={loaderData.money.hold_request_key}
                  result={result}
                />
                <AddTransactions member={member} />
                <MemberTransactions
                  member_id={member.user_id}
                  page={loaderData.money.transactions}
                  before={loaderData.money.transactions_before}
                  search={search}
                  result={result}
                />
                <ReverseAllBox member_id={member.user_id} search={search} result={result} />
                {member.role === "user" ? <StaffRoleRequest memberId={member.user_id} result={result} /> : null}
              </>
            ) : null}
          </MemberDetailPane>
        </div>
      </div>
      {loaderData.verify && member ? (
        <VerifyDialog
          member={member}
          closeTo={closeVerify}
          search={search}
          result={result?.intent === "review" ? result : undefined}
        />
      ) : null}
      {loaderData.create && loaderData.money_powers ? (
        <CreateMemberDialog
          closeTo={closeCreate}
          search={search}
          result={result?.intent === "create_member" ? result : undefined}
        />
      ) : null}
    </div>
  );
}
