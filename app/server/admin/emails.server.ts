import { institution } from "~/config/institution.server";
import { publicBaseUrl } from "~/server/auth/auth.server";
import type { OutgoingEmail } from "~/server/mail/outbox.server";

/**
 * The messages of staff decisions (docs/product.md#staff-review): approval, rejection with its
 * reason, info request.
 */
type Message = Omit<OutgoingEmail, "to" | "user_id">;

function signature(): string {
  const profile = institution();
  return `\n\n${profile.name}\n${profile.support_email} · ${profile.support_phone}`;
}

export function applicationApprovedEmail(first_name: string, accounts: { name: string; masked: string }[]): Message {
  const profile = institution();
  return {
    kind: "application_approved",
    subject: `Welcome to ${profile.name}: your membership is approved`,
    text:
      `Hello ${first_name},\n\n` +
      `Good news: your membership application is approved. These accounts are now open in your name:\n` +
      accounts.map((a) => `- ${a.name} (${a.masked})`).join("\n") +
      `\n\nA debit card for your checking account is on its way.\n\n` +
      `Sign in at ${publicBaseUrl()}/login to start banking.` +
      signature(),
  };
}

export function applicationRejectedEmail(first_name: string, reason: string): Message {
  const profile = institution();
  return {
    kind: "application_rejected",
    subject: `Your membership application`,
    text:
      `Hello ${first_name},\n\n` +
      `Thank you for applying to ${profile.name}. We are sorry, but we could not approve your application.\n\n` +
      `Reason: ${reason}\n\n` +
      `If you have questions, or if something has changed, write to us at ${profile.support_email} or call ${profile.support_phone}.` +
      signature(),
  };
}

export function informationRequestedEmail(first_name: string, message: string): Message {
  return {
    kind: "info_requested",
    subject: `We need a little more information for your application`,
    text:
      `Hello ${first_name},\n\n` +
      `Our team is reviewing your membership application and needs a little more information:\n\n` +
      `${message}\n\n` +
      `Please sign in at ${publicBaseUrl()}/login and answer on your application status page. You can add a new document there.` +
      signature(),
  };
}

export function staffCreatedMemberEmail(first_name: string): Message {
  const profile = institution();
  return {
    kind: "application_approved",
    subject: `Your online banking at ${profile.name}`,
    text:
      `Hello ${first_name},\n\n` +
      `Our staff opened online banking for you. Sign in at ${publicBaseUrl()}/login with this email address and the temporary password you were given; ` +
      `you will be asked to choose your own password at your first sign-in.` +
      signature(),
  };
}

const ROLE_NAMES: Record<"admin" | "reviewer", string> = {
  admin: "staff",
  reviewer: "reviewer (staff without money powers)",
};

/**
 * A new staff account's set-up link (docs/product.md#staff-role-grants): sent only to the address
 * the second admin approved. The link sets the person's own password; staff see only the redacted
 * text in the outbox, so the admins who asked and approved cannot use it.
 */
export function staffSetUpEmail(name: string, role: "admin" | "reviewer", url: string, valid_hours: number): Message {
  const profile = institution();
  const text = (link: string) =>
    `Hello ${name},\n\n` +
    `A back-office account at ${profile.name} was opened for you, as ${ROLE_NAMES[role]}.\n\n` +
    `Choose your own password here (the link works once and expires in ${valid_hours} hours):\n${link}\n\n` +
    `Then sign in at ${publicBaseUrl()}/login: a 6-digit code is emailed to this address at every sign-in, and you can switch to an authenticator app in Settings.\n\n` +
    `If you did not expect this, tell ${profile.support_email} at once.` +
    signature();
  return {
    kind: "password_reset",
    subject: `Set up your back-office account`,
    text: text(url),
    redacted_text: text("[set-up link hidden: it works for the new staff member only]"),
  };
}

/** A member raised to staff or reviewer, told by email once a second admin approved it. */
export function staffRoleGrantedEmail(name: string, role: "admin" | "reviewer"): Message {
  const profile = institution();
  return {
    kind: "security_alert",
    subject: `You now have back-office access`,
    text:
      `Hello ${name},\n\n` +
      `Your sign-in at ${profile.name} now also opens the back office, as ${ROLE_NAMES[role]}. Your password and second factor stay as they are.\n\n` +
      `If you did not expect this, tell ${profile.support_email} at once.` +
      signature(),
  };
}
