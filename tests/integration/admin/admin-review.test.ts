import "../admin-support";
import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import {
  applicationDecisions,
  applicationInfoRequests,
  auditLog,
  debitCards,
  ledgerAccounts,
  memberProfiles,
  outbox,
  users,
} from "~/server/db/schema";
import { approveApplication, rejectApplication, requestInformation } from "~/server/admin/review.server";
import { createMemberByStaff, mustChangePassword, passwordChanged } from "~/server/admin/create-member.server";
import { directoryCounts, listDirectory, memberDetail, readIdDocument } from "~/server/admin/directory.server";
import { clearUsedCodes, codePanel, issueCodeForMember, removeCode } from "~/server/admin/code-panel.server";
import { consumeStaffCode } from "~/server/auth/staff-codes.server";
import { sessionUserFromCookie } from "~/server/auth/session.server";
import { recordAudit } from "~/server/audit/audit.server";
import { isLuhnValid } from "~/server/cards/cards.server";
import { decryptField } from "~/server/security/crypto.server";
import { institution } from "~/config/institution.server";
import { verifyLedger } from "~/server/ledger/verify.server";
import { listNotifications, unreadCount } from "~/server/notifications/notifications.server";
import { fileDatabase } from "../test-database";
import { applicant, checklistWithout, fullChecklist, IDENTITY_VERIFIED, ORIGIN, person } from "../admin-support";

let staff: { id: string; email: string };
const database = fileDatabase({ onOpen: async (opened) => void (staff = await person(opened.db, "admin")) });

async function auditFor(member_id: string) {
  return database.db.select().from(auditLog).where(eq(auditLog.member_id, member_id)).orderBy(auditLog.id);
}

