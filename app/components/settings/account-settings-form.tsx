import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { Link } from "react-router";
import { KeyRound, Mail, ShieldCheck } from "lucide-react";
import { changePasswordSchema, passwordOnlySchema, SETTINGS_MESSAGES, totpCodeSchema } from "~/domain/settings";
import { Button, CurrentPasswordField, FormMessage, SchemaForm, TextField, useSchemaForm } from "~/components/ui";
import { useHydrated } from "~/components/ui/use-hydrated";
import { SettingSwitch } from "./setting-switch";
import { StatusMessage } from "./status-message";
import { SettingsSection } from "./settings-section";
import { PasskeysSection } from "./passkeys-section";
import { SessionsSection } from "./sessions-section";
import { PushSection } from "./push-section";
import { SmsSection } from "./sms-section";
import type { AccountActionData, AccountData, ElectronicDeliveryData } from "./types";

const ACTION = "/settings/account";

/**
 * Account Settings (docs/product.md#settings): email (read-only), a member's notifications on their
 * devices (Web Push, when the VAPID keys are set) and by text message (with an SMS provider configured), a member's delivery of statements and
 * notices (withdraw consent to electronic delivery), security toggles loginAlerts and twoFactor (turning it on enrols an authenticator app:
 * password, QR code, a confirming code), and the password change. Posts to /settings/account; used
 * by the page (works without JavaScript) and by the dialog.
 */
export function AccountSettingsForm({ account, pageResult }: { account: AccountData; pageResult?: AccountActionData }) {
  const prefs = useFetcher<AccountActionData>({ key: "settings-account-prefs" });
  const pick = (fetcherData: AccountActionData | undefined, intents: string[]) =>
    fetcherData ?? (pageResult && intents.includes(pageResult.intent) ? pageResult : undefined);
  const prefsResult = pick(prefs.data, ["notifications"]);
  const s = account.settings;
  return (
    <div className="space-y-6">
      <TextField
        label="Email"
        name="email_display"
        value={account.email}
        isReadOnly
        description="Contact us to change the email address you sign in with."
      />

      <prefs.Form method="post" action={ACTION} aria-label="Notification and security settings" className="space-y-6">
        <input type="hidden" name="intent" value="notifications" />
        <SettingsSection id="settings-security" title="Security" icon={ShieldCheck}>
          <SettingSwitch
            name="login_alerts"
            label="Login alerts"
            description="An email (and, for members, a notice on the bell) when someone signs in from a device we have not seen before. Members also find it under Alerts."
            defaultSelected={s.login_alerts}
          />
        </SettingsSection>
        <StatusMessage result={prefsResult} />
        <div className="flex justify-end">
          <Button type="submit" isPending={prefs.state !== "idle"} pendingLabel="Saving…">
            Save settings
          </Button>
        </div>
      </prefs.Form>

      {account.electronic_delivery ? (
        <DeliverySection delivery={account.electronic_delivery} pageResult={pick(undefined, ["paper-delivery"])} />
      ) : null}

      {account.push ? (
        <PushSection
          push={account.push}
          pageResult={pick(undefined, ["push-subscribe", "push-unsubscribe", "push-remove", "channel-choices"])}
        />
      ) : null}

      {account.sms ? (
        <SmsSection
          sms={account.sms}
          pageResult={pick(undefined, ["sms-add", "sms-resend", "sms-verify", "sms-remove", "channel-choices"])}
        />
      ) : null}

      <PasskeysSection
        account={account}
        pageResult={pick(undefined, ["passkey-options", "passkey-add", "passkey-remove", "passkey-remove-confirm"])}
      />
      <SessionsSection account={account} pageResult={pick(undefined, ["session-end", "sessions-end-others"])} />
      <TwoFactorSection
        account={account}
        pageResult={pick(undefined, ["totp-start", "totp-confirm", "totp-cancel", "totp-disable"])}
      />
      <PasswordSection demoLocked={account.demo_locked} pageResult={pick(undefined, ["password"])} />
    </div>
  );
}

