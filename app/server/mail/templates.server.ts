import { institution } from "~/config/institution.server";
import type { OutgoingEmail } from "./outbox.server";

/**
 * The text of every message the identity area sends. Plain text: it reads well in any client,
 * in the outbox, and in the demo inbox. Each function returns a message ready for `sendEmail`.
 */

type Message = Omit<OutgoingEmail, "to" | "user_id">;

function signature(): string {
  const profile = institution();
  return `\n\n${profile.name}\n${profile.support_email} · ${profile.support_phone}`;
}

function safetyNote(): string {
  return `\n\nWe will never ask for your password or a sign-in code by phone, text or email. If something here looks wrong, contact us at ${institution().support_email}.`;
}

export function applicationReceivedEmail(first_name: string): Message {
  const profile = institution();
  return {
    kind: "application_received",
    subject: `We received your membership application`,
    text:
      `Hello ${first_name},\n\n` +
      `Thank you for applying to become a member of ${profile.name}. Your application is now under review.\n\n` +
      `What happens next:\n` +
      `1. Our team reviews and verifies the information you gave us (usually within 1–2 business days).\n` +
      `2. We email you as soon as a decision is made. If we need anything else, we will ask you on your application status page.\n` +
      `3. Once approved, you can sign in and use all banking features.\n\n` +
      `You can check the status at any time by signing in.` +
      safetyNote() +
      signature(),
  };
}

export function signInCodeEmail(code: string, valid_minutes: number): Message {
  const profile = institution();
  const text = (shown: string) =>
    `Your ${profile.short_name} sign-in code is: ${shown}\n\n` +
    `It expires in ${valid_minutes} minutes and works once. Enter it on the "Verify OTP" step to finish signing in.\n\n` +
    `If you did not just try to sign in, someone may know your password: change it now, or call us.` +
    safetyNote() +
    signature();
  return { kind: "sign_in_code", subject: `Your sign-in code`, text: text(code), redacted_text: text("••••••") };
}

export function passwordResetEmail(url: string, valid_minutes: number): Message {
  const text = (link: string) =>
    `We received a request to reset the password for your online banking.\n\n` +
    `Choose a new password here (the link works once and expires in ${valid_minutes} minutes):\n${link}\n\n` +
    `If you did not ask for this, you can ignore this email: your password stays the same.` +
    safetyNote() +
    signature();
  return {
    kind: "password_reset",
    subject: `Reset your password`,
    text: text(url),
    redacted_text: text("[reset link hidden: it works for the member only]"),
  };
}

export function accountLockedEmail(locked_minutes: number): Message {
  return {
    kind: "account_locked",
    subject: `Sign-in to your account was locked`,
    text:
      `There were 5 unsuccessful attempts to sign in to your online banking with a wrong password, so sign-in is locked for ${locked_minutes} minutes.\n\n` +
      `If this was you, wait ${locked_minutes} minutes and try again, or reset your password from the sign-in page.\n` +
      `If it was not you, your money is safe: sign-in also needs a code sent to you. We recommend you reset your password, and call us if you are worried.` +
      safetyNote() +
      signature(),
  };
}

/** Too many wrong sign-in codes: whoever typed them got past the password, so it must change. */
export function codesLockedEmail(wrong_codes: number, locked_minutes: number): Message {
  return {
    kind: "account_locked",
    subject: `Sign-in to your account was locked`,
    text:
      `There were ${wrong_codes} unsuccessful attempts to finish signing in to your online banking with a wrong sign-in code, so sign-in is locked for ${locked_minutes} minutes.\n\n` +
      `Each of these attempts started with your correct password. If it was not you, someone knows your password: reset it now from the sign-in page ("Forgot password?"), and call us.\n` +
      `If it was you, wait ${locked_minutes} minutes and try again with the newest code we sent.` +
      safetyNote() +
      signature(),
  };
}

/**
 * Too many wrong step-up codes (the emailed codes that confirm transfers and card services): sent
 * once per lock. Whoever typed them is signed in as the member, so the advice is the same as for
 * wrong passwords in a signed-in session: end every session by resetting the password.
 */
export function stepUpCodesLockedEmail(wrong_codes: number, locked_minutes: number): Message {
  return {
    kind: "account_locked",
    subject: `Transfers and card services that need a code are locked`,
    text:
      `${wrong_codes} wrong codes were typed in your online banking in the last 15 minutes to confirm a transfer or a card service (card details, a new PIN), ` +
      `so for ${locked_minutes} minutes nothing that needs an emailed code can be done. Transfers between your own accounts and smaller transfers to other members still work.\n\n` +
      `If this was you, wait ${locked_minutes} minutes and use the newest code we send. If it was not you, someone is using a signed-in session of yours: ` +
      `reset your password from the sign-in page ("Forgot password?"), which signs out every session, and call us.` +
      safetyNote() +
      signature(),
  };
}