describe("approve", () => {
  it("ends the session the applicant had while waiting: the banking app needs a real two-step sign-in", async () => {
    const a = await applicant(database.db);
    expect((await sessionUserFromCookie(database.db, a.browser.cookieHeader()))?.role).toBe("pending");
    const result = await approveApplication(database.db, {
      member_id: a.id,
      staff,
      checklist: fullChecklist(),
      identity: IDENTITY_VERIFIED,
      origin: ORIGIN,
    });
    expect(result.ok).toBe(true);
    expect(await sessionUserFromCookie(database.db, a.browser.cookieHeader())).toBeNull();
    const [row] = (await auditFor(a.id)).filter((r) => r.action === "application.approve");
    expect(row!.after).toMatchObject({ applicant_sessions_ended: 1 });
  });

  it("refuses while any checklist item is unticked, and changes nothing", async () => {
    const a = await applicant(database.db);
    const result = await approveApplication(database.db, {
      member_id: a.id,
      staff,
      checklist: checklistWithout("id_valid"),
      identity: IDENTITY_VERIFIED,
      origin: ORIGIN,
    });
    expect(result).toMatchObject({ ok: false, kind: "bad_input", code: "checklist_incomplete" });
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, a.id));
    expect(profile!.status).toBe("pending");
    expect(await database.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.member_id, a.id))).toHaveLength(0);
    expect(await auditFor(a.id)).toHaveLength(0);
  });

  it("approves: role user, Checking and Savings at zero with generated numbers, a debit card, a snapshot, an audit row with the checklist, an email", async () => {
    const a = await applicant(database.db);
    const result = await approveApplication(database.db, {
      member_id: a.id,
      staff,
      checklist: fullChecklist(),
      identity: IDENTITY_VERIFIED,
      origin: ORIGIN,
    });
    expect(result.ok).toBe(true);
    const [user] = await database.db.select().from(users).where(eq(users.id, a.id));
    expect(user!.role).toBe("user");
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, a.id));
    expect(profile).toMatchObject({ status: "approved", document_status: "verified", decided_by: staff.id });
    const accounts = await database.db
      .select()
      .from(ledgerAccounts)
      .where(eq(ledgerAccounts.member_id, a.id))
      .orderBy(ledgerAccounts.id);
    expect(accounts.map((x) => x.type)).toEqual(["checking", "savings"]);
    for (const account of accounts) {
      expect(account.account_number).toMatch(/^[1-9]\d{9}$/);
      expect(Number(account.posted_cents)).toBe(0);
      expect(account.status).toBe("active");
    }
    const [card] = await database.db.select().from(debitCards).where(eq(debitCards.member_id, a.id));
    expect(Number(card!.account_id)).toBe(accounts[0]!.id);
    expect(card!.status).toBe("active");
    expect(card!.masked_number).toBe(`•••• ${card!.last4}`);
    const number = decryptField(card!.card_number_enc, `debit_cards.card_number:${a.id}`);
    expect(isLuhnValid(number)).toBe(true);
    expect(number.endsWith(card!.last4)).toBe(true);
    expect(card!.card_number_enc).not.toContain(number);

    const [decision] = await database.db
      .select()
      .from(applicationDecisions)
      .where(eq(applicationDecisions.user_id, a.id));
    expect(decision!.decision).toBe("approved");
    expect(decision!.snapshot).toMatchObject({
      email: a.email,
      first_name: "Jamie",
      id_number_masked: expect.stringMatching(/•+7890$/),
    });
    expect(JSON.stringify(decision!.snapshot)).not.toContain("P1234567890");

    const rows = await auditFor(a.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor_id: staff.id,
      action: "application.approve",
      subject_type: "member",
      subject_id: a.id,
      request_id: ORIGIN.request_id,
      ip: ORIGIN.ip,
    });
    expect(rows[0]!.before).toMatchObject({ status: "pending", role: "pending" });
    expect(rows[0]!.after).toMatchObject({
      status: "approved",
      role: "user",
      checklist: fullChecklist(),
      routing_number: institution().routing_number,
    });

    const mail = await database.db.select().from(outbox).where(eq(outbox.to_email, a.email)).orderBy(outbox.id);
    expect(mail.map((m) => m.kind)).toEqual(["application_received", "application_approved"]);
    expect(mail[1]!.text_body).toContain("approved");

    const detail = await memberDetail(database.db, { member_id: a.id });
    expect(detail!.accounts.every((x) => x.routing_number === institution().routing_number)).toBe(true);
    expect(detail!.cards).toHaveLength(1);
    expect((await verifyLedger(database.db)).ok ?? true).toBeTruthy();
  });

  it("a second decision on the same application is refused (two staff at once: one wins)", async () => {
    const a = await applicant(database.db);
    const [first, second] = await Promise.all([
      approveApplication(database.db, {
        member_id: a.id,
        staff,
        checklist: fullChecklist(),
        identity: IDENTITY_VERIFIED,
        origin: ORIGIN,
      }),
      rejectApplication(database.db, {
        member_id: a.id,
        staff,
        checklist: fullChecklist(),
        reason: "Duplicate",
        origin: ORIGIN,
      }),
    ]);
    const statuses = [first.ok ? "done" : first.code, second.ok ? "done" : second.code].sort();
    expect(statuses).toEqual(["already_decided", "done"]);
    expect(
      await database.db.select().from(applicationDecisions).where(eq(applicationDecisions.user_id, a.id)),
    ).toHaveLength(1);
    expect(await auditFor(a.id)).toHaveLength(1);
    // Only the winning decision writes to the bell (one notification when approve won, none otherwise).
    const bell = await listNotifications(database.db, a.id);
    expect(bell).toHaveLength(first.ok ? 1 : 0);
  });

  it("the new member's bell gets the decision: one unread notification naming the accounts (masked) and the card", async () => {
    const a = await applicant(database.db);
    const now = new Date("2026-11-22T15:30:00Z");
    const result = await approveApplication(database.db, {
      member_id: a.id,
      staff,
      checklist: fullChecklist(),
      identity: IDENTITY_VERIFIED,
      origin: ORIGIN,
      now,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(await unreadCount(database.db, a.id)).toBe(1);
    const [note] = await listNotifications(database.db, a.id);
    expect(note).toMatchObject({
      kind: "application_decision",
      title: "Your membership is approved",
      read: false,
      created_at: now,
    });
    for (const account of result.accounts) {
      expect(note!.body).toContain(`•••• ${account.account_number.slice(-4)}`);
      expect(note!.body).not.toContain(account.account_number);
    }
    expect(note!.body).toContain(result.card.masked_number);
  });

  it("the notification is written in the decision's transaction: when it cannot be written, nothing of the approval remains", async () => {
    const a = await applicant(database.db);
    // A trigger that refuses this member's notification makes the last write of the approval fail.
    await database.db.execute(
      sql.raw(
        `create or replace function refuse_test_notification() returns trigger language plpgsql as $$ begin if new.member_id = '${a.id}' then raise exception 'refused by the test'; end if; return new; end $$`,
      ),
    );
    await database.db.execute(
      sql.raw(
        `create trigger refuse_test_notification before insert on notifications for each row execute function refuse_test_notification()`,
      ),
    );
    try {
      await expect(
        approveApplication(database.db, {
          member_id: a.id,
          staff,
          checklist: fullChecklist(),
          identity: IDENTITY_VERIFIED,
          origin: ORIGIN,
        }),
      ).rejects.toThrow();
    } finally {
      await database.db.execute(sql.raw(`drop trigger refuse_test_notification on notifications`));
      await database.db.execute(sql.raw(`drop function refuse_test_notification()`));
    }
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, a.id));
    expect(profile!.status).toBe("pending");
    const [user] = await database.db.select().from(users).where(eq(users.id, a.id));
    expect(user!.role).toBe("pending");
    expect(await database.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.member_id, a.id))).toHaveLength(0);
    expect(
      await database.db.select().from(applicationDecisions).where(eq(applicationDecisions.user_id, a.id)),
    ).toHaveLength(0);
    expect(await auditFor(a.id)).toHaveLength(0);
    expect(await listNotifications(database.db, a.id)).toHaveLength(0);
    // And it can be approved afterwards.
    expect(
      (
        await approveApplication(database.db, {
          member_id: a.id,
          staff,
          checklist: fullChecklist(),
          identity: IDENTITY_VERIFIED,
          origin: ORIGIN,
        })
      ).ok,
    ).toBe(true);
    expect(await unreadCount(database.db, a.id)).toBe(1);
  });
});

