import { data } from "react-router";
import type { Route } from "./+types/account";
import { requestInfoContext } from "~/context";
import {
  changePasswordSchema,
  notificationSchema,
  passwordOnlySchema,
  SETTINGS_MESSAGES,
  totpCodeSchema,
} from "~/domain/settings";
import type { Refusal } from "~/domain/refusals";
import { PASSKEY_MESSAGES } from "~/server/auth/passkey-registration.server";
import { requestMeta, setCookieHeaders } from "~/server/auth/request-meta.server";
import { requireUser } from "~/server/auth/session.server";
import { describeUserAgent } from "~/server/auth/devices.server";
import {
  formReply,
  parseSubmission,
  readForm,
  refusalHeaders,
  refusalStatus,
  replyTo,
  type FormReply,
} from "~/server/http/form.server";
import { PUSH_MESSAGES } from "~/server/notifications/push.server";
import { checkPasskeyName } from "~/domain/passkeys";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { TOTP_CONFIRM_MESSAGES } from "~/server/settings/settings.server";
import { pageTitle } from "~/components/site/page-title";
import { FormMessage } from "~/components/ui";
import { SettingsPage } from "~/components/settings/settings-page";
import { AccountSettingsForm, passwordFormRefusal } from "~/components/settings/account-settings-form";
import type { AccountActionData, AccountData, AccountIntent } from "~/components/settings/types";
import {
  cancelTotpEnrollment,
  changeOwnPassword,
  confirmTotpEnrollment,
  disableTotp,
  getAccountSettings,
  pendingTotpSetup,
  startTotpEnrollment,
  updateNotificationSettings,
  electronicDelivery,
  withdrawElectronicDelivery,
  endOtherSessions,
  endSession,
  finishPasskeyRegistration,
  passkeyRemovalOptions,
  removePasskeyWithPasskey,
  removePasskeyWithPassword,
  securityLists,
  startPasskeyRegistration,
  pushSettings,
  pushLockedForDemo,
  addPushDevice,
  removePushDevice,
  saveNotificationChoices,
  smsOffered,
  smsSettings,
  pushConfigured,
  addSmsNumber,
  resendSmsCode,
  verifySmsNumber,
  removeSmsNumber,
} from "./account.server";
import { choicesFromForm } from "~/domain/notification-channels";
import { SMS_MESSAGES, smsCodeSchema, smsNumberSchema } from "~/domain/sms";

/**
 * Account Settings (docs/product.md#settings): email (read-only), password change (ends every other
 * session), notification toggles, and security: loginAlerts and the authenticator app (TOTP) that
 * replaces the emailed sign-in code. A page for direct links and no-JavaScript use, and the loader
 * and action behind the Account Settings dialog.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Account Settings", matches), { name: "robots", content: "noindex" }];
}

const SIGNED_IN = ["user", "admin", "reviewer", "accountant"] as const;
const ACCOUNT_INTENTS: readonly AccountIntent[] = [
  "notifications",
  "password",
  "totp-start",
  "totp-confirm",
  "totp-cancel",
  "totp-disable",
  "paper-delivery",
  "passkey-options",
  "passkey-add",
  "passkey-remove",
  "passkey-remove-options",
  "passkey-remove-confirm",
  "session-end",
  "sessions-end-others",
  "push-subscribe",
  "push-unsubscribe",
  "push-remove",
  "channel-choices",
  "sms-add",
  "sms-resend",
  "sms-verify",
  "sms-remove",
];
const FAILED = SETTINGS_MESSAGES.account_failed;
const UPDATED = SETTINGS_MESSAGES.account_updated;

export async function loader({ request }: Route.LoaderArgs) {
  // Staff the profile requires to use a passkey come here to add one (allowWithoutPasskey).
  const user = await requireUser(request, { roles: SIGNED_IN, allowWithoutPasskey: true });
  const account = await getAccountSettings(user.id);
  if (!account) return { account: null, role: user.role };
  const totp_setup = account.totp_enrolled ? null : await pendingTotpSetup(user);
  // Only members get statements and notices; staff see no delivery section.
  const electronic_delivery = user.role === "user" ? await electronicDelivery(user.id) : null;
  const lists = await securityLists(user, new URL(request.url).searchParams.get("session"));
  const push = await pushSettings(user);
  const sms = await smsSettings(user);
  return {
    account: {
      ...account,
      totp_setup,
      electronic_delivery,
      ...lists,
      push,
      sms,
    } satisfies AccountData as AccountData | null,
    role: user.role,
  };
}

function refuse(intent: AccountIntent, detail: string, status: number, extra: Partial<AccountActionData> = {}) {
  return data({ intent, ok: false, message: FAILED, detail, ...extra } satisfies AccountActionData, { status });
}

/**
 * A service's refusal (docs/architecture.md#refusals): its message as the detail, and next to its
 * field too when it names one (a wrong or locked current password); the status by its kind, with
 * Retry-After when it says how long to wait.
 */
