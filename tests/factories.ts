import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { serializeSignedCookie } from "better-call";
import { applicationSchema, type Application } from "~/domain/membership-application";
import type { Db } from "~/server/db/client.server";
import { memberProfiles, sessions, users } from "~/server/db/schema";
import { authFor } from "~/server/auth/auth.server";
import type { RequestMeta } from "~/server/auth/request-meta.server";
import { submitApplication } from "~/server/applications/applications.server";
import { encryptField } from "~/server/security/crypto.server";
import { encryptionContext } from "~/server/members/members.server";
import { openMember } from "./integration/ledger-fixtures";
import { applicationAnswers } from "./application-answers";

/**
 * The people integration tests need, made through the application's own services: applicants
 * (through the membership form's service), members (with a profile and funded accounts, or with a
 * password to sign in with) and staff. Each is new, so tests never depend on one another.
 *
 * The environment (secrets, DATA_DIR) is set by the suite's support files
 * (integration/identity-support.ts, integration/member-support.ts) before anything reads it.
 */
export const FACTORY_PASSWORD = "Harbor lights at dusk 7";

let counter = 0;
function next(): number {
  counter += 1;
  return counter;
}

/** A network address of its own, from the documentation range 198.51.100.0/24. */
export function uniqueIp(): string {
  return `198.51.100.${(next() % 250) + 1}`;
}

export type Role = "admin" | "user" | "pending" | "reviewer" | "accountant";

export interface PersonOptions {
  email?: string;
  password?: string;
  name?: string;
  /** An approved member profile and two-factor on, as the back office leaves a member or staff. */
  profile?: { first_name: string; last_name: string; source?: "application" | "staff"; created_at?: Date };
}

/**
 * A person with a password and a role, signed out (signing up signs in; the session is removed),
 * as staff or the sign-up form would leave them. Staff are `person(db, "admin")`.
 */
export async function person(
  db: Db,
  role: Role,
  options: PersonOptions = {},
): Promise<{ id: string; email: string; role: Role }> {
  const n = next();
  const email = options.email ?? `${role}${n}-${Date.now()}@example.com`;
  const result = await authFor(db).api.signUpEmail({
    body: { email, password: options.password ?? FACTORY_PASSWORD, name: options.name ?? `${role} ${n}` },
  });
  await db
    .update(users)
    .set(options.profile ? { role, twoFactorEnabled: true } : { role })
    .where(eq(users.id, result.user.id));
  await db.delete(sessions).where(eq(sessions.userId, result.user.id));
  if (options.profile)
    await db.insert(memberProfiles).values({ user_id: result.user.id, ...options.profile, status: "approved" });
  return { id: result.user.id, email, role };
}

/** Staff (role admin), signed out. */
export function staff(db: Db, options: PersonOptions = {}) {
  return person(db, "admin", options);
}

/** The membership form's answers, valid, with a fresh email; `overrides` change any field. */
export function applicationFor(overrides: Partial<Record<string, string>> = {}): Application {
  const n = next();
  const form = applicationAnswers(`applicant${n}-${Date.now()}@example.com`, FACTORY_PASSWORD, {
    last_name: `Rivera${n}`,
    ...overrides,
  });
  const parsed = applicationSchema(new Date("2026-11-22T12:00:00Z")).safeParse(form);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return parsed.data;
}

/** What an applicant's browser needs from the factory: its request meta and its cookies. */
export interface ApplicantBrowser {
  meta(): RequestMeta;
  apply(set_cookies: readonly string[]): void;
}

/**
 * An applicant with a stored application (role pending, status pending), signed in in `browser`,
 * through the membership form's service with a real 1×1 PNG as the ID document.
 */
export async function applicant<B extends ApplicantBrowser>(
  db: Db,
  browser: B,
  overrides: Partial<Record<string, string>> = {},
): Promise<{ id: string; email: string; browser: B }> {
  const app = applicationFor(overrides);
  const result = await submitApplication(
    db,
    browser.meta(),
    app,
    new File([tinyPng()], "id.png", { type: "image/png" }),
  );
  if (result.status !== "created") throw new Error(`application not created: ${result.status}`);
  browser.apply(result.set_cookies);
  return { id: result.user_id, email: app.email, browser };
}

/**
 * An approved member with a profile and a funded checking and savings account (through the
 * ledger), without a password: for the member-app and payments services.
 */
export async function fundedMember(
  db: Db,
  options: {
    first_name?: string;
    last_name?: string;
    checking_cents?: number;
    savings_cents?: number;
    joint_name?: string;
    /** YYYY-MM-DD; screening compares it with a listed person's. */
    date_of_birth?: string;
  } = {},
) {
  const id = `user-${crypto.randomBytes(6).toString("hex")}`;
  const first_name = options.first_name ?? "Pat";
  const last_name = options.last_name ?? `Member${id.slice(-4)}`;
  const name = `${first_name} ${last_name}`;
  const email = `${id}@members.example`;
  await db.insert(users).values({ id, name, email, role: "user", emailVerified: true });
  await db.insert(memberProfiles).values({
    user_id: id,
    first_name,
    last_name,
    // Sealed as the application seals them, so the data-key rotation can read every test member too.
    date_of_birth_enc: encryptField(options.date_of_birth ?? "1990-04-12", encryptionContext("date_of_birth", id)),
    street: "1 Main Street",
    city: "Portsmouth",
    state: "NH",
    postal_code: "03801",
    country: "United States",
    phone: "(555) 010-0000",
    emergency_name: "E",
    emergency_relationship: "Friend",
    emergency_phone: "(555) 010-0001",
    id_type: "passport",
    id_number_enc: encryptField("X1234567", encryptionContext("id_number", id)),
    joint_account: Boolean(options.joint_name),
    joint_name: options.joint_name ?? null,
    joint_email: options.joint_name ? `joint-${id}@members.example` : null,
    joint_phone: options.joint_name ? "(555) 010-0002" : null,
    status: "approved",
  } as typeof memberProfiles.$inferInsert);
  const accounts = await openMember(db, {
    member_id: id,
    checking_cents: options.checking_cents,
    savings_cents: options.savings_cents,
  });
  return { member: { id, email, name }, ...accounts };
}

/**
 * A session cookie for a user, without the two-step sign-in (that is the identity tests'
 * subject): a session created the way Better Auth creates one, with its signed cookie.
 */
export async function sessionCookie(db: Db, user_id: string): Promise<string> {
  const auth = authFor(db);
  const context = await auth.$context;
  const session = await context.internalAdapter.createSession(user_id, false);
  const cookie = await serializeSignedCookie(context.authCookies.sessionToken.name, session.token, context.secret);
  return cookie.split(";")[0]!;
}

/** A valid 1×1 PNG, made without any image library. */
export function tinyPng(): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(
    Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    ),
  );
}
