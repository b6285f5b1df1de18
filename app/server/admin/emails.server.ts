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
