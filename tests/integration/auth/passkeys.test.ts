import "../identity-support";
import { afterEach, describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import { auditLog, outbox, passkeys, sessions, signInLockouts } from "~/server/db/schema";
import { institution } from "~/config/institution.server";
import { assertionOptions, listPasskeys, relyingParty } from "~/server/auth/passkeys.server";
import { finishPasskeyRegistration, startPasskeyRegistration } from "~/server/auth/passkey-registration.server";
import {
  passkeyRemovalOptions,
  PASSKEYS_SERVER_COMMAND_ACTOR,
  removePasskeyWithPasskey,
  removePasskeyWithPassword,
  removeStaffPasskeysFromServer,
} from "~/server/auth/passkey-removal.server";
import { passkeySignInOptions, signInWithPasskey } from "~/server/auth/sign-in-passkey.server";
import { startSignIn, verifySignInCode } from "~/server/auth/sign-in.server";
import { sessionUserFromCookie } from "~/server/auth/session.server";
import { endOtherSessions, endSession, listActiveSessions } from "~/server/auth/active-sessions.server";
import { DEVICE_COOKIE } from "~/server/auth/devices.server";
import { LOCKOUT_MS } from "~/server/auth/lockout.server";
import { stepUpPasskeyOptions, verifyStepUp } from "~/server/payments/step-up.server";
import { fileDatabase } from "../test-database";
import { Browser, lastCodeTo, lastMessageTo, outcome } from "../identity-support";
import { assertion, newCredential, registrationResponse, type SoftCredential } from "../../soft-authenticator";
import { person } from "../../factories";

/**
 * Passkeys and sessions on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): adding,
 * signing in, removing, the challenge's binding and single use, the staff rule, new-device alerts,
 * and ending sessions.
 */
const database = fileDatabase();
const PASSWORD = "Tidewater morning 42";
const CHROME_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
let n = 0;

afterEach(() => {
  institution().staff_passkeys_required = false;
});

async function someone(role: "user" | "admin" | "reviewer" = "user") {
  n += 1;
  const made = await person(database.db, role as "user", {
    email: `passkey${n}@example.com`,
    password: PASSWORD,
    name: `Passkey Person ${n}`,
  });
  return { id: made.id, email: made.email, name: `Passkey Person ${n}`, role };
}

function browser(): Browser {
  n += 1;
  return new Browser(`198.51.100.${n % 250}`, CHROME_MAC);
}

function rp() {
  return relyingParty();
}

/** Adds a passkey through both steps, as Account Settings does. */
async function addPasskey(user: Awaited<ReturnType<typeof someone>>, name = "Laptop"): Promise<SoftCredential> {
  const started = await startPasskeyRegistration(database.db, browser().meta(), user, PASSWORD);
  if (!started.ok) throw new Error(`registration did not start: ${outcome(started)}`);
  const credential = newCredential(user.id);
  const response = registrationResponse(credential, {
    challenge: started.options.challenge,
    origin: rp().origin,
    rp_id: rp().rp_id,
  });
  const finished = await finishPasskeyRegistration(database.db, user, {
    name,
    response_json: JSON.stringify(response),
  });
  expect(outcome(finished)).toBe("ok");
  return credential;
}

async function signInWith(b: Browser, credential: SoftCredential, override: { origin?: string } = {}) {
  const options = await passkeySignInOptions(database.db, b.meta());
  if (!options.ok) throw new Error("no options");
  const response = assertion(credential, {
    challenge: options.options.challenge,
    origin: override.origin ?? rp().origin,
    rp_id: rp().rp_id,
  });
  const result = await signInWithPasskey(database.db, b.meta(), { response_json: JSON.stringify(response) });
  if (result.ok) b.apply(result.set_cookies);
  return { result, response };
}

describe("adding a passkey", () => {
  it("needs the current password, then keeps the credential and tells the owner", async () => {
    const user = await someone();
    const wrong = await startPasskeyRegistration(database.db, browser().meta(), user, "not the password 1");
    expect(outcome(wrong)).toBe("wrong_password");
    await addPasskey(user, "Work laptop");
    const list = await listPasskeys(database.db, user.id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ name: "Work laptop", last_used_at: null });
    expect((await lastMessageTo(database.db, user.email))?.subject).toBe("A passkey was added to your account");
    const [event] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actor_id, user.id), eq(auditLog.action, "auth.passkey.added")));
    expect(event).toBeDefined();
  });

  it("refuses a credential made on another origin, and a challenge answered twice", async () => {
    const user = await someone();
    const started = await startPasskeyRegistration(database.db, browser().meta(), user, PASSWORD);
    if (!started.ok) throw new Error("no options");
    const credential = newCredential(user.id);
    const foreign = registrationResponse(credential, {
      challenge: started.options.challenge,
      origin: "https://lookalike.example",
      rp_id: rp().rp_id,
    });
    expect(
      outcome(
        await finishPasskeyRegistration(database.db, user, { name: "x", response_json: JSON.stringify(foreign) }),
      ),
    ).toBe("invalid");
    // The challenge was used up by the refused answer: the right one over it is refused too.
    const right = registrationResponse(credential, {
      challenge: started.options.challenge,
      origin: rp().origin,
      rp_id: rp().rp_id,
    });
    expect(
      outcome(await finishPasskeyRegistration(database.db, user, { name: "x", response_json: JSON.stringify(right) })),
    ).toBe("invalid");
    expect(await listPasskeys(database.db, user.id)).toHaveLength(0);
  });

  it("refuses a registration challenge issued to someone else", async () => {
    const owner = await someone();
    const other = await someone();
    const started = await startPasskeyRegistration(database.db, browser().meta(), owner, PASSWORD);
    if (!started.ok) throw new Error("no options");
    const response = registrationResponse(newCredential(other.id), {
      challenge: started.options.challenge,
      origin: rp().origin,
      rp_id: rp().rp_id,
    });
    const result = await finishPasskeyRegistration(database.db, other, {
      name: "x",
      response_json: JSON.stringify(response),
    });
    expect(outcome(result)).toBe("invalid");
    expect(await listPasskeys(database.db, other.id)).toHaveLength(0);
  });
});

