import fs from "node:fs";
import { ConfigurationError, env, type Env } from "./env.server";
import { demoInstitution } from "./demo-institution";
import { InstitutionSchema, type Institution } from "./institution";

/** Validates a profile; a bad one stops start-up with every problem named by its path. */
export function parseInstitution(raw: unknown, source: string): Institution {
  const result = InstitutionSchema.safeParse(raw);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw new ConfigurationError(`Invalid institution profile (${source}):\n${lines.join("\n")}`);
  }
  return result.data;
}

type InstitutionEnv = Pick<Env, "NODE_ENV" | "DATABASE_URL" | "PUBLIC_URL" | "INSTITUTION_CONFIG" | "MUTUAL_DEMO"> &
  Partial<Pick<Env, "MUTUAL_TEST_INSTALL">>;

/**
 * The demo's values that say whose bank this is. The guide starts a profile from a copy of the
 * demo's: one left unchanged would send members' mail From the demo's address, print its routing
 * number on their statements or give Quicken its bank id, while "demo": false says it is real.
 */
function demoIdentityLeftIn(profile: Institution): string[] {
  const demo = parseInstitution(demoInstitution, "demo default");
  const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  const demoQuotes = new Set(demo.testimonials.map((t) => t.quote));
  const found: string[] = [];
  if (profile.name === demo.name) found.push(`  name: still the demo's ("${demo.name}")`);
  if (profile.short_name === demo.short_name) found.push(`  short_name: still the demo's ("${demo.short_name}")`);
  if (profile.routing_number === demo.routing_number)
    found.push(`  routing_number: still the demo's (${demo.routing_number}), which no bank has`);
  if (domainOf(profile.support_email) === domainOf(demo.support_email))
    found.push(
      `  support_email: at the demo's domain (${domainOf(demo.support_email)}): members' mail goes out From it`,
    );
  profile.testimonials.forEach((t, index) => {
    if (demoQuotes.has(t.quote)) found.push(`  testimonials.${index}: a demo testimonial (${t.name})`);
  });
  if (profile.intuit_bank_id && profile.intuit_bank_id === demo.intuit_bank_id)
    found.push(
      `  intuit_bank_id: still the demo's (${demo.intuit_bank_id}): put the id Intuit gave you, or leave it out`,
    );
  if (profile.ach.company_identification === demo.ach.company_identification)
    found.push(`  ach.company_identification: still the demo's (${demo.ach.company_identification})`);
  return found;
}

/**
 * A profile that says "demo": false must not carry the demo's identity in production (a test
 * install, MUTUAL_TEST_INSTALL=1, may: it reaches no member).
 */
function refuseDemoIdentity(profile: Institution, config: InstitutionEnv, source: string): void {
  if (profile.demo || config.NODE_ENV !== "production" || config.MUTUAL_TEST_INSTALL === "1") return;
  const found = demoIdentityLeftIn(profile);
  if (found.length === 0) return;
  throw new ConfigurationError(
    `Invalid institution profile (${source}): it says "demo": false but still has the demo's identifying values:\n${found.join("\n")}\n` +
      "  Replace them with your credit union's own (docs/operations.md#the-institution-profile).",
  );
}

/**
 * A real credit union's deployment (its own profile, not the demo, in production, on PostgreSQL or
 * the embedded database alike) must reach its members: every sign-in needs an emailed code, so
 * without SMTP_URL nobody could sign in, and without an https PUBLIC_URL the links in those emails
 * and the cookies are not protected. It stops start-up instead of starting a bank nobody can use;
 * MUTUAL_TEST_INSTALL=1 allows it on purpose. The demo shows its codes on screen and needs neither.
 */
export function requireMailAndHttps(
  config: InstitutionEnv & Pick<Env, "SMTP_URL" | "MUTUAL_TEST_INSTALL">,
  profile: Pick<Institution, "demo">,
): void {
  if (profile.demo || config.NODE_ENV !== "production" || config.MUTUAL_TEST_INSTALL === "1") return;
  const missing = [
    ...(config.SMTP_URL
      ? []
      : ["  SMTP_URL: required in production: sign-in codes and alerts are emailed (docs/operations.md#email)"]),
    ...(config.PUBLIC_URL?.startsWith("https://")
      ? []
      : ["  PUBLIC_URL: required in production, starting with https:// (the address members use)"]),
  ];
  if (missing.length) {
    throw new ConfigurationError(
      `Invalid environment configuration:\n${missing.join("\n")}\n  (MUTUAL_TEST_INSTALL=1 starts a test install without them, on purpose.)`,
    );
  }
}

/**
 * A real deployment: production mode on a PostgreSQL server or behind an https address. A
 * laptop, the browser tests and the benchmarks run production builds on the embedded database
 * over http, and keep the demo.
 */
function isProductionDeployment(config: InstitutionEnv): boolean {
  return (
    config.NODE_ENV === "production" &&
    (Boolean(config.DATABASE_URL) || (config.PUBLIC_URL?.startsWith("https://") ?? false))
  );
}

/**
 * The profile named by INSTITUTION_CONFIG, or the demo. A demo profile seeds staff and members
 * whose passwords are published in the README, so a real deployment refuses it unless the
 * operator sets MUTUAL_DEMO=1 on purpose (a public demo site).
 */
export function loadInstitution(config: InstitutionEnv): Institution {
  const file = config.INSTITUTION_CONFIG;
  let profile: Institution;
  if (!file) {
    profile = parseInstitution(demoInstitution, "demo default");
  } else {
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (error) {
      throw new ConfigurationError(`INSTITUTION_CONFIG: cannot read ${file} as JSON (${(error as Error).message})`);
    }
    profile = parseInstitution(raw, file);
    refuseDemoIdentity(profile, config, file);
  }
  if (profile.demo && isProductionDeployment(config) && config.MUTUAL_DEMO !== "1") {
    const source = file
      ? `The profile ${file} says "demo": true`
      : "INSTITUTION_CONFIG is not set, so the demo profile would run";
    throw new ConfigurationError(
      `${source}, and this is a production deployment (NODE_ENV=production with DATABASE_URL or an https PUBLIC_URL).\n` +
        "The demo seeds staff and members whose passwords are published.\n" +
        'Set INSTITUTION_CONFIG to your institution\'s profile (app/config/demo-institution.ts is an example to copy, with "demo": false),\n' +
        "or set MUTUAL_DEMO=1 to run the demo on purpose.",
    );
  }
  return profile;
}

let cached: Institution | undefined;

export function institution(): Institution {
  cached ??= loadInstitution(env());
  return cached;
}