function TwoFactorSection({ account, pageResult }: { account: AccountData; pageResult?: AccountActionData }) {
  const totp = useFetcher<AccountActionData>({ key: "settings-account-totp" });
  const hydrated = useHydrated();
  const result = totp.data ?? pageResult;
  const enrolled = account.totp_enrolled;
  const setup = result && "totp_setup" in result ? (result.totp_setup ?? null) : account.totp_setup;
  // With JavaScript the switch opens the panel; without it the panel that fits the state is shown.
  const [mode, setMode] = useState<"enable" | "disable" | null>(null);
  const switchRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // The panel that held focus is gone after a finished step: focus goes back to the switch.
    if (result?.ok && totp.state === "idle" && (result.intent === "totp-confirm" || result.intent === "totp-disable")) {
      switchRef.current?.querySelector<HTMLInputElement>("input")?.focus();
    }
  }, [result, totp.state]);
  const [seen, setSeen] = useState(result);
  if (seen !== result) {
    // A finished step closes the panel (React's "adjust state while rendering" pattern).
    setSeen(result);
    if (
      result?.ok &&
      (result.intent === "totp-confirm" || result.intent === "totp-disable" || result.intent === "totp-cancel")
    )
      setMode(null);
  }

  const panel: "start" | "confirm" | "disable" | null =
    setup && !enrolled
      ? "confirm"
      : !hydrated
        ? enrolled
          ? "disable"
          : "start"
        : mode === "enable" && !enrolled
          ? "start"
          : mode === "disable" && enrolled
            ? "disable"
            : null;
  const selected = enrolled ? mode !== "disable" : panel === "start" || panel === "confirm";

  const onToggle = (on: boolean) => {
    if (enrolled) return setMode(on ? null : "disable");
    if (on) return setMode("enable");
    setMode(null);
    if (setup) totp.submit({ intent: "totp-cancel" }, { method: "post", action: ACTION });
  };

  return (
    <SettingsSection
      id="settings-two-factor"
      title="Two-factor authentication"
      icon={KeyRound}
      description="Every sign-in asks for a 6-digit code. By default we email it; an authenticator app works even without email."
    >
      <div ref={switchRef}>
        <SettingSwitch
          label="Authenticator app (twoFactor)"
          description={enrolled ? "On: sign in with a code from your app." : "Off: sign-in codes come by email."}
          isSelected={selected}
          onChange={onToggle}
        />
      </div>
      {account.demo_locked ? (
        <FormMessage tone="info" announce={false} className="mt-3">
          The published demo sign-ins cannot turn on an authenticator app, so the demo stays open to everyone.
        </FormMessage>
      ) : null}
      {panel === "start" ? (
        <TotpStart
          fetcher={totp}
          result={result?.intent === "totp-start" ? result : undefined}
          onCancel={hydrated ? () => setMode(null) : undefined}
        />
      ) : null}
      {panel === "confirm" && setup ? (
        <TotpConfirm fetcher={totp} setup={setup} result={result?.intent === "totp-confirm" ? result : undefined} />
      ) : null}
      {panel === "disable" ? (
        <TotpDisable
          fetcher={totp}
          result={result?.intent === "totp-disable" ? result : undefined}
          onCancel={hydrated ? () => setMode(null) : undefined}
        />
      ) : null}
      <StatusMessage result={result && result.message ? result : undefined} className="mt-3" />
    </SettingsSection>
  );
}

type TotpFetcher = ReturnType<typeof useFetcher<AccountActionData>>;

function TotpStart({
  fetcher,
  result,
  onCancel,
}: {
  fetcher: TotpFetcher;
  result?: AccountActionData;
  onCancel?: () => void;
}) {
  const form = useSchemaForm(passwordOnlySchema, { lastResult: result?.reply });
  return (
    <SchemaForm
      form={form}
      fetcher={fetcher}
      method="post"
      action={ACTION}
      className="mt-3 space-y-4 rounded-lg bg-slate-50 p-4"
      aria-label="Set up an authenticator app"
    >
      <input type="hidden" name="intent" value="totp-start" />
      <p className="text-sm text-slate-700">To set up an authenticator app, confirm your current password.</p>
      <CurrentPasswordField />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" isPending={fetcher.state !== "idle"} pendingLabel="Checking…">
          Continue
        </Button>
        {onCancel ? (
          <Button variant="secondary" onPress={onCancel}>
            Cancel
          </Button>
        ) : null}
      </div>
    </SchemaForm>
  );
}

