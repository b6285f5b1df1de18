import "../identity-support";
import { afterEach, describe, expect, it, vi } from "vitest";
import { and, eq } from "drizzle-orm";
import { auditLog, outbox, sessions } from "~/server/db/schema";
import { secondFactor, startSignIn, verifySignInCode } from "~/server/auth/sign-in.server";
import { completePasswordReset, requestPasswordReset } from "~/server/auth/password.server";
import { fileDatabase } from "../test-database";
import { Browser, lastCodeTo, lastMessageTo, outcome } from "../identity-support";
import { person as makePerson } from "../../factories";

/**
 * Wrong second-factor codes per account. Five wrong codes end one challenge, but a new challenge
 * only takes the password: someone who knows it could open challenge after challenge and guess
 * codes without end (105 wrong codes over 21 challenges, then the right one, signed in). Codes are
 * counted per account across challenges: 10 without a sign-in lock the account as 5 wrong
 * passwords do, and the member is emailed.
 */
const database = fileDatabase();
afterEach(() => {
  vi.useRealTimers();
});

const PASSWORD = "Tidewater morning 42";
let counter = 0;
async function member(): Promise<{ id: string; email: string }> {
  counter += 1;
  const { id, email } = await makePerson(database.db, "user", {
    email: `codes${counter}@example.com`,
    password: PASSWORD,
    name: `Codes ${counter}`,
  });
  return { id, email };
}

/** A fresh network address for every request: the attacker spreads over many, so per-address limits never apply. */
function freshBrowser(): Browser {
  counter += 1;
  return new Browser(`10.${Math.floor(counter / 250) % 250}.${counter % 250}.7`);
}

/** Step 1 with the right password (the attacker knows it); the browser keeps the challenge cookie. */
async function openChallenge(email: string): Promise<{ browser: Browser; status: string; code: string | null }> {
  const browser = freshBrowser();
  const result = await startSignIn(database.db, browser.meta(), { email, password: PASSWORD });
  if (!result.ok || result.status !== "challenge") return { browser, status: outcome(result), code: null };
  browser.apply(result.set_cookies);
  return { browser, status: "challenge", code: await lastCodeTo(database.db, email) };
}

/** A code that is certainly not the one sent. */
function wrongCode(right: string, n: number): string {
  return ((Number(right) + 1 + n) % 1_000_000).toString().padStart(6, "0");
}

/** Tries a code from a browser that moved to a fresh address (same challenge cookie). */
async function tryCode(browser: Browser, code: string) {
  const moved = freshBrowser();
  moved.apply(browser.cookieHeader().split("; ").filter(Boolean));
  return verifySignInCode(database.db, moved.meta(), { code });
}

describe("wrong sign-in codes, counted per account across challenges", () => {
  it("stops the attack: 105 wrong codes over 21 challenges, then the right one, no longer signs in", async () => {
    const { id, email } = await member();
    let codesTried = 0;
    let locked = false;
    for (let challenge = 0; challenge < 21 && !locked; challenge++) {
      const opened = await openChallenge(email);
      if (opened.status !== "challenge") {
        expect(opened.status).toBe("locked");
        locked = true;
        break;
      }
      for (let i = 0; i < 5; i++) {
        const result = await tryCode(opened.browser, wrongCode(opened.code!, i));
        codesTried += 1;
        if (outcome(result) === "locked") {
          locked = true;
          break;
        }
        if (outcome(result) === "ended") break;
      }
    }
    expect(locked).toBe(true);
    expect(codesTried).toBe(10);

    // The right code after all that: refused, because the account is locked.
    const last = await openChallenge(email);
    expect(last.status).toBe("locked");
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, id))).toHaveLength(0);

    // The member is told, once, and the lock is in the audit log.
    const mail = (await database.db.select().from(outbox).where(eq(outbox.to_email, email))).filter(
      (m) => m.kind === "account_locked",
    );
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text_body).toMatch(/wrong sign-in code/);
    const audit = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "auth.code.locked"), eq(auditLog.subject_id, email)));
    expect(audit.length).toBeGreaterThanOrEqual(1);
  });

  it("refuses even the right code in a challenge opened before the lock", async () => {
    const { email } = await member();
    const spare = await openChallenge(email);
    let n = 0;
    for (let challenge = 0; challenge < 3; challenge++) {
      const opened = await openChallenge(email);
      if (opened.status !== "challenge") break;
      for (let i = 0; i < 5; i++) {
        const result = await tryCode(opened.browser, wrongCode(opened.code!, n++));
        if (outcome(result) !== "invalid") break;
      }
    }
    expect(outcome(await tryCode(spare.browser, spare.code!))).toBe("locked");
  });

  it("counts simultaneous guesses too: at most 10 codes are checked", async () => {
    const { id, email } = await member();
    const challenges = [];
    for (let i = 0; i < 4; i++) challenges.push(await openChallenge(email));
    const right = await lastCodeTo(database.db, email);
    // Every code that gets checked goes through the one check of the second factor.
    const checks = vi.spyOn(secondFactor, "check");
    const results = await Promise.all(
      challenges.flatMap((c, i) =>
        Array.from({ length: 5 }, (_, j) => tryCode(c.browser, wrongCode(right, i * 5 + j))),
      ),
    );
    expect(checks.mock.calls.length).toBeLessThanOrEqual(10);
    checks.mockRestore();
    expect(results.some((r) => outcome(r) === "locked")).toBe(true);
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, id))).toHaveLength(0);
  });

  it("does not lock a member who mistypes a few codes but signs in each time", async () => {
    const { email } = await member();
    for (let round = 0; round < 4; round++) {
      const opened = await openChallenge(email);
      expect(opened.status).toBe("challenge");
      for (let i = 0; i < 4; i++)
        expect(outcome(await tryCode(opened.browser, wrongCode(opened.code!, i)))).toBe("invalid");
      expect(outcome(await tryCode(opened.browser, opened.code!))).toBe("signed_in");
    }
  });

  it("ends the lock after 15 minutes, or at once with a password reset", async () => {
    const { email } = await member();
    for (let challenge = 0; challenge < 3; challenge++) {
      const opened = await openChallenge(email);
      if (opened.status !== "challenge") break;
      for (let i = 0; i < 5; i++)
        if (outcome(await tryCode(opened.browser, wrongCode(opened.code!, i))) !== "invalid") break;
    }
    expect((await openChallenge(email)).status).toBe("locked");

    // A reset link proves the mailbox: the lock ends.
    await requestPasswordReset(database.db, freshBrowser().meta(), email);
    const link = (await lastMessageTo(database.db, email))!.text_body;
    const token = decodeURIComponent(/token=([A-Za-z0-9_%-]+)/.exec(link)![1]!);
    expect(
      outcome(await completePasswordReset(database.db, freshBrowser().meta(), { token, password: PASSWORD })),
    ).toBe("ok");
    expect((await openChallenge(email)).status).toBe("challenge");

    const second = await member();
    for (let challenge = 0; challenge < 3; challenge++) {
      const opened = await openChallenge(second.email);
      if (opened.status !== "challenge") break;
      for (let i = 0; i < 5; i++)
        if (outcome(await tryCode(opened.browser, wrongCode(opened.code!, i))) !== "invalid") break;
    }
    expect((await openChallenge(second.email)).status).toBe("locked");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 15 * 60 * 1000 + 1000);
    const opened = await openChallenge(second.email);
    expect(opened.status).toBe("challenge");
    expect(outcome(await tryCode(opened.browser, opened.code!))).toBe("signed_in");
  });
});