describe("signing in with a passkey", () => {
  it("is one step, makes a session like the two-step path, and records the sign-in", async () => {
    const user = await someone();
    const credential = await addPasskey(user);
    const b = browser();
    const { result } = await signInWith(b, credential);
    expect(outcome(result)).toBe("signed_in");
    const session = await sessionUserFromCookie(database.db, b.cookieHeader());
    expect(session).toMatchObject({ id: user.id, role: "user" });
    expect(b.has(DEVICE_COOKIE)).toBe(true);
    const [row] = await database.db.select().from(sessions).where(eq(sessions.id, session!.session_id));
    expect(row?.userAgent).toBe(CHROME_MAC);
    const [event] = await database.db
      .select({ after: auditLog.after })
      .from(auditLog)
      .where(and(eq(auditLog.actor_id, user.id), eq(auditLog.action, "auth.sign_in")))
      .orderBy(desc(auditLog.id));
    expect(event?.after).toEqual({ method: "passkey" });
    expect((await listPasskeys(database.db, user.id))[0]?.last_used_at).not.toBeNull();
  });

  it("refuses a replayed assertion, a foreign origin and a challenge issued for something else", async () => {
    const user = await someone();
    const credential = await addPasskey(user);
    const first = await signInWith(browser(), credential);
    expect(outcome(first.result)).toBe("signed_in");
    const replay = await signInWithPasskey(database.db, browser().meta(), {
      response_json: JSON.stringify(first.response),
    });
    expect(outcome(replay)).toBe("invalid");

    const foreign = await signInWith(browser(), credential, { origin: "https://lookalike.example" });
    expect(outcome(foreign.result)).toBe("invalid");

    // A challenge issued to confirm a transfer does not sign in.
    const stepUp = await assertionOptions(database.db, "step_up", { user_id: user.id, bound_hash: "x" });
    const crossed = assertion(credential, { challenge: stepUp.challenge, origin: rp().origin, rp_id: rp().rp_id });
    const refused = await signInWithPasskey(database.db, browser().meta(), { response_json: JSON.stringify(crossed) });
    expect(outcome(refused)).toBe("invalid");

    const events = await database.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.actor_id, user.id), eq(auditLog.action, "auth.passkey.sign_in_invalid")));
    expect(events).toHaveLength(3);
  });

  it("is refused while sign-in to the account is locked", async () => {
    const user = await someone();
    const credential = await addPasskey(user);
    await database.db.insert(signInLockouts).values({
      email: user.email,
      locked_until: new Date(Date.now() + LOCKOUT_MS),
      updated_at: new Date(),
    });
    const { result } = await signInWith(browser(), credential);
    expect(outcome(result)).toBe("locked");
  });

  it("does not work once the passkey is removed", async () => {
    const user = await someone();
    const credential = await addPasskey(user);
    const [key] = await listPasskeys(database.db, user.id);
    const removed = await removePasskeyWithPassword(database.db, browser().meta(), user, {
      passkey_id: key!.id,
      current_password: PASSWORD,
    });
    expect(outcome(removed)).toBe("ok");
    const { result } = await signInWith(browser(), credential);
    expect(outcome(result)).toBe("invalid");
    const [row] = await database.db.select().from(passkeys).where(eq(passkeys.id, key!.id));
    expect(row?.removed_at).not.toBeNull();
  });
});