function TotpConfirm({
  fetcher,
  setup,
  result,
}: {
  fetcher: TotpFetcher;
  setup: NonNullable<AccountData["totp_setup"]>;
  result?: AccountActionData;
}) {
  const form = useSchemaForm(totpCodeSchema, { lastResult: result?.reply });
  return (
    <div className="mt-3 space-y-4 rounded-lg bg-slate-50 p-4">
      <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
        <li>Open your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password…).</li>
        <li>Scan this QR code, or type the key below.</li>
        <li>Enter the 6-digit code the app shows.</li>
      </ol>
      <div className="flex flex-col items-start gap-4 sm:flex-row sm:items-center">
        <img
          src={setup.qr_data_url}
          alt="QR code to add this account to your authenticator app"
          width={176}
          height={176}
          className="size-44 rounded-lg border border-slate-200 bg-white p-2"
        />
        <div className="min-w-0">
          <p className="text-sm font-medium text-slate-800">Key for typing in by hand</p>
          <p className="mt-1 break-all font-mono text-sm text-slate-900" data-totp-secret="">
            {setup.secret}
          </p>
          <p className="mt-1 text-xs text-slate-600">Time-based, 6 digits, every 30 seconds.</p>
        </div>
      </div>
      <SchemaForm
        form={form}
        fetcher={fetcher}
        method="post"
        action={ACTION}
        className="space-y-4"
        aria-label="Confirm your authenticator app"
      >
        <input type="hidden" name="intent" value="totp-confirm" />
        <TextField
          name="code"
          label="6-digit code from your app"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          pattern="\d{6}"
          isRequired
          inputClassName="max-w-40 font-mono tracking-widest"
        />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" isPending={fetcher.state !== "idle"} pendingLabel="Verifying…">
            Verify and turn on
          </Button>
          <Button type="submit" variant="secondary" name="intent" value="totp-cancel" formNoValidate>
            Cancel
          </Button>
        </div>
      </SchemaForm>
    </div>
  );
}

function TotpDisable({
  fetcher,
  result,
  onCancel,
}: {
  fetcher: TotpFetcher;
  result?: AccountActionData;
  onCancel?: () => void;
}) {
  const form = useSchemaForm(passwordOnlySchema, { lastResult: result?.reply });
  return (
    <SchemaForm
      form={form}
      fetcher={fetcher}
      method="post"
      action={ACTION}
      className="mt-3 space-y-4 rounded-lg bg-slate-50 p-4"
      aria-label="Turn off the authenticator app"
    >
      <input type="hidden" name="intent" value="totp-disable" />
      <p className="text-sm text-slate-700">
        Turning the authenticator app off sends your sign-in codes by email again. Confirm your current password.
      </p>
      <CurrentPasswordField />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="danger" isPending={fetcher.state !== "idle"} pendingLabel="Turning off…">
          Turn off authenticator app
        </Button>
        {onCancel ? (
          <Button variant="secondary" onPress={onCancel}>
            Keep it on
          </Button>
        ) : null}
      </div>
    </SchemaForm>
  );
}

