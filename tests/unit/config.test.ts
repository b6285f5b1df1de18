import { afterAll, describe, expect, it } from "vitest";
import { parseEnv, ConfigurationError } from "~/config/env.server";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadInstitution, parseInstitution, requireMailAndHttps } from "~/config/institution.server";
import { demoInstitution } from "~/config/demo-institution";

describe("environment", () => {
  it("has working defaults", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATA_DIR).toBe("./data");
    expect(env.DATABASE_URL).toBeUndefined();
  });
  it("names the variable that is wrong", () => {
    expect(() => parseEnv({ PORT: "eighty" })).toThrow(/PORT/);
    expect(() => parseEnv({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL: must start with postgres/);
    expect(() => parseEnv({ DATA_ENCRYPTION_KEY: "short" })).toThrow(/DATA_ENCRYPTION_KEY/);
    expect(() => parseEnv({ SMTP_URL: "http://mail" })).toThrow(ConfigurationError);
  });
  it("takes DATABASE_READ_URL only beside DATABASE_URL, checked as DATABASE_URL is", () => {
    expect(() => parseEnv({ DATABASE_READ_URL: "postgresql://replica/x" })).toThrow(
      /DATABASE_READ_URL: needs DATABASE_URL/,
    );
    expect(() => parseEnv({ DATABASE_URL: "postgresql://db/x", DATABASE_READ_URL: "mysql://x" })).toThrow(
      /DATABASE_READ_URL: must start with postgres/,
    );
    const env = parseEnv({ DATABASE_URL: "postgresql://db/x", DATABASE_READ_URL: "postgresql://replica/x" });
    expect(env.DATABASE_READ_URL).toBe("postgresql://replica/x");
    expect(env.DATABASE_READ_WAIT_MS).toBe(250);
  });
  it("requires secrets with PostgreSQL in production", () => {
    expect(() => parseEnv({ NODE_ENV: "production", DATABASE_URL: "postgresql://db/x" })).toThrow(/SESSION_SECRET/);
  });
  it("stops on a TRUST_PROXY that is neither 1 nor 0, as the README says (it was taken as off)", () => {
    expect(parseEnv({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe("1");
    expect(parseEnv({ TRUST_PROXY: "0" }).TRUST_PROXY).toBe("0");
    for (const value of ["true", "yes", "2", "on"])
      expect(() => parseEnv({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY: must be 1/);
  });
  it("names DATABASE_URL and says to percent-encode when a password holds a reserved character", () => {
    for (const url of [
      "postgresql://mutual:pa/ss@db.example/mutual",
      "postgresql://mutual:pa#ss@db.example/mutual",
      "postgresql://mutual:pa?ss@db.example/mutual",
    ]) {
      expect(() => parseEnv({ DATABASE_URL: url })).toThrow(/DATABASE_URL: .*percent-encode/);
    }
    // Encoded, and the forms that node-postgres reads as meant, are accepted.
    for (const url of [
      "postgresql://mutual:pa%2Fss%23%3F@db.example:5432/mutual?sslmode=require",
      "postgresql://mutual:pa+ss@db.example/mutual",
      "postgresql://postgres@/postgres?host=/run/postgresql&port=5432",
      "postgres://db/x",
    ]) {
      expect(parseEnv({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
    }
  });
  it("refuses the embedded database in production unless it is chosen on purpose (an unloaded environment file looked like it)", () => {
    for (const unset of [{}, { DATABASE_URL: "" }]) {
      expect(() => parseEnv({ NODE_ENV: "production", ...unset })).toThrow(
        /DATABASE_URL: not set, and NODE_ENV=production[\s\S]*with-env[\s\S]*MUTUAL_EMBEDDED_DATABASE=1/,
      );
    }
    expect(parseEnv({ NODE_ENV: "production", MUTUAL_EMBEDDED_DATABASE: "1" }).DATABASE_URL).toBeUndefined();
    expect(() => parseEnv({ NODE_ENV: "production", MUTUAL_EMBEDDED_DATABASE: "yes" })).toThrow(
      /MUTUAL_EMBEDDED_DATABASE: must be 1/,
    );
    // Development and the tests keep the embedded database as their default.
    expect(parseEnv({}).DATABASE_URL).toBeUndefined();
    expect(parseEnv({ NODE_ENV: "test" }).DATABASE_URL).toBeUndefined();
  });
  it("treats empty variables as unset", () => {
    expect(parseEnv({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
  });
});

describe("institution profile", () => {
  it("the demo profile is valid and says it is a demo", () => {
    const profile = parseInstitution(demoInstitution, "demo");
    expect(profile.demo).toBe(true);
    expect(profile.routing_number).toBe("501234566");
    expect(profile.products.filter((p) => p.segment === "personal")).toHaveLength(6);
    expect(profile.products.filter((p) => p.segment === "business")).toHaveLength(6);
    expect(profile.us_banks.length).toBeGreaterThanOrEqual(20);
  });
  it("refuses a routing number that fails the ABA checksum, naming the field", () => {
    expect(() => parseInstitution({ ...demoInstitution, routing_number: "501234567" }, "test.json")).toThrow(
      /routing_number/,
    );
  });
  it("refuses duplicate product slugs and an enabled widget without a URL", () => {
    const dup = { ...demoInstitution, products: [demoInstitution.products[0]!, demoInstitution.products[0]!] };
    expect(() => parseInstitution(dup, "x")).toThrow(/duplicate product slug/);
    expect(() => parseInstitution({ ...demoInstitution, market_widget: { enabled: true } }, "x")).toThrow(
      /market_widget.url/,
    );
  });
  it("refuses a bank list entry with a bad routing number", () => {
    const banks = [{ name: "Bad Bank", routing_number: "123456789" }];
    expect(() => parseInstitution({ ...demoInstitution, us_banks: banks }, "x")).toThrow(/us_banks.0.routing_number/);
  });
});

describe("institution profile: ACH file settings", () => {
  const ach = demoInstitution.ach;
  it("the demo names the Federal Reserve as the file's destination, a company name and identification", () => {
    const profile = parseInstitution(demoInstitution, "demo");
    expect(profile.ach).toMatchObject({
      destination_routing_number: "011000015",
      destination_name: "FEDERAL RESERVE BANK",
      company_name: "HARBORVIEW CU",
      company_identification: "1990000001",
    });
    expect(profile.ach.company_entry_description).toBe("TRANSFER");
  });
  it("is required: a profile without it is refused at start-up, naming it", () => {
    const { ach: _, ...without } = demoInstitution;
    expect(() => parseInstitution(without, "x")).toThrow(/ach/);
  });
  it("refuses each field a bank's parser would refuse, naming it", () => {
    const refused = (over: Record<string, unknown>, field: RegExp) =>
      expect(() => parseInstitution({ ...demoInstitution, ach: { ...ach, ...over } }, "x")).toThrow(field);
    refused({ destination_routing_number: "011000016" }, /ach.destination_routing_number: .*ABA checksum/);
    refused({ destination_name: "" }, /ach.destination_name/);
    refused({ destination_name: "THE FEDERAL RESERVE BANK OF BOSTON" }, /ach.destination_name: .*23/);
    refused({ company_name: "HARBORVIEW COMMUNITY CU" }, /ach.company_name: .*16/);
    refused({ company_name: "Café" }, /ach.company_name: .*letters, digits/);
    refused({ company_identification: "501234566" }, /ach.company_identification: .*10/);
    refused({ company_identification: "1-12345678" }, /ach.company_identification/);
    refused({ company_entry_description: "MONEY TRANSFER" }, /ach.company_entry_description: .*10/);
  });
});

describe("institution profile: Intuit bank id", () => {
  it("is optional, and when given it is the digits Intuit assigned", () => {
    const { intuit_bank_id: _, ...without } = demoInstitution;
    expect(parseInstitution(without, "x").intuit_bank_id).toBeUndefined();
    expect(parseInstitution({ ...demoInstitution, intuit_bank_id: "12345" }, "x").intuit_bank_id).toBe("12345");
    expect(() => parseInstitution({ ...demoInstitution, intuit_bank_id: "BID-1" }, "x")).toThrow(/intuit_bank_id/);
  });
});

describe("institution time zone", () => {
  it("must be an IANA zone name", () => {
    expect(parseInstitution({ ...demoInstitution, time_zone: "America/Chicago" }, "test.json").time_zone).toBe(
      "America/Chicago",
    );
    expect(() => parseInstitution({ ...demoInstitution, time_zone: "Eastern" }, "test.json")).toThrow(
      /time zone must be an IANA name/,
    );
    expect(() => parseInstitution({ ...demoInstitution, time_zone: "Mars/Olympus" }, "test.json")).toThrow(/time_zone/);
  });
});

describe("the demo profile in production", () => {
  // Its staff and member passwords are published: a real deployment must name its own profile.
  const secrets = { SESSION_SECRET: "s".repeat(32), DATA_ENCRYPTION_KEY: "a".repeat(64) };
  const postgres = { NODE_ENV: "production", DATABASE_URL: "postgresql://db/mutual", ...secrets };

  it("refuses to start with PostgreSQL in production, naming INSTITUTION_CONFIG and MUTUAL_DEMO", () => {
    expect(() => loadInstitution(parseEnv(postgres))).toThrow(ConfigurationError);
    expect(() => loadInstitution(parseEnv(postgres))).toThrow(/INSTITUTION_CONFIG/);
    expect(() => loadInstitution(parseEnv(postgres))).toThrow(/MUTUAL_DEMO=1/);
  });
  it("refuses to start in production behind an https address, even on the embedded database", () => {
    expect(() =>
      loadInstitution(
        parseEnv({ NODE_ENV: "production", MUTUAL_EMBEDDED_DATABASE: "1", PUBLIC_URL: "https://bank.example" }),
      ),
    ).toThrow(/INSTITUTION_CONFIG/);
  });
  it("refuses a profile file that says demo as well", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-profile-"));
    const file = path.join(dir, "profile.json");
    fs.writeFileSync(file, JSON.stringify(demoInstitution));
    try {
      expect(() => loadInstitution(parseEnv({ ...postgres, INSTITUTION_CONFIG: file }))).toThrow(/demo/);
      const own = path.join(dir, "own.json");
      fs.writeFileSync(own, JSON.stringify({ ...demoInstitution, demo: false }));
      // A test install may keep the demo's values (a live one may not: below).
      expect(loadInstitution(parseEnv({ ...postgres, MUTUAL_TEST_INSTALL: "1", INSTITUTION_CONFIG: own })).demo).toBe(
        false,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("runs the demo when the operator asks for it on purpose", () => {
    expect(loadInstitution(parseEnv({ ...postgres, MUTUAL_DEMO: "1" })).demo).toBe(true);
    expect(() => parseEnv({ MUTUAL_DEMO: "yes" })).toThrow(/MUTUAL_DEMO/);
  });
  it("still runs the demo on a laptop, in development and in the browser tests' production build", () => {
    expect(loadInstitution(parseEnv({})).demo).toBe(true);
    expect(loadInstitution(parseEnv({ DATABASE_URL: "postgresql://db/mutual" })).demo).toBe(true);
    const laptop = { NODE_ENV: "production", MUTUAL_EMBEDDED_DATABASE: "1" };
    expect(loadInstitution(parseEnv({ ...laptop, PUBLIC_URL: "http://localhost:3210" })).demo).toBe(true);
    expect(loadInstitution(parseEnv(laptop)).demo).toBe(true);
  });
});

describe("a production deployment on the institution's own profile", () => {
  // Every sign-in needs an emailed code: without mail nobody could sign in, and "We sent a code"
  // would be untrue. It used to start without a word.
  const own = { demo: false };
  const production = {
    NODE_ENV: "production",
    DATABASE_URL: "postgresql://db/mutual",
    SESSION_SECRET: "s".repeat(32),
    DATA_ENCRYPTION_KEY: "a".repeat(64),
  };
  const mail = { SMTP_URL: "smtps://relay.internal:465", PUBLIC_URL: "https://bank.example.org" };

  it("refuses to start without SMTP_URL or without an https PUBLIC_URL, naming each", () => {
    expect(() => requireMailAndHttps(parseEnv(production), own)).toThrow(
      /SMTP_URL: required in production[\s\S]*PUBLIC_URL: required in production, starting with https:\/\//,
    );
    expect(() =>
      requireMailAndHttps(parseEnv({ ...production, ...mail, PUBLIC_URL: "http://bank.example.org" }), own),
    ).toThrow(/PUBLIC_URL/);
    expect(() => requireMailAndHttps(parseEnv({ ...production, ...mail, SMTP_URL: "" }), own)).toThrow(/SMTP_URL/);
  });
  it("starts with both, and as a test install on purpose", () => {
    expect(() => requireMailAndHttps(parseEnv({ ...production, ...mail }), own)).not.toThrow();
    expect(() => requireMailAndHttps(parseEnv({ ...production, MUTUAL_TEST_INSTALL: "1" }), own)).not.toThrow();
  });
  it("asks nothing of the demo (its codes are on screen) or of development", () => {
    expect(() => requireMailAndHttps(parseEnv(production), { demo: true })).not.toThrow();
    expect(() =>
      requireMailAndHttps(parseEnv({ NODE_ENV: "development", DATABASE_URL: "postgresql://db/x" }), own),
    ).not.toThrow();
  });
  it("asks the same of a small installation on the embedded database over http (it started without a word)", () => {
    const embedded = { NODE_ENV: "production", MUTUAL_EMBEDDED_DATABASE: "1", PUBLIC_URL: "http://bank.example.org" };
    expect(() => requireMailAndHttps(parseEnv(embedded), own)).toThrow(/SMTP_URL[\s\S]*PUBLIC_URL/);
    expect(() => requireMailAndHttps(parseEnv({ ...embedded, MUTUAL_TEST_INSTALL: "1" }), own)).not.toThrow();
  });
});

describe('a profile that says "demo": false but keeps the demo\'s identity', () => {
  // The guide starts a profile from a copy of the demo's; a value left unchanged was accepted in
  // production and members' mail went out From support@harborview.example.
  const production = {
    NODE_ENV: "production",
    DATABASE_URL: "postgresql://db/mutual",
    SESSION_SECRET: "s".repeat(32),
    DATA_ENCRYPTION_KEY: "a".repeat(64),
  };
  const ownValues = {
    demo: false,
    name: "Lakeside Teachers Credit Union",
    short_name: "Lakeside TCU",
    routing_number: "011000015",
    support_email: "help@lakesidetcu.org",
    testimonials: [{ quote: "They were there when it counted.", name: "Sam R.", detail: "Member since 2001" }],
    intuit_bank_id: "12345",
    ach: { ...demoInstitution.ach, company_name: "LAKESIDE TCU", company_identification: "1234567890" },
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-profile-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  /** Loading a profile file with these values, as start-up does. */
  const withProfile = (profile: object, extra: Record<string, string> = {}) => {
    const file = path.join(dir, `institution-${++files}.json`);
    fs.writeFileSync(file, JSON.stringify(profile));
    return () => loadInstitution(parseEnv({ ...production, ...extra, INSTITUTION_CONFIG: file }));
  };

  it("refuses the demo's name, routing number, support address, testimonials and Intuit id, naming each", () => {
    const load = withProfile({ ...demoInstitution, demo: false });
    expect(load).toThrow(ConfigurationError);
    let message = "";
    try {
      load();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('says "demo": false but still has the demo\'s identifying values');
    for (const field of [
      "name: still the demo's",
      "routing_number: still the demo's (501234566)",
      "support_email: at the demo's domain (harborview.example)",
      "testimonials.0: a demo testimonial",
      "intuit_bank_id: still the demo's (99999)",
    ])
      expect(message).toContain(field);
  });
  it("refuses a single value left in, and an address at the demo's domain", () => {
    expect(withProfile({ ...demoInstitution, ...ownValues, routing_number: "501234566" })).toThrow(/routing_number/);
    expect(withProfile({ ...demoInstitution, ...ownValues, support_email: "Ops@Harborview.Example" })).toThrow(
      /support_email/,
    );
    expect(withProfile({ ...demoInstitution, ...ownValues, intuit_bank_id: "99999" })).toThrow(/intuit_bank_id/);
  });
  it("accepts the institution's own values, and the demo's on a test install or in development", () => {
    expect(withProfile({ ...demoInstitution, ...ownValues })().name).toBe("Lakeside Teachers Credit Union");
    expect(withProfile({ ...demoInstitution, demo: false }, { MUTUAL_TEST_INSTALL: "1" })().demo).toBe(false);
    expect(withProfile({ ...demoInstitution, demo: false }, { NODE_ENV: "development" })().demo).toBe(false);
  });
});