describe("removing a passkey", () => {
  it("with another passkey, never with itself, and never someone else's", async () => {
    const user = await someone();
    const laptop = await addPasskey(user, "Laptop");
    const phone = await addPasskey(user, "Phone");
    const [laptopKey, phoneKey] = await listPasskeys(database.db, user.id);

    // The passkey being removed cannot confirm its own removal.
    const options = await passkeyRemovalOptions(database.db, user, laptopKey!.id);
    expect(options?.allowCredentials?.map((c) => c.id)).toEqual([phone.credential_id.toString("base64url")]);
    const self = assertion(laptop, { challenge: options!.challenge, origin: rp().origin, rp_id: rp().rp_id });
    expect(
      outcome(
        await removePasskeyWithPasskey(database.db, user, {
          passkey_id: laptopKey!.id,
          response_json: JSON.stringify(self),
        }),
      ),
    ).toBe("invalid");

    // Another member cannot remove it, whatever they confirm with.
    const other = await someone();
    const notTheirs = await removePasskeyWithPassword(database.db, browser().meta(), other, {
      passkey_id: laptopKey!.id,
      current_password: PASSWORD,
    });
    expect(outcome(notTheirs)).toBe("not_found");
    expect(await passkeyRemovalOptions(database.db, other, laptopKey!.id)).toBeNull();

    const again = await passkeyRemovalOptions(database.db, user, laptopKey!.id);
    const confirm = assertion(phone, { challenge: again!.challenge, origin: rp().origin, rp_id: rp().rp_id });
    const removed = await removePasskeyWithPasskey(database.db, user, {
      passkey_id: laptopKey!.id,
      response_json: JSON.stringify(confirm),
    });
    expect(outcome(removed)).toBe("ok");
    expect((await listPasskeys(database.db, user.id)).map((p) => p.id)).toEqual([phoneKey!.id]);
  });

  it("with a wrong password is refused and counted", async () => {
    const user = await someone();
    await addPasskey(user);
    const [key] = await listPasskeys(database.db, user.id);
    const result = await removePasskeyWithPassword(database.db, browser().meta(), user, {
      passkey_id: key!.id,
      current_password: "a wrong password 12",
    });
    expect(outcome(result)).toBe("wrong_password");
    expect(await listPasskeys(database.db, user.id)).toHaveLength(1);
  });
});

describe("staff required to use passkeys", () => {
  it("refuses the password path to staff who have a passkey, and keeps their last passkey", async () => {
    institution().staff_passkeys_required = true;
    const admin = await someone("admin");
    const b = browser();
    // Without a passkey the password path still opens (they are then led to add one).
    expect(outcome(await startSignIn(database.db, b.meta(), { email: admin.email, password: PASSWORD }))).toBe(
      "challenge",
    );
    await addPasskey(admin);
    const refused = await startSignIn(database.db, browser().meta(), { email: admin.email, password: PASSWORD });
    expect(outcome(refused)).toBe("passkey_required");
    const [key] = await listPasskeys(database.db, admin.id);
    const keep = await removePasskeyWithPassword(database.db, browser().meta(), admin, {
      passkey_id: key!.id,
      current_password: PASSWORD,
    });
    expect(outcome(keep)).toBe("last_staff_passkey");
    // A member with a passkey still has the password path.
    const member = await someone();
    await addPasskey(member);
    expect(outcome(await startSignIn(database.db, browser().meta(), { email: member.email, password: PASSWORD }))).toBe(
      "challenge",
    );
  });
});

