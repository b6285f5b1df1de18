import "./identity-support";
import { CHECKLIST_ITEM_IDS, type Checklist } from "~/domain/application-review";
import type { IdentityVerification } from "~/domain/taxpayer-id";
import type { Db } from "~/server/db/client.server";
import { applicant as makeApplicant, uniqueIp } from "../factories";
import { Browser } from "./identity-support";
import crypto from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import { outbox } from "~/server/db/schema";
import { approveStaffGrant, requestNewStaff } from "~/server/admin/staff-grants.server";

/**
 * Shared fixtures for the back-office tests. The people come from tests/factories.ts (one
 * factory for every suite); these names stay for the tests that import them from here.
 */
export { applicationFor, person, uniqueIp, sessionCookie as signedIn } from "../factories";

/** An applicant with a stored application (role pending, status pending) and a signed-in browser. */
export function applicant(
  db: Db,
  overrides: Partial<Record<string, string>> = {},
): Promise<{ id: string; email: string; browser: Browser }> {
  return makeApplicant(db, new Browser(uniqueIp()), overrides);
}

export function fullChecklist(): Checklist {
  return Object.fromEntries(CHECKLIST_ITEM_IDS.map((id) => [id, true])) as Checklist;
}

export function checklistWithout(missing: string): Checklist {
  return Object.fromEntries(CHECKLIST_ITEM_IDS.map((id) => [id, id !== missing])) as Checklist;
}

/** How staff verified an applicant's identity, as an approval must record it (31 CFR 1020.220(a)(3)). */
export const IDENTITY_VERIFIED: IdentityVerification = { method: "documentary", discrepancy: null };

export const ORIGIN = { request_id: "test-request-0001", ip: "203.0.113.99" };

/** The one-time set-up link a new staff account was emailed (its token), from the outbox. */
export async function setUpTokenFor(db: Db, email: string): Promise<string | null> {
  const rows = await db
    .select({ text: outbox.text_body })
    .from(outbox)
    .where(and(eq(outbox.to_email, email), eq(outbox.kind, "password_reset")))
    .orderBy(desc(outbox.id))
    .limit(1);
  return /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(rows[0]?.text ?? "")?.[1] ?? null;
}

/**
 * A staff or reviewer account made the only way there is (docs/product.md#staff-role-grants):
 * one admin asks, another approves. Returns the new account and its set-up link's token.
 */
export async function staffThroughGrant(
  db: Db,
  input: {
    role: "admin" | "reviewer";
    requester: { id: string; email: string };
    approver: { id: string; email: string };
    email?: string;
  },
): Promise<{ id: string; email: string; token: string }> {
  const email = input.email ?? `granted-${input.role}-${crypto.randomBytes(4).toString("hex")}@example.com`;
  const profile = {
    first_name: "Granted",
    last_name: input.role === "admin" ? "Staff" : "Reviewer",
    street: "1 Road",
    city: "Dover",
    state: "NH",
    postal_code: "03820",
    phone: "(555) 010-0000",
  };
  const requested = await requestNewStaff(db, {
    requester: { kind: "staff", staff: input.requester },
    email,
    role: input.role,
    profile,
    origin: ORIGIN,
  });
  if (!requested.ok) throw new Error(`grant not requested: ${requested.code}`);
  const approved = await approveStaffGrant(db, { staff: input.approver, grant_id: requested.grant_id, origin: ORIGIN });
  if (!approved.ok || approved.decision !== "approved")
    throw new Error(`grant not approved: ${approved.ok ? approved.decision : approved.code}`);
  const token = await setUpTokenFor(db, email);
  if (!token) throw new Error("no set-up link was emailed");
  return { id: approved.user_id, email, token };
}
