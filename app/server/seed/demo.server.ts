import { count, inArray } from "drizzle-orm";
import type { Database, Db } from "~/server/db/client.server";
import { seedConsent } from "~/server/electronic-delivery/electronic-delivery.server";
import { applicationInfoRequests, memberProfiles, memberSettings, users } from "~/server/db/schema";
import { authFor, hashPassword } from "~/server/auth/auth.server";
import { encryptField } from "~/server/security/crypto.server";
import { encryptionContext } from "~/server/members/members.server";
import { storeTaxpayerId } from "~/server/members/taxpayer-ids.server";
import type { TaxpayerId } from "~/domain/taxpayer-id";
import { logger } from "~/server/logger.server";
import { DEMO_SIGNINS, type DemoSignIn } from "../auth/demo-signins.server";

/**
 * The demo institution's people (demo mode, empty database): one staff member, three members
 * (Alex Morgan holds a joint account with Jordan Morgan) and two applicants waiting for review
 * (staff asked Taylor Reed for more information). Sign-ins: DEMO_SIGNINS.
 *
 * Accounts and balances are not made here: they come from the ledger when a member is approved.
 * Steps added to DEMO_SEED_STEPS run after the people exist (account opening adds one).
 */
export interface SeededPerson {
  user_id: string;
  sign_in: DemoSignIn;
}

export type DemoSeedStep = (db: Db, people: readonly SeededPerson[]) => Promise<void>;

/** Account opening (checking, savings, debit card, history) adds its step here. */
export const DEMO_SEED_STEPS: DemoSeedStep[] = [];

interface DemoProfile {
  date_of_birth: string;
  id_type: "passport" | "national_id" | "drivers_license";
  id_number: string;
  nationality: string;
  marital_status: "single" | "married" | "divorced" | "widowed";
  street: string;
  city: string;
  postal_code: string;
  phone: string;
  emergency: [name: string, relationship: string, phone: string];
  joint?: [name: string, email: string, phone: string];
  /**
   * The taxpayer number (docs/product.md#taxpayer-identification): made up, valid in form only,
   * never a real person's. Staff have none (they are not customers).
   */
  tin?: TaxpayerId;
  joint_tin?: TaxpayerId;
}

const PROFILES: Record<string, DemoProfile> = {
  "staff@harborview.example": {
    date_of_birth: "1979-03-14",
    id_type: "drivers_license",
    id_number: "NH-D4471920",
    nationality: "American",
    marital_status: "married",
    street: "100 Harbor Street",
    city: "Portsmouth",
    postal_code: "03801",
    phone: "(555) 010-4401",
    emergency: ["Lee Whitfield", "Spouse", "(555) 010-7710"],
  },
  "approver@harborview.example": {
    date_of_birth: "1984-10-05",
    id_type: "drivers_license",
    id_number: "NH-D5582013",
    nationality: "American",
    marital_status: "single",
    street: "12 Market Square",
    city: "Portsmouth",
    postal_code: "03801",
    phone: "(555) 010-4402",
    emergency: ["Rosa Alvarez", "Mother", "(555) 010-7720"],
  },
  "alex.morgan@harborview.example": {
    date_of_birth: "1986-07-02",
    id_type: "drivers_license",
    id_number: "NH-D2219384",
    nationality: "American",
    marital_status: "married",
    street: "18 Pleasant Street",
    city: "Portsmouth",
    postal_code: "03801",
    phone: "(555) 010-2231",
    emergency: ["Jordan Morgan", "Spouse", "(555) 010-2232"],
    joint: ["Jordan Morgan", "jordan.morgan@harborview.example", "(555) 010-2232"],
    tin: { type: "ssn", number: "555212231", country: null },
    joint_tin: { type: "ssn", number: "555212232", country: null },
  },
  "priya.shah@harborview.example": {
    date_of_birth: "1993-11-21",
    id_type: "passport",
    id_number: "X48213377",
    nationality: "American",
    marital_status: "single",
    street: "7 Cutts Avenue",
    city: "Dover",
    postal_code: "03820",
    phone: "(555) 010-3390",
    emergency: ["Anil Shah", "Father", "(555) 010-3391"],
    tin: { type: "ssn", number: "555333390", country: null },
  },
  "sam.okafor@harborview.example": {
    date_of_birth: "1971-01-09",
    id_type: "national_id",
    id_number: "ID-5528-1170",
    nationality: "Nigerian",
    marital_status: "widowed",
    street: "240 Water Street",
    city: "Exeter",
    postal_code: "03833",
    phone: "(555) 010-4478",
    emergency: ["Ada Okafor", "Daughter", "(555) 010-4479"],
    tin: { type: "itin", number: "912784478", country: null },
  },
  "taylor.reed@harborview.example": {
    date_of_birth: "2001-05-30",
    id_type: "drivers_license",
    id_number: "NH-D9004412",
    nationality: "American",
    marital_status: "single",
    street: "55 Main Street",
    city: "Durham",
    postal_code: "03824",
    phone: "(555) 010-5521",
    emergency: ["Morgan Reed", "Mother", "(555) 010-5522"],
    tin: { type: "ssn", number: "555555521", country: null },
  },
  "chris.lee@harborview.example": {
    date_of_birth: "1990-09-12",
    id_type: "passport",
    id_number: "K77120455",
    nationality: "Canadian",
    marital_status: "divorced",
    street: "3 Ferry Landing",
    city: "Portsmouth",
    postal_code: "03801",
    phone: "(555) 010-6612",
    emergency: ["Robin Lee", "Sibling", "(555) 010-6613"],
    tin: { type: "foreign", number: "K77120455", country: "CA" },
  },
  "accountant@harborview.example": {
    date_of_birth: "1988-02-21",
    id_type: "drivers_license",
    id_number: "NH-D6604187",
    nationality: "American",
    marital_status: "single",
    street: "40 Pleasant Street",
    city: "Portsmouth",
    postal_code: "03801",
    phone: "(555) 010-4420",
    emergency: ["Sam Chen", "Sibling", "(555) 010-7720"],
  },
  "controller@harborview.example": {
    date_of_birth: "1975-07-09",
    id_type: "drivers_license",
    id_number: "NH-D7719342",
    nationality: "American",
    marital_status: "married",
    street: "8 State Street",
    city: "Portsmouth",
    postal_code: "03801",
    phone: "(555) 010-4421",
    emergency: ["Kim Ortiz", "Spouse", "(555) 010-7721"],
  },
};