describe("a staff member who lost their passkeys (npm run staff:passkeys:remove)", () => {
  it("removes all of them and ends their sessions, audited and emailed; the password path opens again", async () => {
    institution().staff_passkeys_required = true;
    const admin = await someone("admin");
    await addPasskey(admin, "Work phone");
    await addPasskey(admin, "Work laptop");
    const b = browser();
    await signInWith(b, await addPasskey(admin, "Spare key"));
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, admin.id))).not.toHaveLength(0);
    expect(outcome(await startSignIn(database.db, browser().meta(), { email: admin.email, password: PASSWORD }))).toBe(
      "passkey_required",
    );

    const result = await removeStaffPasskeysFromServer(database.db, admin.email.toUpperCase());
    expect(result).toMatchObject({ ok: true, removed: 3 });
    expect(await listPasskeys(database.db, admin.id)).toEqual([]);
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, admin.id))).toEqual([]);
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "staff.passkeys.removed"), eq(auditLog.subject_id, admin.id)));
    expect(audit?.actor_email).toBe(PASSKEYS_SERVER_COMMAND_ACTOR);
    expect((await lastMessageTo(database.db, admin.email))?.subject).toBe("A passkey was removed from your account");
    // The password and the code again, then they are led to add a new passkey.
    expect(outcome(await startSignIn(database.db, browser().meta(), { email: admin.email, password: PASSWORD }))).toBe(
      "challenge",
    );
  });

  it("refuses a member, someone with no passkey and an unknown address, and changes nothing", async () => {
    const member = await someone();
    await addPasskey(member);
    const staffWithout = await someone("reviewer");
    const audits = async () => (await database.db.select({ id: auditLog.id }).from(auditLog)).length;
    const before = await audits();
    expect(await removeStaffPasskeysFromServer(database.db, member.email)).toMatchObject({
      ok: false,
      kind: "forbidden",
      code: "not_staff",
      message: `Refused: ${member.email} is not staff. Members remove passkeys in Account Settings and can always sign in with their password.`,
    });
    expect(await listPasskeys(database.db, member.id)).toHaveLength(1);
    expect(await removeStaffPasskeysFromServer(database.db, staffWithout.email)).toEqual({
      ok: false,
      kind: "conflict",
      code: "none",
      message: `Nothing to do: ${staffWithout.email} has no passkey.`,
    });
    expect(await removeStaffPasskeysFromServer(database.db, "nobody@example.com")).toEqual({
      ok: false,
      kind: "not_found",
      code: "not_found",
      message: "Refused: nobody has the email nobody@example.com.",
    });
    expect(await audits()).toBe(before);
  });
});

describe("new devices and login alerts", () => {
  it("alerts on a sign-in from a device not seen before, with a link to end that session, and not again", async () => {
    const user = await someone();
    const b = browser();
    const step1 = await startSignIn(database.db, b.meta(), { email: user.email, password: PASSWORD });
    if (!step1.ok || step1.status !== "challenge") throw new Error("no challenge");
    b.apply(step1.set_cookies);
    const signedIn = await verifySignInCode(database.db, b.meta(), { code: await lastCodeTo(database.db, user.email) });
    if (!signedIn.ok) throw new Error(outcome(signedIn));
    b.apply(signedIn.set_cookies);
    const session = await sessionUserFromCookie(database.db, b.cookieHeader());
    const alert = await lastMessageTo(database.db, user.email);
    expect(alert?.subject).toBe("New sign-in to your account");
    expect(alert?.text_body).toContain("Chrome 131 on macOS");
    expect(alert?.text_body).toContain(`/settings/account?session=${session!.session_id}#sessions`);

    // The same browser again: no alert.
    const before = await database.db.select({ id: outbox.id }).from(outbox).where(eq(outbox.to_email, user.email));
    const again = await startSignIn(database.db, b.meta(), { email: user.email, password: PASSWORD });
    if (!again.ok || again.status !== "challenge") throw new Error("no challenge");
    b.apply(again.set_cookies);
    const code = await lastCodeTo(database.db, user.email);
    const second = await verifySignInCode(database.db, b.meta(), { code });
    expect(outcome(second)).toBe("signed_in");
    const after = await database.db.select({ id: outbox.id }).from(outbox).where(eq(outbox.to_email, user.email));
    // Only the second sign-in code was sent, no alert.
    expect(after.length - before.length).toBe(1);
    expect((await lastMessageTo(database.db, user.email))?.kind).toBe("sign_in_code");
  });
});