describe("reject and request info", () => {
  it("rejects with a reason: status, reason and time stored, a snapshot, the audit row, an email with the reason", async () => {
    const a = await applicant(database.db);
    const result = await rejectApplication(database.db, {
      member_id: a.id,
      staff,
      checklist: checklistWithout("id_clear"),
      reason: "The ID document has expired.",
      origin: ORIGIN,
    });
    expect(result.ok).toBe(true);
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, a.id));
    expect(profile).toMatchObject({ status: "rejected", rejection_reason: "The ID document has expired." });
    expect(profile!.decided_at).toBeInstanceOf(Date);
    const [user] = await database.db.select().from(users).where(eq(users.id, a.id));
    expect(user!.role).toBe("pending");
    expect(await database.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.member_id, a.id))).toHaveLength(0);
    const rows = await auditFor(a.id);
    expect(rows[0]).toMatchObject({ action: "application.reject" });
    expect((rows[0]!.after as { checklist: Record<string, boolean> }).checklist.id_clear).toBe(false);
    const [mail] = await database.db
      .select()
      .from(outbox)
      .where(eq(outbox.to_email, a.email))
      .orderBy(sql`${outbox.id} desc`)
      .limit(1);
    expect(mail).toMatchObject({ kind: "application_rejected" });
    expect(mail!.text_body).toContain("The ID document has expired.");
    // A rejected applicant never reaches the member app: the email and /not-approved carry it, no bell entry.
    expect(await listNotifications(database.db, a.id)).toHaveLength(0);
    await expect(
      rejectApplication(database.db, {
        member_id: a.id,
        staff,
        checklist: fullChecklist(),
        reason: "  ",
        origin: ORIGIN,
      }),
    ).rejects.toThrow();
  });

  it("requests information: document status info_requested, a pending request, audit and email; the application stays pending", async () => {
    const a = await applicant(database.db);
    const result = await requestInformation(database.db, {
      member_id: a.id,
      staff,
      checklist: checklistWithout("id_clear"),
      message: "Please send a sharper photo.",
      origin: ORIGIN,
    });
    expect(result.ok).toBe(true);
    const [profile] = await database.db.select().from(memberProfiles).where(eq(memberProfiles.user_id, a.id));
    expect(profile).toMatchObject({ status: "pending", document_status: "info_requested" });
    const requests = await database.db
      .select()
      .from(applicationInfoRequests)
      .where(eq(applicationInfoRequests.user_id, a.id));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      status: "pending",
      message: "Please send a sharper photo.",
      requested_by: staff.id,
    });
    expect((await auditFor(a.id))[0]).toMatchObject({ action: "application.request_info" });
    const [mail] = await database.db
      .select()
      .from(outbox)
      .where(eq(outbox.to_email, a.email))
      .orderBy(sql`${outbox.id} desc`)
      .limit(1);
    expect(mail).toMatchObject({ kind: "info_requested" });
    expect(await listNotifications(database.db, a.id)).toHaveLength(0);
    // Still reviewable: approve afterwards works.
    expect(
      (
        await approveApplication(database.db, {
          member_id: a.id,
          staff,
          checklist: fullChecklist(),
          identity: IDENTITY_VERIFIED,
          origin: ORIGIN,
        })
      ).ok,
    ).toBe(true);
  });
});

