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
import { currentPasswordLockedMessage } from "~/server/auth/current-password.server";
import { requestMeta, setCookieHeaders } from "~/server/auth/request-meta.server";
import { requireUser } from "~/server/auth/session.server";
import { parseSubmission, readForm, replyTo } from "~/server/http/form.server";
import { UNKNOWN_INTENT_MESSAGE, formIntent } from "~/domain/form-intent";
import { DEMO_SETTINGS_LOCKED } from "~/server/settings/settings.server";
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
} from "./account.server";

/**
 * Account Settings (docs/product.md#settings): email (read-only), password change (ends every other
 * session), notification toggles, and security: loginAlerts and the authenticator app (TOTP) that
 * replaces the emailed sign-in code. A page for direct links and no-JavaScript use, and the loader
 * and action behind the Account Settings dialog.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Account Settings", matches), { name: "robots", content: "noindex" }];
}

const SIGNED_IN = ["user", "admin", "reviewer"] as const;
const ACCOUNT_INTENTS: readonly AccountIntent[] = [
  "notifications",
  "password",
  "totp-start",
  "totp-confirm",
  "totp-cancel",
  "totp-disable",
  "paper-delivery",
];
const FAILED = SETTINGS_MESSAGES.account_failed;
const UPDATED = SETTINGS_MESSAGES.account_updated;

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN });
  const account = await getAccountSettings(user.id);
  if (!account) return { account: null, role: user.role };
  const totp_setup = account.totp_enrolled ? null : await pendingTotpSetup(user);
  // Only members get statements and notices; staff see no delivery section.
  const electronic_delivery = user.role === "user" ? await electronicDelivery(user.id) : null;
  return { account: { ...account, totp_setup, electronic_delivery } as AccountData | null, role: user.role };
}

function refuse(intent: AccountIntent, detail: string, status: number, extra: Partial<AccountActionData> = {}) {
  return data({ intent, ok: false, message: FAILED, detail, ...extra } satisfies AccountActionData, { status });
}

/** Too many wrong current passwords: refused until the lock ends (current-password.server.ts). */
function passwordLocked(intent: AccountIntent, retry_after_s: number, submission: Parameters<typeof replyTo>[0]) {
  const message = currentPasswordLockedMessage(retry_after_s);
  return data(
    {
      intent,
      ok: false,
      message: FAILED,
      detail: message,
      reply: replyTo(submission, { fieldErrors: { current_password: [message] } }),
    } satisfies AccountActionData,
    {
      status: 429,
      headers: { "Retry-After": String(retry_after_s) },
    },
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser(request, { roles: SIGNED_IN });
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
      const wrongPassword = {
        reply: replyTo(submission, { fieldErrors: { current_password: ["The current password is not correct."] } }),
      };
      switch (result.status) {
        case "changed":
          return data(
            {
              intent,
              ok: true,
              message: UPDATED,
              detail: "Your password has been changed. You have been signed out everywhere else.",
            } satisfies AccountActionData,
            { headers: setCookieHeaders(result.set_cookies) },
          );
        case "wrong_password":
          return refuse(intent, "The current password is not correct.", 400, wrongPassword);
        case "locked":
          return passwordLocked(intent, result.retry_after_s, submission);
        case "not_allowed":
          return refuse(intent, DEMO_SETTINGS_LOCKED, 403);
        case "failed":
          return refuse(intent, "Please try again in a moment.", 500);
      }
      break;
    }
    case "totp-start": {
      const submission = parseSubmission(passwordOnlySchema, form);
      if (submission.status !== "success")
        return refuse(intent, "Please enter your current password to set up an authenticator app.", 400, {
          reply: replyTo(submission),
        });
      const result = await startTotpEnrollment(meta, user, submission.value.current_password, { request_id });
      const wrongPassword = {
        reply: replyTo(submission, { fieldErrors: { current_password: ["The current password is not correct."] } }),
      };
      switch (result.status) {
        case "started":
          return { intent, ok: true, message: "", totp_setup: result.setup } satisfies AccountActionData;
        case "wrong_password":
          return refuse(intent, "The current password is not correct.", 400, wrongPassword);
        case "locked":
          return passwordLocked(intent, result.retry_after_s, submission);
        case "already_enrolled":
          return {
            intent,
            ok: true,
            message: UPDATED,
            detail: "Your authenticator app is already on.",
          } satisfies AccountActionData;
        case "not_allowed":
          return refuse(intent, DEMO_SETTINGS_LOCKED, 403);
        case "failed":
          return refuse(intent, "Please try again in a moment.", 500);
      }
      break;
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
      switch (result.status) {
        case "enrolled":
          return {
            intent,
            ok: true,
            message: UPDATED,
            detail: "Authenticator app turned on. From now on, sign in with a code from your app.",
          } satisfies AccountActionData;
        case "invalid_code":
          return refuse(
            intent,
            "That code did not match. Check the time on your device and try the newest code.",
            400,
            { reply: replyTo(submission, { fieldErrors: { code: ["That code did not match."] } }), totp_setup: setup },
          );
        case "not_started":
          return refuse(intent, "Please start the set-up again.", 400);
        case "not_allowed":
          return refuse(intent, DEMO_SETTINGS_LOCKED, 403);
        case "failed":
          return refuse(intent, "Please try again in a moment.", 500, { totp_setup: setup });
      }
      break;
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
      const wrongPassword = {
        reply: replyTo(submission, { fieldErrors: { current_password: ["The current password is not correct."] } }),
      };
      switch (result.status) {
        case "disabled":
          return {
            intent,
            ok: true,
            message: UPDATED,
            detail: "Authenticator app turned off. Sign-in codes will come by email again.",
          } satisfies AccountActionData;
        case "wrong_password":
          return refuse(intent, "The current password is not correct.", 400, wrongPassword);
        case "locked":
          return passwordLocked(intent, result.retry_after_s, submission);
        case "not_allowed":
          return refuse(intent, DEMO_SETTINGS_LOCKED, 403);
        case "failed":
          return refuse(intent, "Please try again in a moment.", 500);
      }
      break;
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
