import "../admin-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "~/server/db/client.server";
import {
  exportAuditCsv,
  listAudit,
  recordAudit,
  recordSecurityEvent,
  AuditActionError,
} from "~/server/audit/audit.server";
import { openTestDatabase } from "../test-database";
import { person } from "../admin-support";

let database: Database;
let staff: { id: string; email: string };
let member: { id: string; email: string };
beforeAll(async () => {
  database = await openTestDatabase();
  staff = await person(database.db, "admin");
  member = await person(database.db, "user");
  const day = (d: string) => new Date(`${d}T12:00:00Z`);
  await recordAudit(database.db, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "application.approve",
    subject_type: "member",
    subject_id: member.id,
    before: { status: "pending" },
    after: { status: "approved", checklist: { id_valid: true } },
    request_id: "req-1",
    ip: "203.0.113.1",
    at: day("2026-11-01"),
  });
  await recordAudit(database.db, {
    actor_id: staff.id,
    actor_email: staff.email,
    action: "staff_code.issue",
    subject_type: "staff_code",
    subject_id: 7,
    member_id: member.id,
    at: day("2026-11-10"),
  });
  await recordSecurityEvent(database.db, {
    action: "auth.sign_in",
    user_id: member.id,
    email: member.email,
    detail: { method: "email" },
    request_id: "req-3",
    ip: "198.51.100.3",
  });
  await recordSecurityEvent(database.db, {
    action: "auth.lockout",
    email: "someone@example.com",
    detail: { failures: 5 },
    ip: "198.51.100.4",
  });
});
afterAll(async () => {
  await database?.close();
});

describe("audit log", () => {
  it("keeps who, what, subject, before and after, request id and IP", async () => {
    const { items } = await listAudit(database.db, {});
    expect(items.map((i) => i.action)).toEqual([
      "auth.lockout",
      "auth.sign_in",
      "staff_code.issue",
      "application.approve",
    ]);
    const approval = items.find((i) => i.action === "application.approve")!;
    expect(approval).toMatchObject({
      actor_id: staff.id,
      actor_email: staff.email,
      subject_type: "member",
      subject_id: member.id,
      member_id: member.id,
      member_email: member.email,
      request_id: "req-1",
      ip: "203.0.113.1",
    });
    expect(approval.before).toEqual({ status: "pending" });
    expect(items.find((i) => i.action === "auth.lockout")).toMatchObject({
      actor_id: null,
      subject_type: "email",
      subject_id: "someone@example.com",
    });
  });

  it("filters by actor, member, action (exact or prefix) and date", async () => {
    const actions = async (filter: Parameters<typeof listAudit>[1]) =>
      (await listAudit(database.db, filter)).items.map((i) => i.action);
    expect(await actions({ actor: staff.email.slice(0, 6) })).toEqual(["staff_code.issue", "application.approve"]);
    expect(await actions({ actor: staff.id })).toEqual(["staff_code.issue", "application.approve"]);
    expect(await actions({ member: member.email })).toEqual([
      "auth.sign_in",
      "staff_code.issue",
      "application.approve",
    ]);
    expect(await actions({ member: "nobody@example.com" })).toEqual([]);
    expect(await actions({ action: "auth." })).toEqual(["auth.lockout", "auth.sign_in"]);
    expect(await actions({ action: "application.approve" })).toEqual(["application.approve"]);
    expect(await actions({ from: "2026-11-05", to: "2026-11-10" })).toEqual(["staff_code.issue"]);
    expect(await actions({ actor: "%" })).toEqual([]);
  });

  it("pages newest first by id", async () => {
    const first = await listAudit(database.db, {}, { limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.next_before_id).toBe(first.items[2]!.id);
    const second = await listAudit(database.db, {}, { limit: 3, before_id: first.next_before_id });
    expect(second.items.map((i) => i.action)).toEqual(["application.approve"]);
    expect(second.next_before_id).toBeNull();
  });

  it("exports the filtered rows as CSV", async () => {
    const { csv, rows } = await exportAuditCsv(database.db, { action: "application." });
    expect(rows).toBe(1);
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toBe(
      "id,time,actor_id,actor_email,action,subject_type,subject_id,member_id,member_email,before,after,request_id,ip",
    );
    expect(lines[1]).toContain(",application.approve,member,");
    expect(lines[1]).toContain('"{""status"":""approved"",""checklist"":{""id_valid"":true}}"');
  });

  it("refuses a malformed action name", async () => {
    await expect(recordAudit(database.db, { actor_id: null, action: "Drop Table" })).rejects.toBeInstanceOf(
      AuditActionError,
    );
  });
});