describe("the audit log is append-only in the database", () => {
  it("refuses UPDATE and DELETE, for any caller", async () => {
    const { id } = await recordAudit(database.db, {
      actor_id: staff.id,
      action: "test.append_only",
      subject_type: "member",
      subject_id: staff.id,
      after: { ok: true },
    });
    const [row] = await database.db.select().from(auditLog).where(eq(auditLog.id, id));
    const refusal = async (statement: ReturnType<typeof sql>) => {
      const error = await database.db.execute(statement).then(
        () => null,
        (e: unknown) => e as { message: string; cause?: { message?: string } },
      );
      return `${error?.message ?? ""} ${error?.cause?.message ?? ""}`;
    };
    expect(await refusal(sql`update audit_log set action = 'forged' where id = ${row!.id}`)).toMatch(
      /audit_log is append-only: UPDATE refused/,
    );
    expect(await refusal(sql`delete from audit_log where id = ${row!.id}`)).toMatch(
      /audit_log is append-only: DELETE refused/,
    );
    expect(await refusal(sql`delete from application_decisions`)).toMatch(
      /application_decisions is append-only: DELETE refused/,
    );
    const [again] = await database.db.select().from(auditLog).where(eq(auditLog.id, row!.id));
    expect(again!.action).toBe(row!.action);
  });
});

describe("directory", () => {
  it("counts tabs, searches by name, email and account number, and pages", async () => {
    const before = await directoryCounts(database.db);
    const a = await applicant(database.db, { first_name: "Quentin", last_name: "Zephyrson" });
    await approveApplication(database.db, {
      member_id: a.id,
      staff,
      checklist: fullChecklist(),
      identity: IDENTITY_VERIFIED,
      origin: ORIGIN,
    });
    const after = await directoryCounts(database.db);
    expect(after.approved).toBe(before.approved + 1);
    expect(after.all).toBe(before.all + 1);
    expect(after.all).toBe(after.pending + after.approved + after.rejected);

    const byName = await listDirectory(database.db, { tab: "all", query: "quentin zeph" });
    expect(byName.items.map((i) => i.user_id)).toEqual([a.id]);
    const byLast = await listDirectory(database.db, { tab: "approved", query: "Zephyr" });
    expect(byLast.items.map((i) => i.user_id)).toEqual([a.id]);
    expect((await listDirectory(database.db, { tab: "pending", query: "Zephyr" })).items).toHaveLength(0);
    const byEmail = await listDirectory(database.db, { tab: "all", query: a.email.toUpperCase() });
    expect(byEmail.items.map((i) => i.user_id)).toEqual([a.id]);
    const detail = await memberDetail(database.db, { member_id: a.id });
    const number = detail!.accounts[0]!.account_number;
    const byAccount = await listDirectory(database.db, {
      tab: "all",
      query: `${number.slice(0, 3)} ${number.slice(3, 6)} ${number.slice(6)}`,
    });
    expect(byAccount.items.map((i) => i.user_id)).toEqual([a.id]);
    // LIKE wildcards are text, not patterns.
    expect((await listDirectory(database.db, { tab: "all", query: "%" })).items).toHaveLength(0);

    const page1 = await listDirectory(database.db, { tab: "all", page: 1, counts: after });
    expect(page1.total).toBe(after.all);
    expect(page1.items.length).toBeLessThanOrEqual(page1.page_size);
  });

  it("masks personal numbers unless revealed, and a reveal or a document view is audited", async () => {
    const a = await applicant(database.db);
    const masked = await memberDetail(database.db, { member_id: a.id });
    expect(masked!.profile.date_of_birth).toBe("••/••/1988");
    expect(masked!.profile.id_number).toMatch(/^•+7890$/);
    expect(await auditFor(a.id)).toHaveLength(0);
    const clear = await memberDetail(database.db, { member_id: a.id, reveal: { staff, origin: ORIGIN } });
    expect(clear!.profile).toMatchObject({ date_of_birth: "1988-04-17", id_number: "P1234567890" });
    const document = await readIdDocument(database.db, { member_id: a.id, staff, origin: ORIGIN });
    expect(document!.mime).toBe("image/png");
    expect(document!.filename).toMatch(/\.png$/);
    expect((await auditFor(a.id)).map((r) => r.action)).toEqual([
      "member.personal_data.view",
      "member.id_document.view",
    ]);
  });
});

