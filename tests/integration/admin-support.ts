import "./identity-support";
import { CHECKLIST_ITEM_IDS, type Checklist } from "~/domain/application-review";
import type { Db } from "~/server/db/client.server";
import { applicant as makeApplicant, uniqueIp } from "../factories";
import { Browser } from "./identity-support";

/**
 * Shared fixtures for the back-office tests. The people come from tests/factories.ts (one
 * factory for every suite); these names stay for the tests that import them from here.
 */
export { applicationFor, person, uniqueIp, sessionCookie as signedIn } from "../factories";

/** An applicant with a stored application (role pending, status pending) and a signed-in browser. */
export function applicant(db: Db, overrides: Partial<Record<string, string>> = {}): Promise<{ id: string; email: string; browser: Browser }> {
  return makeApplicant(db, new Browser(uniqueIp()), overrides);
}

export function fullChecklist(): Checklist {
  return Object.fromEntries(CHECKLIST_ITEM_IDS.map((id) => [id, true])) as Checklist;
}

export function checklistWithout(missing: string): Checklist {
  return Object.fromEntries(CHECKLIST_ITEM_IDS.map((id) => [id, id !== missing])) as Checklist;
}

export const ORIGIN = { request_id: "test-request-0001", ip: "203.0.113.99" };