const CURRENT_PASSWORD_PURPOSES = {
  password_change: "change the password",
  temporary_password: "replace the temporary password",
  authenticator_on: "turn on an authenticator app",
  authenticator_off: "turn off the authenticator app",
  passkey_add: "add a passkey",
  passkey_remove: "remove a passkey",
} as const;

/**
 * Wrong passwords typed in a signed-in session (Account Settings): sent after a few, and when they
 * lock the account. Whoever typed them is already signed in, so the advice is to end that session.
 */
export function currentPasswordAlertEmail(details: {
  purpose: keyof typeof CURRENT_PASSWORD_PURPOSES;
  wrong_passwords: number;
  locked_minutes: number | null;
}): Message {
  const attempt =
    `Someone signed in to your online banking just typed a wrong password while trying to ${CURRENT_PASSWORD_PURPOSES[details.purpose]}. ` +
    `That makes ${details.wrong_passwords} wrong passwords for your account in the last 15 minutes.`;
  const outcome =
    details.locked_minutes === null
      ? `After 5, sign-in and these changes are locked for 15 minutes.`
      : `So sign-in and these changes are now locked for ${details.locked_minutes} minutes.`;
  return {
    kind: details.locked_minutes === null ? "security_alert" : "account_locked",
    subject:
      details.locked_minutes === null ? `Wrong passwords in your online banking` : `Sign-in to your account was locked`,
    text:
      `${attempt}\n\n${outcome}\n\n` +
      `If this was you, there is nothing to do. If it was not you, someone may be using a signed-in session of yours: ` +
      `reset your password from the sign-in page ("Forgot password?"), which signs out every session, and call us.` +
      safetyNote() +
      signature(),
  };
}

/**
 * A sign-in from a device not seen before (docs/product.md#sign-in-protection): which device, when,
 * and where to end that session (Account Settings, Sessions and devices: ending a session is a
 * button there, never a link that acts by itself).
 */
export function loginAlertEmail(details: { at: Date; ip: string; device: string; end_session_url: string }): Message {
  const when = details.at.toLocaleString("en-US", {
    dateStyle: "full",
    timeStyle: "long",
    timeZone: institution().time_zone,
  });
  return {
    kind: "login_alert",
    subject: `New sign-in to your account`,
    text:
      `Your online banking was just signed in to from a device we have not seen before.\n\n` +
      `When: ${when}\n` +
      `Device: ${details.device}\n` +
      `Network address: ${details.ip}\n\n` +
      `If this was you, there is nothing to do. If not, end that session now:\n${details.end_session_url}\n` +
      `then reset your password from the sign-in page ("Forgot password?") and call us.\n\n` +
      `You can turn these alerts off under Account Settings → Security → Login alerts.` +
      safetyNote() +
      signature(),
  };
}

/** A passkey was added to or removed from the account (docs/product.md#passkeys). */
export function passkeyChangedEmail(details: { change: "added" | "removed"; name: string; at: Date }): Message {
  const when = details.at.toLocaleString("en-US", {
    dateStyle: "full",
    timeStyle: "long",
    timeZone: institution().time_zone,
  });
  const added = details.change === "added";
  return {
    kind: "security_alert",
    subject: added ? `A passkey was added to your account` : `A passkey was removed from your account`,
    text:
      `The passkey "${details.name}" was ${added ? "added to" : "removed from"} your online banking (${when}).` +
      (added ? ` It can now sign in to your account and confirm transfers.` : ` It can no longer sign in.`) +
      `\n\nIf you did not do this, call us at once. ` +
      (added
        ? `Remove the passkey under Account Settings → Passkeys (a password reset alone does not remove it), then reset your password from the sign-in page ("Forgot password?"), which signs out every session.`
        : `Reset your password from the sign-in page ("Forgot password?"), which signs out every session.`) +
      safetyNote() +
      signature(),
  };
}

export function passwordChangedEmail(): Message {
  return {
    kind: "password_changed",
    subject: `Your password was changed`,
    text:
      `The password for your online banking was just changed, and every other session was signed out.\n\n` +
      `If you did not do this, call us right away.` +
      signature(),
  };
}

/**
 * An alert the member chose (docs/product.md#alerts): what happened on which account, no more
 * (no full account number, no balance of another account), and where to change the alerts.
 */
export function accountAlertEmail(alert: { title: string; body: string }): Message {
  return {
    kind: "account_alert",
    subject: alert.title,
    text:
      `${alert.body}\n\n` +
      `You asked us to tell you about this. To change or remove your alerts, sign in and choose Alerts in the account menu.` +
      safetyNote() +
      signature(),
  };
}