function refused(
  intent: AccountIntent,
  refusal: Refusal,
  reply: (messages: { fieldErrors: Record<string, string[]> }) => FormReply,
  extra: Partial<AccountActionData> = {},
) {
  const next_to_field = refusal.field ? { reply: reply({ fieldErrors: { [refusal.field]: [refusal.message] } }) } : {};
  return data(
    {
      intent,
      ok: false,
      message: FAILED,
      detail: refusal.message,
      ...next_to_field,
      ...extra,
    } satisfies AccountActionData,
    { status: refusalStatus(refusal.kind), headers: refusalHeaders(refusal) },
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN, allowWithoutPasskey: true });
  const { request_id, ip } = context.get(requestInfoContext);
  const meta = requestMeta(request, ip);
  const form = await readForm(request);
  const intent = formIntent(form, ACCOUNT_INTENTS);
  if (!intent) throw data(UNKNOWN_INTENT_MESSAGE, { status: 400 });

  switch (intent) {
    case "password": {
      const submission = parseSubmission(changePasswordSchema, form);
      if (submission.status !== "success") {
        const reply = replyTo(submission);
        return data(
          { intent, ok: false, ...passwordFormRefusal(reply.error ?? {}), reply } satisfies AccountActionData,
          { status: 400 },
        );
      }
      const result = await changeOwnPassword(meta, user, submission.value, { request_id });
      if (!result.ok) return refused(intent, result, (messages) => replyTo(submission, messages));
      return data(
        {
          intent,
          ok: true,
          message: UPDATED,
          detail: "Your password has been changed. You have been signed out everywhere else.",
        } satisfies AccountActionData,
        { headers: setCookieHeaders(result.set_cookies) },
      );
    }
    case "totp-start": {
      const submission = parseSubmission(passwordOnlySchema, form);
      if (submission.status !== "success")
        return refuse(intent, "Please enter your current password to set up an authenticator app.", 400, {
          reply: replyTo(submission),
        });
      const result = await startTotpEnrollment(meta, user, submission.value.current_password, { request_id });
      if (!result.ok) return refused(intent, result, (messages) => replyTo(submission, messages));
      if (result.status === "started")
        return { intent, ok: true, message: "", totp_setup: result.setup } satisfies AccountActionData;
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail: "Your authenticator app is already on.",
      } satisfies AccountActionData;
    }
    case "totp-confirm": {
      const submission = parseSubmission(totpCodeSchema, form);
      const setup = await pendingTotpSetup(user);
      if (submission.status !== "success")
        return refuse(intent, "Please enter the 6-digit code from your app.", 400, {
          reply: replyTo(submission),
          totp_setup: setup,
        });
      const result = await confirmTotpEnrollment(meta, user, submission.value.code, { request_id });
      if (!result.ok) {
        // The code field says it shorter; the set-up stays on screen to try again (or after a failure).
        const short = { fieldErrors: { code: [TOTP_CONFIRM_MESSAGES.invalid_code_field] } };
        const again = result.code === "invalid_code" || result.code === "failed" ? { totp_setup: setup } : {};
        return refused(intent, result, () => replyTo(submission, short), again);
      }
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail: "Authenticator app turned on. From now on, sign in with a code from your app.",
      } satisfies AccountActionData;
    }
    case "totp-cancel": {
      await cancelTotpEnrollment(user.id);
      return { intent, ok: true, message: "", totp_setup: null } satisfies AccountActionData;
    }
    case "totp-disable": {
      const submission = parseSubmission(passwordOnlySchema, form);
      if (submission.status !== "success")
        return refuse(intent, "Please enter your current password to turn the authenticator app off.", 400, {
          reply: replyTo(submission),
        });
      const result = await disableTotp(meta, user, submission.value.current_password, { request_id });
      if (!result.ok) return refused(intent, result, (messages) => replyTo(submission, messages));
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail: "Authenticator app turned off. Sign-in codes will come by email again.",
      } satisfies AccountActionData;
    }
    case "paper-delivery": {
      // Withdrawing consent to electronic delivery (E-SIGN): members only, staff get no statements.
      if (user.role !== "user") return refuse(intent, "Only members choose how statements are delivered.", 403);
      await withdrawElectronicDelivery({ id: user.id, email: user.email }, { request_id, ip });
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail: "Consent withdrawn. We will mail your statements, notices and disclosures to your address on file.",
      } satisfies AccountActionData;
    }
    case "passkey-options": {
      const name = checkPasskeyName(form.get("name"));
      const password = String(form.get("current_password") ?? "");
      const fieldErrors: Record<string, string[]> = {};
      if (!name.ok) fieldErrors.name = [name.message];
      if (!password) fieldErrors.current_password = ["Please enter your current password"];
      if (!name.ok || !password)
        return refuse(intent, "Please check the highlighted fields.", 400, {
          reply: formReply(form, { fieldErrors }),
        });
      const result = await startPasskeyRegistration(meta, user, password, { request_id });
      if (!result.ok) return refused(intent, result, (messages) => formReply(form, messages));
      return { intent, ok: true, message: "", passkey_options: result.options } satisfies AccountActionData;
    }
    case "passkey-add": {
      const name = checkPasskeyName(form.get("name"));
      if (!name.ok) return refuse(intent, name.message, 400);
      const result = await finishPasskeyRegistration(
        user,
        { name: name.name, response_json: String(form.get("response") ?? "") },
        { request_id, ip },
      );
      if (!result.ok) return refused(intent, result, (messages) => formReply(form, messages));
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail: `Passkey "${name.name}" added. You can now sign in with it and use it to confirm transfers.`,
      } satisfies AccountActionData;
    }
    case "passkey-remove":
    case "passkey-remove-options":
    case "passkey-remove-confirm": {
      const passkey_id = Number(form.get("passkey_id"));
      if (!Number.isSafeInteger(passkey_id) || passkey_id <= 0) return refuse(intent, PASSKEY_MESSAGES.not_found, 404);
      if (intent === "passkey-remove-options") {
        const options = await passkeyRemovalOptions(user, passkey_id);
        if (!options) return refuse(intent, PASSKEY_MESSAGES.not_found, 404);
        return { intent, ok: true, message: "", passkey_options: options, passkey_id } satisfies AccountActionData;
      }
      let result;
      if (intent === "passkey-remove") {
        const password = String(form.get("current_password") ?? "");
        if (!password)
          return refuse(intent, "Please enter your current password", 400, {
            passkey_id,
            reply: formReply(form, { fieldErrors: { current_password: ["Please enter your current password"] } }),
          });
        result = await removePasskeyWithPassword(
          meta,
          user,
          { passkey_id, current_password: password },
          { request_id },
        );
      } else {
        result = await removePasskeyWithPasskey(
          user,
          { passkey_id, response_json: String(form.get("response") ?? "") },
          { request_id, ip },
        );
      }
      if (!result.ok) return refused(intent, result, (messages) => formReply(form, messages), { passkey_id });
      return { intent, ok: true, message: UPDATED, detail: "Passkey removed." } satisfies AccountActionData;
    }
    case "session-end": {
      const result = await endSession(user, user.session_id, String(form.get("session_id") ?? ""), { request_id, ip });
      if (!result.ok) return refuse(intent, result.message, refusalStatus(result.kind));
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail: "Session ended. That device is signed out.",
      } satisfies AccountActionData;
    }
    case "sessions-end-others": {
      const { ended } = await endOtherSessions(user, user.session_id, { request_id, ip });
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail: ended === 1 ? "1 other session ended." : `${ended} other sessions ended.`,
      } satisfies AccountActionData;
    }
    case "push-subscribe":
    case "push-unsubscribe":
    case "push-remove": {
      // Notifications on a device are the member's (staff get no notifications).
      if (user.role !== "user") return refuse(intent, PUSH_MESSAGES.members_only, 403);
      if (intent === "push-subscribe" && pushLockedForDemo(user.email)) return refuse(intent, PUSH_MESSAGES.demo, 403);
      const member = { id: user.id, email: user.email };
      if (intent === "push-subscribe") {
        const result = await addPushDevice(
          member,
          {
            subscription_json: String(form.get("subscription") ?? ""),
            device: describeUserAgent(request.headers.get("user-agent")).label,
          },
          { request_id, ip },
        );
        if (!result.ok) return refuse(intent, result.message, refusalStatus(result.kind));
        return {
          intent,
          ok: true,
          message: UPDATED,
          detail: "Notifications are on for this device.",
        } satisfies AccountActionData;
      }
      const id = Number(form.get("subscription_id"));
      if (intent === "push-remove" && (!Number.isSafeInteger(id) || id <= 0))
        return refuse(intent, PUSH_MESSAGES.not_found, 404);
      const which = intent === "push-remove" ? { id } : { endpoint: String(form.get("endpoint") ?? "") };
      const result = await removePushDevice(member, which, { request_id, ip });
      // This browser turning itself off is done either way: it has unsubscribed.
      if (!result.ok && intent === "push-remove") return refuse(intent, result.message, refusalStatus(result.kind));
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail:
          intent === "push-remove"
            ? "That device will get no more notifications."
            : "Notifications are off for this device.",
      } satisfies AccountActionData;
    }
    case "channel-choices": {
      // Which groups of notifications go by push or by text (docs/product.md#notification-channels).
      const channel = form.get("channel");
      if (user.role !== "user") return refuse(intent, PUSH_MESSAGES.members_only, 403);
      if (channel === "push") {
        if (!pushConfigured()) return refuse(intent, PUSH_MESSAGES.not_configured, 404);
        if (pushLockedForDemo(user.email)) return refuse(intent, PUSH_MESSAGES.demo, 403);
      } else if (channel === "sms") {
        if (!smsOffered(user)) return refuse(intent, SMS_MESSAGES.not_offered, 404);
      } else return refuse(intent, "Please try again.", 400);
      await saveNotificationChoices({ id: user.id, email: user.email }, channel, choicesFromForm(channel, form), {
        request_id,
        ip,
      });
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail:
          channel === "push"
            ? "Your devices will show the notifications you chose."
            : "We will text you the notifications you chose.",
      } satisfies AccountActionData;
    }
    case "sms-add":
    case "sms-resend":
    case "sms-verify":
    case "sms-remove": {
      if (user.role !== "user") return refuse(intent, SMS_MESSAGES.members_only, 403);
      if (pushLockedForDemo(user.email)) return refuse(intent, SMS_MESSAGES.demo, 403);
      if (!smsOffered(user)) return refuse(intent, SMS_MESSAGES.not_offered, 404);
      const member = { id: user.id, email: user.email };
      const tooMany = () => refuse(intent, SMS_MESSAGES.too_many_codes, 429);
      if (intent === "sms-add") {
        const submission = parseSubmission(smsNumberSchema, form);
        if (submission.status !== "success")
          return refuse(intent, SMS_MESSAGES.number_invalid, 400, { reply: replyTo(submission) });
        const result = await addSmsNumber(member, { number: submission.value.number }, { request_id, ip });
        switch (result.status) {
          case "code_sent":
            return {
              intent,
              ok: true,
              message: UPDATED,
              detail: `We texted a 6-digit code to ${result.masked}. Enter it below; it expires in 10 minutes.`,
            } satisfies AccountActionData;
          case "invalid":
            return refuse(intent, SMS_MESSAGES.number_invalid, 400, {
              reply: replyTo(submission, { fieldErrors: { number: [SMS_MESSAGES.number_invalid] } }),
            });
          case "too_many_codes":
            return tooMany();
          case "not_configured":
            return refuse(intent, SMS_MESSAGES.not_offered, 404);
        }
        break;
      }
      if (intent === "sms-resend") {
        const result = await resendSmsCode(member, { request_id, ip });
        switch (result.status) {
          case "code_sent":
            return {
              intent,
              ok: true,
              message: UPDATED,
              detail: `We texted a new code to ${result.masked}. The older code no longer works.`,
            } satisfies AccountActionData;
          case "no_pending":
            return refuse(intent, SMS_MESSAGES.no_pending, 404);
          case "too_many_codes":
            return tooMany();
          case "not_configured":
            return refuse(intent, SMS_MESSAGES.not_offered, 404);
        }
        break;
      }
      if (intent === "sms-verify") {
        const submission = parseSubmission(smsCodeSchema, form);
        if (submission.status !== "success")
          return refuse(intent, SMS_MESSAGES.code_invalid, 400, { reply: replyTo(submission) });
        const result = await verifySmsNumber(member, submission.value.code, { request_id, ip });
        const codeError = (message: string, status: number) =>
          refuse(intent, message, status, { reply: replyTo(submission, { fieldErrors: { code: [message] } }) });
        switch (result.status) {
          case "verified":
            return {
              intent,
              ok: true,
              message: UPDATED,
              detail: `Number ${result.masked} confirmed. Choose below which notifications we text you.`,
            } satisfies AccountActionData;
          case "wrong":
            return codeError(SMS_MESSAGES.code_wrong, 400);
          case "tries_used":
            return codeError(SMS_MESSAGES.code_tries_used, 429);
          case "expired":
            return codeError(SMS_MESSAGES.code_expired, 400);
          case "no_pending":
            return refuse(intent, SMS_MESSAGES.no_pending, 404);
        }
        break;
      }
      const result = await removeSmsNumber(member, { request_id, ip });
      if (result.status === "not_found") return refuse(intent, SMS_MESSAGES.no_number, 404);
      return {
        intent,
        ok: true,
        message: UPDATED,
        detail: "Your mobile number is removed. We will text you nothing more.",
      } satisfies AccountActionData;
    }
    case "notifications": {
      const submission = parseSubmission(notificationSchema, form);
      if (submission.status !== "success")
        return refuse("notifications", "Please check the settings.", 400, { reply: replyTo(submission) });
      const result = await updateNotificationSettings(user.id, submission.value, { request_id, ip });
      if (result.status === "failed") return refuse("notifications", "Please try again in a moment.", 500);
      return { intent: "notifications", ok: true, message: UPDATED } satisfies AccountActionData;
    }
  }
  return refuse(intent, "Please try again.", 400);
}

export default function AccountSettingsRoute({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <SettingsPage
      title="Account Settings"
      description="Sign-in, security and how we contact you."
      other={{ to: "/settings/profile", label: "Profile Settings" }}
      role={loaderData.role}
    >
      {loaderData.account ? (
        <AccountSettingsForm account={loaderData.account} pageResult={actionData as AccountActionData | undefined} />
      ) : (
        <FormMessage tone="error">{SETTINGS_MESSAGES.account_load_failed}</FormMessage>
      )}
    </SettingsPage>
  );
}
