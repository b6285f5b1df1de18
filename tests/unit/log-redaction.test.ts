import { describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { pino } from "pino";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { loggerOptions, redactUrl, REDACTED, serializeError } from "~/server/logging/redact.server";

/** A logger built like the app's, writing its lines into an array. */
function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino(loggerOptions("info"), stream), text: () => lines.join("") };
}

const STEP_UP_CODE = "482913";
const EMAIL = "alex.morgan@harborview.example";
const BIRTH_DATE = "1984-03-17";

/** What Drizzle throws for a failed query: its parameters in `params` and in the message, the driver's error as `cause`. */
function failedQuery() {
  const cause = Object.assign(new Error('duplicate key value violates unique constraint "users_email_unique"'), {
    code: "23505",
    detail: `Key (email)=(${EMAIL}) already exists.`,
    params: [EMAIL, STEP_UP_CODE, BIRTH_DATE],
  });
  return new DrizzleQueryError(
    'insert into "users" ("email", "code", "date_of_birth") values ($1, $2, $3)',
    [EMAIL, STEP_UP_CODE, BIRTH_DATE],
    cause,
  );
}

describe("addresses in the log", () => {
  it("keep the path and the query's names, never its values", () => {
    expect(redactUrl("/reset-password?token=abc123def456")).toBe(`/reset-password?token=${REDACTED}`);
    expect(redactUrl("http://localhost:3000/demo/inbox?to=alex%40example.com&x=1")).toBe(
      `http://localhost:3000/demo/inbox?to=${REDACTED}&x=${REDACTED}`,
    );
    expect(redactUrl("/reset-password?abc123def456")).toBe(`/reset-password?${REDACTED}`);
    expect(redactUrl("/dashboard")).toBe("/dashboard");
  });
  it("keep React Router's own route ids", () => {
    expect(redactUrl("/dashboard.data?_routes=routes%2Fmember%2Fdashboard&index")).toBe(
      "/dashboard.data?_routes=routes%2Fmember%2Fdashboard&index",
    );
  });
});

describe("a failed query in the log", () => {
  it("its serialization keeps the SQL text and the error, never the parameters", () => {
    const serialized = JSON.stringify(serializeError(failedQuery()));
    expect(serialized).toContain('insert into \\"users\\"');
    expect(serialized).toContain("users_email_unique");
    for (const secret of [STEP_UP_CODE, EMAIL, BIRTH_DATE]) expect(serialized).not.toContain(secret);
  });

  it("never reaches a log line however it is logged", () => {
    const { logger, text } = capturedLogger();
    const error = failedQuery();
    logger.error({ err: error }, "transfer failed");
    logger.error({ err: error });
    logger.error(error);
    logger.error(error, "with a message");
    // Better Auth's logger hands its arguments over as a list (app/server/auth/auth.server.ts).
    logger.error(
      { args: [error, { body: { password: "Member-Demo-Pass-1", code: STEP_UP_CODE } }] },
      "better-auth: failed",
    );
    logger.warn(`sign-in failed: ${error.message}`);
    const log = text();
    expect(log.split("\n").filter(Boolean)).toHaveLength(6);
    expect(log).toContain("users_email_unique");
    for (const secret of [STEP_UP_CODE, EMAIL, BIRTH_DATE, "Member-Demo-Pass-1"]) expect(log).not.toContain(secret);
  });

  it("PostgreSQL's own quoting of a bad value is cut out too", () => {
    const error = new DrizzleQueryError(
      "select $1::date",
      [BIRTH_DATE],
      new Error(`invalid input syntax for type date: "${BIRTH_DATE}"`),
    );
    const { logger, text } = capturedLogger();
    logger.error({ err: error }, "history failed");
    expect(text()).toContain("invalid input syntax for type date");
    expect(text()).not.toContain(BIRTH_DATE);
  });
});

describe("secret fields in the log", () => {
  it("cookies, authorization, passwords and tokens are replaced wherever they are", () => {
    const { logger, text } = capturedLogger();
    logger.info(
      {
        headers: { cookie: "mutual.session_token=live-session", authorization: "Bearer live-bearer" },
        res: { headers: { "set-cookie": ["mutual.session_token=live-session-2"] } },
        detail: {
          new_password: "Harbor lights 2026",
          token: "reset-token-1",
          url: "/reset-password?token=reset-token-2",
        },
        url: "/reset-password?token=reset-token-3",
      },
      "request",
    );
    const log = text();
    for (const secret of ["live-session", "live-bearer", "Harbor lights", "reset-token"])
      expect(log).not.toContain(secret);
    expect(log).toContain(`/reset-password?token=${REDACTED}`);
  });

  it("a taxpayer number is replaced under any of its field names (docs/security.md, V7 and V8)", () => {
    const { logger, text } = capturedLogger();
    logger.info(
      {
        form: { tin: "555-01-2468", joint_tin: "555-21-2232", tin_type: "ssn", routing: "211274450" },
        application: { taxpayer_id: { type: "ssn", number: "555012468" }, joint_taxpayer_id: { number: "912784478" } },
        ssn: "555333390",
        itin: "912784478",
      },
      "application",
    );
    const log = text();
    for (const secret of ["555-01-2468", "555-21-2232", "555012468", "912784478", "555333390"])
      expect(log).not.toContain(secret);
    // Other keys that merely contain the letters stay readable.
    expect(log).toContain("211274450");
    expect(log).toContain('"tin_type":"ssn"');
  });

  it("a failed email delivery's error keeps its code but never the recipient's address", () => {
    const { logger, text } = capturedLogger();
    // The shape nodemailer gives a refused recipient (seen in a test run's log).
    const error = Object.assign(new Error("Can't send mail - all recipients were rejected: 550 no such mailbox"), {
      code: "EENVELOPE",
      response: "550 5.1.1 <bounce.person@example.com>: no such mailbox",
      responseCode: 550,
      rejected: ["bounce.person@example.com"],
      rejectedErrors: [
        Object.assign(new Error("Recipient command failed: 550 no such mailbox"), {
          recipient: "bounce.person@example.com",
        }),
      ],
    });
    logger.error({ err: error, outbox_id: 2 }, "email delivery failed");
    const log = text();
    expect(log).not.toContain("bounce.person");
    expect(log).toContain("EENVELOPE");
    expect(log).toContain("550");
  });
});
