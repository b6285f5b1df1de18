import "./identity-support";
import { eq } from "drizzle-orm";
import { serializeSignedCookie } from "better-call";
import { applicationSchema, type Application } from "~/domain/membership-application";
import { CHECKLIST_ITEM_IDS, type Checklist } from "~/domain/application-review";
import type { Db } from "~/server/db/client.server";
import { sessions, users } from "~/server/db/schema";
import { authFor } from "~/server/auth/auth.server";
import { submitApplication } from "~/server/members/applications.server";
import { Browser, fileOf, tinyPng } from "./identity-support";

/** Shared fixtures for the back-office tests: applicants (through the real form service) and staff. */
let counter = 0;
const PASSWORD = "Harbor lights at dusk 7";

export function uniqueIp(): string {
  counter += 1;
  return `198.51.100.${(counter % 250) + 1}`;
}

export function applicationFor(overrides: Partial<Record<string, string>> = {}): Application {
  counter += 1;
  const form = {
    email: `applicant${counter}-${Date.now()}@example.com`,
    password: PASSWORD,
    confirm_password: PASSWORD,
    first_name: "Jamie",
    last_name: `Rivera${counter}`,
    date_of_birth: "1988-04-17",
    nationality: "American",
    marital_status: "single",
    street: "12 Elm Street",
    city: "Portsmouth",
    state: "NH",
    postal_code: "03801",
    country: "United States",
    phone: "(555) 010-1234",
    alt_email: "",
    emergency_name: "Casey Rivera",
    emergency_relationship: "Sister",
    emergency_phone: "(555) 010-9876",
    id_type: "passport",
    id_number: "P1234567890",
    ...overrides,
  };
  const parsed = applicationSchema(new Date("2026-11-22T12:00:00Z")).safeParse(form);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return parsed.data;
}

/** An applicant with a stored application (role pending, status pending) and a signed-in browser. */
export async function applicant(db: Db, overrides: Partial<Record<string, string>> = {}): Promise<{ id: string; email: string; browser: Browser }> {
  const browser = new Browser(uniqueIp());
  const app = applicationFor(overrides);
  const result = await submitApplication(db, browser.meta(), app, fileOf(tinyPng(), "id.png", "image/png"));
  if (result.status !== "created") throw new Error(`application not created: ${result.status}`);
  browser.apply(result.set_cookies);
  return { id: result.user_id, email: app.email, browser };
}

/** A user of the given role, signed out. */
export async function person(db: Db, role: "admin" | "user" | "pending"): Promise<{ id: string; email: string }> {
  counter += 1;
  const email = `${role}${counter}-${Date.now()}@example.com`;
  const result = await authFor(db).api.signUpEmail({ body: { email, password: PASSWORD, name: `${role} ${counter}` } });
  await db.update(users).set({ role }).where(eq(users.id, result.user.id));
  await db.delete(sessions).where(eq(sessions.userId, result.user.id));
  return { id: result.user.id, email };
}

/**
 * A signed-in browser for a user, without going through the two-step sign-in (that is the
 * identity tests' subject): a session created the way Better Auth creates one, with its signed
 * cookie.
 */
export async function signedIn(db: Db, user_id: string): Promise<string> {
  const auth = authFor(db);
  const context = await auth.$context;
  const session = await context.internalAdapter.createSession(user_id, false);
  const cookie = await serializeSignedCookie(context.authCookies.sessionToken.name, session.token, context.secret);
  return cookie.split(";")[0]!;
}

export function fullChecklist(): Checklist {
  return Object.fromEntries(CHECKLIST_ITEM_IDS.map((id) => [id, true])) as Checklist;
}

export function checklistWithout(missing: string): Checklist {
  return Object.fromEntries(CHECKLIST_ITEM_IDS.map((id) => [id, id !== missing])) as Checklist;
}

export const ORIGIN = { request_id: "test-request-0001", ip: "203.0.113.99" };