const ROLE_OF: Record<DemoSignIn["kind"], "admin" | "accountant" | "user" | "pending"> = {
  staff: "admin",
  accountant: "accountant",
  member: "user",
  applicant: "pending",
};

/** Seeds the demo people when no user exists yet. Returns whether it seeded. */
export async function seedDemoIfEmpty(
  database: Database,
  steps: readonly DemoSeedStep[] = DEMO_SEED_STEPS,
): Promise<boolean> {
  const db = database.db;
  const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(users);
  if (n > 0) return false;

  const auth = authFor(db);
  const context = await auth.$context;
  const people: SeededPerson[] = [];
  try {
    for (const sign_in of DEMO_SIGNINS) {
      const user = await context.internalAdapter.createUser(
        {
          email: sign_in.email,
          name: `${sign_in.first_name} ${sign_in.last_name}`,
          emailVerified: true,
          role: ROLE_OF[sign_in.kind],
          twoFactorEnabled: true,
        },
        { method: "admin" },
      );
      await context.internalAdapter.linkAccount({
        userId: user.id,
        providerId: "credential",
        accountId: user.id,
        password: await hashPassword(sign_in.password),
      });
      people.push({ user_id: user.id, sign_in });
    }
    const now = Date.now();
    await db.transaction(async (tx) => {
      for (const [index, { user_id, sign_in }] of people.entries()) {
        const p = PROFILES[sign_in.email]!;
        const applicant = sign_in.kind === "applicant";
        const created_at = new Date(now - (applicant ? (index + 1) * 3 : 400 + index * 30) * 24 * 60 * 60 * 1000);
        await tx.insert(memberProfiles).values({
          user_id,
          first_name: sign_in.first_name,
          last_name: sign_in.last_name,
          date_of_birth_enc: encryptField(p.date_of_birth, encryptionContext("date_of_birth", user_id)),
          nationality: p.nationality,
          marital_status: p.marital_status,
          street: p.street,
          city: p.city,
          state: "NH",
          postal_code: p.postal_code,
          country: "United States",
          phone: p.phone,
          emergency_name: p.emergency[0],
          emergency_relationship: p.emergency[1],
          emergency_phone: p.emergency[2],
          id_type: p.id_type,
          id_number_enc: encryptField(p.id_number, encryptionContext("id_number", user_id)),
          joint_account: Boolean(p.joint),
          joint_name: p.joint?.[0] ?? null,
          joint_email: p.joint?.[1] ?? null,
          joint_phone: p.joint?.[2] ?? null,
          status: applicant ? "pending" : "approved",
          document_status: applicant ? (sign_in.email.startsWith("taylor") ? "info_requested" : "pending") : "verified",
          decided_at: applicant ? null : new Date(created_at.getTime() + 24 * 60 * 60 * 1000),
          source: sign_in.kind === "staff" || sign_in.kind === "accountant" ? "staff" : "application",
          created_at,
          updated_at: created_at,
        });
        await tx.insert(memberSettings).values({ user_id });
        if (sign_in.kind === "member") await seedConsent(tx, user_id, created_at);
        if (p.tin) await storeTaxpayerId(tx, { user_id, party: "member", tin: p.tin, now: created_at });
        if (p.joint_tin) await storeTaxpayerId(tx, { user_id, party: "joint", tin: p.joint_tin, now: created_at });
      }
      const taylor = people.find((p) => p.sign_in.email.startsWith("taylor"));
      const staff = people.find((p) => p.sign_in.kind === "staff");
      if (taylor) {
        await tx.insert(applicationInfoRequests).values({
          user_id: taylor.user_id,
          message:
            "The photo of your driver's license is blurred and we cannot read the expiry date. Please upload a clearer photo of the front of the license.",
          requested_by: staff?.user_id ?? null,
          requested_at: new Date(now - 2 * 60 * 60 * 1000),
        });
      }
    });
    for (const step of steps) await step(db, people);
  } catch (error) {
    // Leave no half-seeded demo behind: the next start seeds again from scratch.
    logger.error({ err: error }, "demo seed failed; removing what it created");
    if (people.length)
      await db.delete(users).where(
        inArray(
          users.id,
          people.map((p) => p.user_id),
        ),
      );
    throw error;
  }
  logger.info({ people: people.length }, "seeded the demo institution's people");
  return true;
}
