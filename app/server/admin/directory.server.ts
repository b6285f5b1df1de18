import { and, asc, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "~/server/db/client.server";
import {
  applicationDecisions,
  applicationInfoRequests,
  ledgerAccounts,
  memberDirectoryCounts,
  memberProfiles,
  users,
} from "~/server/db/schema";
import { maskDateOfBirth, maskIdNumber } from "~/domain/membership-application";
import { maskAccountNumber } from "~/domain/account-display";
import { recordAudit, type AuditOrigin } from "~/server/audit/audit.server";
import { memberAccounts, routingNumber } from "~/server/ledger/accounts.server";
import { memberCards } from "~/server/cards/cards.server";
import { stepUpLockState } from "~/server/payments/step-up.server";
import { encryptionContext } from "~/server/members/members.server";
import { decryptField } from "~/server/security/crypto.server";
import { readPrivateUpload } from "~/server/uploads/private-uploads.server";
import type { Actor } from "~/domain/actor";
import { maskedTaxpayerIds, type MaskedTaxpayerId } from "~/server/members/taxpayer-ids.server";
import type { IdentityVerification } from "~/domain/taxpayer-id";
import type { LineState } from "~/domain/loans/line-changes";
import { loanApplicationsOpen } from "~/server/loans/products.server";
import { bookedLoans } from "~/server/loans/staff-actions.server";
import { staffLines } from "~/server/loans/line-staff-actions.server";

/**
 * The back office's member directory (docs/product.md#member-directory): tabs with counts, search
 * by name, email or account number, and pages; fast with 100,000 members (bench/admin-directory.ts,
 * bench/README.md "Back office"). How each part stays cheap whatever the number of members:
 *  - counts: three rows of member_directory_counts, kept exact by triggers (migration 0009);
 *  - a tab's page: its 25 ids chosen by an index-only walk of (status,) created_at, user_id,
 *    newest first, then only those rows read;
 *  - a search: each kind of match (email, full name "first last", last name, account number) is a
 *    prefix lookup on its own covering index that yields id and created_at without reading the
 *    table; the page is the newest of their union, and only its rows are read.
 * Pages are numbered (Previous / "Page n of m" / Next) and served by offset, capped at
 * DIRECTORY_PAGES_MAX: at most 10,000 index entries skipped, a few milliseconds.
 */
export const DIRECTORY_TABS = ["all", "pending", "approved", "rejected"] as const;
export type DirectoryTab = (typeof DIRECTORY_TABS)[number];
export const DIRECTORY_PAGE_SIZE = 25;
/** Deep pages by offset get slower; nobody pages 400 screens deep, they search. */
export const DIRECTORY_PAGES_MAX = 400;
const SEARCH_CHARS_MAX = 100;

export function parseTab(value: string | null | undefined): DirectoryTab {
  return (DIRECTORY_TABS as readonly string[]).includes(value ?? "") ? (value as DirectoryTab) : "all";
}

export type DirectoryCounts = Record<DirectoryTab, number>;

/** The four tab counts: constant time (three rows maintained by the database, see above). */
export async function directoryCounts(db: Db): Promise<DirectoryCounts> {
  const rows = await db
    .select({ status: memberDirectoryCounts.status, n: memberDirectoryCounts.members })
    .from(memberDirectoryCounts);
  const counts: DirectoryCounts = { all: 0, pending: 0, approved: 0, rejected: 0 };
  for (const row of rows) {
    counts[row.status] = Number(row.n);
    counts.all += Number(row.n);
  }
  return counts;
}

/** Who someone is in the back office's eyes: an applicant, a member, staff or a reviewer (docs/product.md#people-and-roles). */
export type DirectoryRole = "user" | "pending" | "admin" | "reviewer";

export interface DirectoryItem {
  user_id: string;
  email: string;
  first_name: string;
  last_name: string;
  role: DirectoryRole;
  status: "pending" | "approved" | "rejected";
  document_status: "pending" | "info_requested" | "verified" | "rejected";
  /** How the person came: an online application, or an account staff opened (the date's verb). */
  source: "application" | "staff";
  /** The profile's date: when they applied, or when staff opened the account. */
  created_at: Date;
}

export interface DirectoryPage {
  items: DirectoryItem[];
  page: number;
  page_size: number;
  has_next: boolean;
  /** Known for a tab without search (its count); null for a search. */
  total: number | null;
  query: string;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The search term as matched: trimmed, lower-case, single spaces, at most 100 characters. */
function normaliseTerm(term: string): string {
  return term.trim().toLowerCase().replace(/\s+/g, " ").slice(0, SEARCH_CHARS_MAX);
}

/**
 * The members matching `term` (id and created_at, in the tab when `status` is given), or null
 * when the term is empty. One branch per kind of match, each a prefix lookup on its own covering
 * index (migration 0009), so that no table row is read: a name match is an index-only range scan
 * that carries status and created_at; an email or account number match is an index-only range
 * scan of users or ledger_accounts, then an index-only probe of member_profiles (user_id)
 * INCLUDE (status, created_at) per match. The set is MATERIALIZED: the cost is that of the
 * matches, whatever the planner estimates. Left free, it may instead walk the whole tab newest
 * first hoping to meet 26 matches early, which reads every row of the tab when the term is rare
 * in it (e.g. a name whose members are all approved, searched under Pending Review).
 */
function searchHits(term: string, status: SQL | undefined): SQL | null {
  const q = normaliseTerm(term);
  if (!q) return null;
  const digits = q.replace(/[\s-]/g, "");
  const pattern = `${escapeLike(q)}%`;
  const m = memberProfiles;
  const branch = (match: SQL) =>
    sql`select ${m.user_id} as user_id, ${m.created_at} as created_at from ${m} where ${match}${status ? sql` and ${status}` : sql``}`;
  const branches: SQL[] = [
    branch(sql`${m.user_id} in (select ${users.id} from ${users} where ${users.email} like ${pattern} escape '\\')`),
    branch(sql`lower(${m.first_name} || ' ' || ${m.last_name}) like ${pattern} escape '\\'`),
    branch(sql`lower(${m.last_name}) like ${pattern} escape '\\'`),
  ];
  if (/^\d{3,10}$/.test(digits)) {
    branches.push(
      branch(
        sql`${m.user_id} in (select ${ledgerAccounts.member_id} from ${ledgerAccounts} where ${ledgerAccounts.account_number} like ${`${digits}%`} and ${ledgerAccounts.owner} = 'member')`,
      ),
    );
  }
  return sql.join(branches, sql` union all `);
}

export async function listDirectory(
  db: Db,
  input: { tab: DirectoryTab; query?: string | null; page?: number; counts?: DirectoryCounts },
): Promise<DirectoryPage> {
  const page = Math.min(Math.max(Math.trunc(input.page ?? 1) || 1, 1), DIRECTORY_PAGES_MAX);
  const query = (input.query ?? "").trim().slice(0, SEARCH_CHARS_MAX);
  const offset = (page - 1) * DIRECTORY_PAGE_SIZE;
  const limit = DIRECTORY_PAGE_SIZE + 1;
  const status = input.tab !== "all" ? eq(memberProfiles.status, input.tab) : undefined;
  const hits = searchHits(query, status);
  // The page's ids, chosen from indexes alone (index-only scans); only these rows are then read.
  const chosen = hits
    ? sql`with hits as materialized (${hits}) select distinct hits.user_id, hits.created_at from hits order by hits.created_at desc, hits.user_id desc limit ${limit} offset ${offset}`
    : sql`select ${memberProfiles.user_id} from ${memberProfiles}${status ? sql` where ${status}` : sql``} order by ${memberProfiles.created_at} desc, ${memberProfiles.user_id} desc limit ${limit} offset ${offset}`;
  const rows = await db
    .select({
      user_id: memberProfiles.user_id,
      email: users.email,
      first_name: memberProfiles.first_name,
      last_name: memberProfiles.last_name,
      role: users.role,
      status: memberProfiles.status,
      document_status: memberProfiles.document_status,
      source: memberProfiles.source,
      created_at: memberProfiles.created_at,
    })
    .from(memberProfiles)
    .innerJoin(users, eq(users.id, memberProfiles.user_id))
    .where(sql`${memberProfiles.user_id} in (select chosen.user_id from (${chosen}) as chosen)`)
    .orderBy(desc(memberProfiles.created_at), desc(memberProfiles.user_id));
  const items: DirectoryItem[] = rows.slice(0, DIRECTORY_PAGE_SIZE).map((r) => ({ ...r, role: directoryRole(r.role) }));
  const total = hits ? null : input.counts ? input.counts[input.tab] : null;
  return {
    items,
    page,
    page_size: DIRECTORY_PAGE_SIZE,
    has_next: rows.length > DIRECTORY_PAGE_SIZE && page < DIRECTORY_PAGES_MAX,
    total,
    query,
  };
}

function directoryRole(stored: string | null): DirectoryRole {
  return stored === "admin" || stored === "reviewer" || stored === "pending" ? stored : "user";
}

/** An account as staff with money powers see it: full number, routing number and balances. */
export interface StaffAccountView {
  id: number;
  account_number: string;
  type: string;
  name: string;
  status: string;
  current_cents: number;
  available_cents: number;
  routing_number: string;
}

/** An account as a reviewer sees it (docs/product.md#people-and-roles): masked number, no money. */
export interface ReviewerAccountView {
  id: number;
  masked_number: string;
  type: string;
  name: string;
  status: string;
}

export interface MemberDetail {
  /** Which shape this is: staff with money powers ("staff") or a reviewer ("reviewer", see ReviewerMemberDetail). */
  view: "staff";
  user_id: string;
  email: string;
  name: string;
  role: DirectoryRole;
  /** The profile's date, as the directory shows it (applied, or opened by staff: `profile.source`). */
  created_at: Date;
  has_image: boolean;
  profile: {
    first_name: string;
    last_name: string;
    date_of_birth: string | null;
    nationality: string | null;
    marital_status: string | null;
    street: string | null;
    city: string | null;
    state: string | null;
    postal_code: string | null;
    country: string | null;
    phone: string | null;
    alt_email: string | null;
    emergency_name: string | null;
    emergency_relationship: string | null;
    emergency_phone: string | null;
    id_type: string | null;
    id_number: string | null;
    has_document: boolean;
    document_mime: string | null;
    joint_account: boolean;
    joint_name: string | null;
    joint_email: string | null;
    joint_phone: string | null;
    status: "pending" | "approved" | "rejected";
    document_status: "pending" | "info_requested" | "verified" | "rejected";
    rejection_reason: string | null;
    decided_at: Date | null;
    source: "application" | "staff";
  };
  /** True when date of birth and ID number are shown in clear (and that view was audited). */
  revealed: boolean;
  /**
   * The member's and the joint owner's taxpayer numbers, always masked here: the full number is
   * shown only on its own page, to staff with money powers who state a reason (docs/product.md#taxpayer-identification).
   */
  taxpayer_ids: MaskedTaxpayerId[];
  accounts: StaffAccountView[];
  cards: {
    id: number;
    masked_number: string;
    expiry_month: number;
    expiry_year: number;
    status: string;
    account_id: number;
  }[];
  info_requests: {
    id: number;
    message: string;
    requested_at: Date;
    status: "pending" | "answered";
    answer_text: string | null;
    answered_at: Date | null;
    has_answer_document: boolean;
  }[];
  decisions: {
    id: number;
    decision: string;
    note: string | null;
    decided_at: Date;
    decided_by_email: string | null;
    checklist: unknown;
    /** How identity was verified, on an approval (null on older approvals and other decisions). */
    identity_verification: IdentityVerification | null;
  }[];
  /**
   * Until when the member's transfers and card services that need an emailed code are locked after
   * 10 wrong codes (docs/product.md#step-up-codes); null when they are not.
   */
  money_codes_locked_until: Date | null;
  /**
   * The member's booked loans and lines of credit, newest first, each a link to its page in the
   * back office (names and states only, no figures: a reviewer sees the same); null while loans
   * are not offered (their pages are not found then).
   */
  credit: MemberCredit | null;
}

export interface MemberCredit {
  loans: { id: number; number: string; product_name: string; status: "active" | "paid_off" }[];
  lines: { id: number; number: string; product_name: string; state: LineState }[];
}

async function memberCredit(db: Db, member_id: string): Promise<MemberCredit | null> {
  if (!loanApplicationsOpen()) return null;
  const [loans, lines] = [await bookedLoans(db, { member_id }), await staffLines(db, { member_id })];
  return {
    loans: loans.map((l) => ({ id: l.id, number: l.number, product_name: l.product_name, status: l.status })),
    lines: lines.map((l) => ({ id: l.id, number: l.number, product_name: l.product_name, state: l.state })),
  };
}

/**
 * The member's details as a reviewer's page carries them, in the loader's data and the HTML:
 * the type has no balance, no full account number and no routing number, so none can reach a
 * reviewer by accident (docs/product.md#member-details).
 */
export type ReviewerMemberDetail = Omit<MemberDetail, "view" | "accounts"> & {
  view: "reviewer";
  accounts: ReviewerAccountView[];
};

/** A reviewer's view of one member: the same details, masked (never revealed), accounts without money. */
export async function reviewerMemberDetail(db: Db, input: { member_id: string }): Promise<ReviewerMemberDetail | null> {
  const detail = await memberDetail(db, { member_id: input.member_id, reveal: null });
  if (!detail) return null;
  const { accounts, view: _staffView, ...rest } = detail;
  return {
    ...rest,
    view: "reviewer",
    accounts: accounts.map((a) => ({
      id: a.id,
      masked_number: maskAccountNumber(a.account_number),
      type: a.type,
      name: a.name,
      status: a.status,
    })),
  };
}

/**
 * One member for the detail pane and the verification dialog. Date of birth and ID number are
 * masked unless `reveal` is set, in which case the view is audited first
 * (docs/product.md#personal-data-guarded).
 */
export async function memberDetail(
  db: Db,
  input: { member_id: string; reveal?: { staff: Actor; origin: AuditOrigin } | null },
): Promise<MemberDetail | null> {
  const [row] = await db
    .select({ profile: memberProfiles, email: users.email, name: users.name, role: users.role })
    .from(memberProfiles)
    .innerJoin(users, eq(users.id, memberProfiles.user_id))
    .where(eq(memberProfiles.user_id, input.member_id));
  if (!row) return null;
  const p = row.profile;
  const dob = p.date_of_birth_enc
    ? decryptField(p.date_of_birth_enc, encryptionContext("date_of_birth", p.user_id))
    : null;
  const idn = p.id_number_enc ? decryptField(p.id_number_enc, encryptionContext("id_number", p.user_id)) : null;
  const revealed = Boolean(input.reveal);
  if (input.reveal) {
    await recordAudit(db, {
      actor_id: input.reveal.staff.id,
      actor_email: input.reveal.staff.email,
      action: "member.personal_data.view",
      subject_type: "member",
      subject_id: p.user_id,
      after: { fields: ["date_of_birth", "id_number"] },
      request_id: input.reveal.origin.request_id,
      ip: input.reveal.origin.ip,
    });
  }
  const [accounts, cards, requests, decisions, money_codes, taxpayer_ids] = await Promise.all([
    memberAccounts(db, p.user_id),
    memberCards(db, p.user_id),
    db
      .select()
      .from(applicationInfoRequests)
      .where(eq(applicationInfoRequests.user_id, p.user_id))
      .orderBy(asc(applicationInfoRequests.requested_at))
      .limit(50),
    db
      .select({
        id: applicationDecisions.id,
        decision: applicationDecisions.decision,
        note: applicationDecisions.note,
        decided_at: applicationDecisions.decided_at,
        decided_by: applicationDecisions.decided_by,
        checklist: applicationDecisions.checklist,
        identity_verification: applicationDecisions.identity_verification,
      })
      .from(applicationDecisions)
      .where(eq(applicationDecisions.user_id, p.user_id))
      .orderBy(desc(applicationDecisions.decided_at))
      .limit(50),
    stepUpLockState(db, p.user_id),
    maskedTaxpayerIds(db, p.user_id),
  ]);
  const deciders = decisions.length
    ? await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(inArray(users.id, [...new Set(decisions.map((d) => d.decided_by))]))
    : [];
  const routing = routingNumber();
  return {
    view: "staff",
    user_id: p.user_id,
    email: row.email,
    name: row.name,
    role: directoryRole(row.role),
    created_at: p.created_at,
    has_image: Boolean(p.image_file),
    profile: {
      first_name: p.first_name,
      last_name: p.last_name,
      date_of_birth: dob ? (revealed ? dob : maskDateOfBirth(dob)) : null,
      nationality: p.nationality,
      marital_status: p.marital_status,
      street: p.street,
      city: p.city,
      state: p.state,
      postal_code: p.postal_code,
      country: p.country,
      phone: p.phone,
      alt_email: p.alt_email,
      emergency_name: p.emergency_name,
      emergency_relationship: p.emergency_relationship,
      emergency_phone: p.emergency_phone,
      id_type: p.id_type,
      id_number: idn ? (revealed ? idn : maskIdNumber(idn)) : null,
      has_document: Boolean(p.id_document_file),
      document_mime: p.id_document_mime,
      joint_account: p.joint_account,
      joint_name: p.joint_name,
      joint_email: p.joint_email,
      joint_phone: p.joint_phone,
      status: p.status,
      document_status: p.document_status,
      rejection_reason: p.rejection_reason,
      decided_at: p.decided_at,
      source: p.source,
    },
    revealed,
    taxpayer_ids,
    accounts: accounts.map((a) => ({
      id: a.id,
      account_number: a.account_number,
      type: a.type,
      name: a.name,
      status: a.status,
      current_cents: a.current_cents,
      available_cents: a.available_cents,
      routing_number: routing,
    })),
    cards: cards.map((c) => ({
      id: c.id,
      masked_number: c.masked_number,
      expiry_month: c.expiry_month,
      expiry_year: c.expiry_year,
      status: c.status,
      account_id: c.account_id,
    })),
    info_requests: requests.map((r) => ({
      id: r.id,
      message: r.message,
      requested_at: r.requested_at,
      status: r.status,
      answer_text: r.answer_text,
      answered_at: r.answered_at,
      has_answer_document: Boolean(r.answer_document_file),
    })),
    decisions: decisions.map((d) => ({
      ...d,
      identity_verification: (d.identity_verification as IdentityVerification | null) ?? null,
      decided_by_email: deciders.find((u) => u.id === d.decided_by)?.email ?? null,
    })),
    money_codes_locked_until: money_codes.locked_until,
    credit: await memberCredit(db, input.member_id),
  };
}

const EXTENSION_OF: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "application/pdf": "pdf",
};

/**
 * An applicant's ID document for staff (the current one, or the one sent with an answer to an
 * information request), with the view audited before the bytes leave.
 */
export async function readIdDocument(
  db: Db,
  input: { member_id: string; info_request_id?: number | null; staff: Actor; origin: AuditOrigin },
): Promise<{ bytes: Buffer; mime: string; filename: string } | null> {
  let file: string | null;
  let mime: string | null;
  if (input.info_request_id) {
    const [r] = await db
      .select({
        file: applicationInfoRequests.answer_document_file,
        mime: applicationInfoRequests.answer_document_mime,
      })
      .from(applicationInfoRequests)
      .where(
        and(
          eq(applicationInfoRequests.id, input.info_request_id),
          eq(applicationInfoRequests.user_id, input.member_id),
        ),
      );
    file = r?.file ?? null;
    mime = r?.mime ?? null;
  } else {
    const [p] = await db
      .select({ file: memberProfiles.id_document_file, mime: memberProfiles.id_document_mime })
      .from(memberProfiles)
      .where(eq(memberProfiles.user_id, input.member_id));
    file = p?.file ?? null;
    mime = p?.mime ?? null;
  }
  if (!file || !mime || !EXTENSION_OF[mime]) return null;
  let bytes: Buffer;
  try {
    bytes = await readPrivateUpload("id-documents", file);
  } catch {
    return null;
  }
  await recordAudit(db, {
    actor_id: input.staff.id,
    actor_email: input.staff.email,
    action: "member.id_document.view",
    subject_type: "member",
    subject_id: input.member_id,
    after: { info_request_id: input.info_request_id ?? null, mime, bytes: bytes.length },
    request_id: input.origin.request_id,
    ip: input.origin.ip,
  });
  return {
    bytes,
    mime,
    filename: `id-document-${input.member_id.slice(0, 8)}${input.info_request_id ? `-answer-${input.info_request_id}` : ""}.${EXTENSION_OF[mime]}`,
  };
}

/** Member emails for the one-time-code panel's look-up: an exact address to a user id. */
export async function findUserByEmail(
  db: Db,
  email: string,
): Promise<{ id: string; email: string; role: string | null } | null> {
  const [row] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(eq(users.email, email.trim().toLowerCase()));
  return row ?? null;
}