function PasswordSection({ demoLocked, pageResult }: { demoLocked: boolean; pageResult?: AccountActionData }) {
  const fetcher = useFetcher<AccountActionData>({ key: "settings-account-password" });
  const formRef = useRef<HTMLFormElement>(null);
  // The browser's check answers with the same status line as the server's (passwordFormRefusal).
  const [clientResult, setClientResult] = useState<AccountActionData | null>(null);
  const serverResult = fetcher.data ?? pageResult;
  const [seenServer, setSeenServer] = useState(serverResult);
  if (seenServer !== serverResult) {
    setSeenServer(serverResult);
    setClientResult(null);
  }
  const result = clientResult ?? serverResult;
  const form = useSchemaForm(changePasswordSchema, {
    lastResult: serverResult?.reply,
    onInvalid: (errors) => setClientResult({ intent: "password", ok: false, ...passwordFormRefusal(errors) }),
  });

  useEffect(() => {
    if (fetcher.data?.ok) formRef.current?.reset();
  }, [fetcher.data]);

  return (
    <SettingsSection
      id="settings-password"
      title="Change password"
      icon={KeyRound}
      description="At least 12 characters. Changing it signs you out on every other device."
    >
      {demoLocked ? (
        <FormMessage tone="info" announce={false} className="mb-3">
          The published demo sign-ins cannot change their password, so the demo stays open to everyone.
        </FormMessage>
      ) : null}
      <SchemaForm
        ref={formRef}
        form={form}
        fetcher={fetcher}
        method="post"
        action={ACTION}
        onSubmit={() => setClientResult(null)}
        className="space-y-4"
        aria-label="Change password"
      >
        <input type="hidden" name="intent" value="password" />
        <CurrentPasswordField />
        <TextField name="new_password" label="New password" type="password" autoComplete="new-password" isRequired />
        <TextField
          name="confirm_password"
          label="Confirm new password"
          type="password"
          autoComplete="new-password"
          isRequired
        />
        <StatusMessage result={result} />
        <div className="flex justify-end">
          <Button type="submit" isPending={fetcher.state !== "idle"} pendingLabel="Changing…">
            Change password
          </Button>
        </div>
      </SchemaForm>
    </SettingsSection>
  );
}

/**
 * The status line for a password change the schema refused, in the browser or on the server: a
 * mismatch alone says so; anything else asks to check the highlighted fields.
 */
export function passwordFormRefusal(errors: Record<string, readonly string[] | null | undefined>): {
  message: string;
  detail?: string;
} {
  const fields = Object.entries(errors).filter(([, messages]) => messages?.length);
  const mismatch =
    fields.length === 1 &&
    fields[0]![0] === "confirm_password" &&
    fields[0]![1]![0] === SETTINGS_MESSAGES.passwords_do_not_match;
  return mismatch
    ? { message: SETTINGS_MESSAGES.passwords_do_not_match }
    : { message: SETTINGS_MESSAGES.account_failed, detail: "Please check the highlighted fields." };
}

/**
 * Statements and notices (E-SIGN, docs/product.md#electronic-delivery): electronic or paper by
 * mail. Withdrawing consent is one button (free unless the profile names a fee); agreeing again is
 * on the consent page, which needs the sample PDF's code.
 */
function DeliverySection({
  delivery,
  pageResult,
}: {
  delivery: ElectronicDeliveryData;
  pageResult?: AccountActionData;
}) {
  const fetcher = useFetcher<AccountActionData>({ key: "settings-account-delivery" });
  const result = fetcher.data ?? pageResult;
  const electronic = delivery.delivery === "electronic";
  return (
    <SettingsSection
      id="settings-delivery"
      title="Statements and notices"
      icon={Mail}
      description={
        electronic
          ? "You get statements, notices and disclosures electronically."
          : "We mail your statements, notices and disclosures to your address on file."
      }
    >
      {electronic ? (
        <fetcher.Form method="post" action={ACTION} className="space-y-3">
          <input type="hidden" name="intent" value="paper-delivery" />
          <p className="text-sm text-slate-700">
            Withdraw your consent to electronic delivery to get them on paper by mail
            {delivery.withdrawal_fee ? ` (a fee of ${delivery.withdrawal_fee} applies)` : " (free)"}.
          </p>
          <StatusMessage result={result} />
          <div className="flex justify-end">
            <Button type="submit" variant="secondary" isPending={fetcher.state !== "idle"} pendingLabel="Saving…">
              Withdraw consent: send paper
            </Button>
          </div>
        </fetcher.Form>
      ) : (
        <div className="space-y-3">
          <StatusMessage result={result} />
          <p className="text-sm text-slate-700">
            <Link className="font-semibold text-accent-700 underline" to="/dashboard/electronic-delivery">
              {delivery.answered ? "Switch to electronic delivery" : "Choose electronic delivery"}
            </Link>
          </p>
        </div>
      )}
    </SettingsSection>
  );
}
