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

type InstitutionEnv = Pick<Env, "NODE_ENV" | "DATABASE_URL" | "PUBLIC_URL" | "INSTITUTION_CONFIG" | "MUTUAL_DEMO">;

/**
 * A real credit union's deployment (its own profile, not the demo, in production) must reach its
 * members: every sign-in needs an emailed code, so without SMTP_URL nobody could sign in, and
 * without an https PUBLIC_URL the links in those emails and the cookies are not protected. It
 * stops start-up instead of starting a bank nobody can use; MUTUAL_TEST_INSTALL=1 allows it on
 * purpose. The demo shows its codes on screen and needs neither.
 */
export function requireMailAndHttps(
  config: InstitutionEnv & Pick<Env, "SMTP_URL" | "MUTUAL_TEST_INSTALL">,
  profile: Pick<Institution, "demo">,
): void {
  if (profile.demo || !isProductionDeployment(config) || config.MUTUAL_TEST_INSTALL === "1") return;
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