describe("create member", () => {
  const input = (email: string, role: "user" | "admin" | "reviewer" = "user") => ({
    email,
    password: "Temporary harbor pass 9",
    first_name: "Robin",
    last_name: "Staffmade",
    phone: "(555) 010-7777",
    street: "1 Dock Road",
    city: "Portsmouth",
    state: "NH",
    postal_code: "03801",
    role,
    joint_account: false,
  });

  it("creates an active member with Checking, Savings, a card, a temporary password; audited; staff stay signed in as themselves", async () => {
    const email = `created-${Date.now()}@example.com`;
    const result = await createMemberByStaff(database.db, { staff, member: input(email), origin: ORIGIN });
    expect(result.status).toBe("created");
    if (result.status !== "created") return;
    const [user] = await database.db.select().from(users).where(eq(users.id, result.user_id));
    expect(user!.role).toBe("user");
    expect(result.account_numbers).toHaveLength(2);
    expect(await database.db.select().from(debitCards).where(eq(debitCards.member_id, result.user_id))).toHaveLength(1);
    expect(await mustChangePassword(database.db, result.user_id)).toBe(true);
    await passwordChanged(database.db, result.user_id);
    expect(await mustChangePassword(database.db, result.user_id)).toBe(false);
    const rows = await auditFor(result.user_id);
    expect(rows[0]).toMatchObject({ action: "member.create", actor_id: staff.id });
    expect(JSON.stringify(rows[0]!.after)).not.toContain("Temporary harbor pass 9");
    // No session was created for the new member.
    const sessions = await database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from sessions where user_id = ${result.user_id}`,
    );
    expect(sessions.rows[0]!.n).toBe(0);
    expect(await createMemberByStaff(database.db, { staff, member: input(email), origin: ORIGIN })).toEqual({
      status: "email_taken",
    });
  });

  it("never creates a staff or reviewer account: a staff role is a request another admin approves (docs/product.md#staff-role-grants)", async () => {
    for (const role of ["admin", "reviewer"] as const) {
      const email = `staff-${role}-${Date.now()}@example.com`;
      const result = await createMemberByStaff(database.db, { staff, member: input(email, role), origin: ORIGIN });
      expect(result.status, role).toBe("failed");
      const rows = await database.db.execute<{ n: number }>(
        sql`select count(*)::int as n from users where email = ${email}`,
      );
      expect(rows.rows[0]!.n, role).toBe(0);
    }
  });
});

describe("one-time-code panel", () => {
  it("issues (typed or generated), lists masked, removes, clears the used list; all audited, never the code", async () => {
    const member = await person(database.db, "user");
    expect(
      await issueCodeForMember(database.db, { staff, member_email: member.email, code: "12ab56", origin: ORIGIN }),
    ).toEqual({
      status: "invalid_code",
      message: "Invalid OTP format. Please enter a 6-digit number.",
    });
    expect(
      (await issueCodeForMember(database.db, { staff, member_email: "nobody@example.com", origin: ORIGIN })).status,
    ).toBe("member_not_found");
    expect((await issueCodeForMember(database.db, { staff, member_email: staff.email, origin: ORIGIN })).status).toBe(
      "not_a_member",
    );
    const issued = await issueCodeForMember(database.db, {
      staff,
      member_email: member.email,
      code: "246810",
      origin: ORIGIN,
    });
    expect(issued).toMatchObject({ status: "issued", code: "246810" });
    let panel = await codePanel(database.db, staff.id);
    expect(panel.valid.some((c) => c.member_email === member.email)).toBe(true);
    expect(JSON.stringify(panel)).not.toContain("246810");
    expect(await consumeStaffCode(database.db, { user_id: member.id, code: "246810" })).toBe(true);
    panel = await codePanel(database.db, staff.id);
    expect(panel.used.some((c) => c.member_email === member.email)).toBe(true);
    await clearUsedCodes(database.db, { staff, origin: ORIGIN });
    panel = await codePanel(database.db, staff.id);
    expect(panel.used).toHaveLength(0);
    const second = await issueCodeForMember(database.db, { staff, member_email: member.email, origin: ORIGIN });
    expect(second.status === "issued" && /^\d{6}$/.test(second.code)).toBe(true);
    const id = (await codePanel(database.db, staff.id)).valid.find((c) => c.member_email === member.email)!.id;
    expect(await removeCode(database.db, { staff, code_id: id, origin: ORIGIN })).toBe(true);
    expect(await removeCode(database.db, { staff, code_id: id, origin: ORIGIN })).toBe(false);
    const rows = await database.db
      .select()
      .from(auditLog)
      .where(sql`${auditLog.action} like 'staff_code.%'`)
      .orderBy(auditLog.id);
    expect(rows.map((r) => r.action)).toEqual([
      "staff_code.issue",
      "staff_code.clear_used",
      "staff_code.issue",
      "staff_code.remove",
    ]);
    expect(JSON.stringify(rows)).not.toContain("246810");
  });
});