describe("sessions and devices", () => {
  it("lists the person's live sessions, ends another, and never someone else's", async () => {
    const user = await someone();
    const credential = await addPasskey(user);
    const here = browser();
    const there = browser();
    await signInWith(here, credential);
    await signInWith(there, credential);
    const me = await sessionUserFromCookie(database.db, here.cookieHeader());
    const them = await sessionUserFromCookie(database.db, there.cookieHeader());
    const list = await listActiveSessions(database.db, user.id, me!.session_id);
    expect(list.map((s) => s.current)).toEqual([true, false]);
    expect(list[0]).toMatchObject({ browser: "Chrome 131", device: "macOS Catalina" });

    const stranger = await someone();
    const strangerCredential = await addPasskey(stranger);
    const strangerBrowser = browser();
    await signInWith(strangerBrowser, strangerCredential);
    const strangerSession = await sessionUserFromCookie(database.db, strangerBrowser.cookieHeader());
    expect(await endSession(database.db, user, me!.session_id, strangerSession!.session_id)).toMatchObject({
      ok: false,
      kind: "not_found",
      code: "not_found",
    });
    expect(await sessionUserFromCookie(database.db, strangerBrowser.cookieHeader())).not.toBeNull();
    expect(await endSession(database.db, user, me!.session_id, me!.session_id)).toMatchObject({
      ok: false,
      kind: "bad_input",
      code: "current",
    });

    expect(await endSession(database.db, user, me!.session_id, them!.session_id)).toEqual({ ok: true });
    expect(await sessionUserFromCookie(database.db, there.cookieHeader())).toBeNull();
    expect(await sessionUserFromCookie(database.db, here.cookieHeader())).not.toBeNull();
  });

  it("ends all the others at once", async () => {
    const user = await someone();
    const credential = await addPasskey(user);
    const browsers = [browser(), browser(), browser()];
    for (const b of browsers) await signInWith(b, credential);
    const me = await sessionUserFromCookie(database.db, browsers[0]!.cookieHeader());
    expect((await endOtherSessions(database.db, user, me!.session_id)).ended).toBe(2);
    expect(await sessionUserFromCookie(database.db, browsers[1]!.cookieHeader())).toBeNull();
    expect(await sessionUserFromCookie(database.db, browsers[2]!.cookieHeader())).toBeNull();
    expect(await listActiveSessions(database.db, user.id, me!.session_id)).toHaveLength(1);
  });
});

describe("confirming a money action with a passkey", () => {
  it("confirms only the transfer its challenge was issued for, once", async () => {
    const user = await someone();
    const credential = await addPasskey(user);
    const transferA = JSON.stringify(["member", "key-a", 1, 2000, "lee@example.com"]);
    const transferB = JSON.stringify(["member", "key-a", 1, 200000, "mallory@example.com"]);
    const options = await stepUpPasskeyOptions(database.db, user, transferA);
    expect(options?.allowCredentials?.map((c) => c.id)).toEqual([credential.credential_id.toString("base64url")]);
    const answer = JSON.stringify(
      assertion(credential, { challenge: options!.challenge, origin: rp().origin, rp_id: rp().rp_id }),
    );
    // The answer for transfer A does not confirm transfer B (and is used up by trying).
    const crossed = await verifyStepUp(database.db, user, {
      proof: { passkey_response: answer },
      transfer: transferB,
      action: "transfer_to_member",
    });
    expect(crossed).toMatchObject({ ok: false, code: "otp_invalid" });

    const fresh = await stepUpPasskeyOptions(database.db, user, transferA);
    const right = JSON.stringify(
      assertion(credential, { challenge: fresh!.challenge, origin: rp().origin, rp_id: rp().rp_id }),
    );
    const confirmed = await verifyStepUp(database.db, user, {
      proof: { passkey_response: right },
      transfer: transferA,
      action: "transfer_to_member",
    });
    expect(confirmed).toEqual({ ok: true });
    // The same answer again is refused: the challenge was used.
    const replayed = await verifyStepUp(database.db, user, {
      proof: { passkey_response: right },
      transfer: transferA,
      action: "transfer_to_member",
    });
    expect(replayed).toMatchObject({ ok: false, code: "otp_invalid" });
  });

  it("never with another member's passkey, nor a sign-in challenge", async () => {
    const user = await someone();
    await addPasskey(user);
    const other = await someone();
    const otherCredential = await addPasskey(other);
    const transfer = JSON.stringify(["ach", "key-b", 1, 5000]);
    const options = await stepUpPasskeyOptions(database.db, user, transfer);
    const foreign = JSON.stringify(
      assertion(otherCredential, { challenge: options!.challenge, origin: rp().origin, rp_id: rp().rp_id }),
    );
    expect(
      await verifyStepUp(database.db, user, {
        proof: { passkey_response: foreign },
        transfer,
        action: "transfer_to_us_bank",
      }),
    ).toMatchObject({ ok: false, code: "otp_invalid" });
    const signIn = await assertionOptions(database.db, "sign_in", {});
    const crossed = JSON.stringify(
      assertion(otherCredential, { challenge: signIn.challenge, origin: rp().origin, rp_id: rp().rp_id }),
    );
    expect(
      await verifyStepUp(database.db, other, {
        proof: { passkey_response: crossed },
        transfer,
        action: "transfer_to_us_bank",
      }),
    ).toMatchObject({ ok: false, code: "otp_invalid" });
    expect(await stepUpPasskeyOptions(database.db, await someone(), transfer)).toBeNull();
  });
});
