import { useEffect, useRef, useState } from "react";
import { useFetcher } from "react-router";
import { Fingerprint } from "lucide-react";
import { Button, CurrentPasswordField, FormMessage, TextField } from "~/components/ui";
import { useHydrated } from "~/components/ui/use-hydrated";
import { StatusMessage } from "./status-message";
import { SettingsSection } from "./settings-section";
import type { AccountActionData, AccountData, PasskeyData } from "./types";

const ACTION = "/settings/account";

function fieldError(result: AccountActionData | undefined, name: string): string | undefined {
  const messages = result?.reply?.error?.[name];
  return messages?.[0] ?? undefined;
}

/** Why the browser's passkey prompt ended without a passkey, in plain words. */
export function ceremonyProblem(error: unknown): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "NotAllowedError" || name === "AbortError")
    return "The passkey prompt was closed or timed out. Nothing was changed.";
  if (name === "InvalidStateError") return "This device already holds a passkey for your account.";
  if (name === "NotSupportedError" || name === "SecurityError")
    return "This browser or device cannot use passkeys here.";
  return "The passkey could not be used. Nothing was changed.";
}

/**
 * Passkeys (docs/product.md#passkeys): the list (name, added, last used), adding one (a name and
 * the current password, then the device's own prompt), and removing one (the current password, or
 * another of the person's passkeys). Adding and confirming with a passkey need JavaScript (the
 * browser's WebAuthn API); the list and removal with the password work without it.
 */
export function PasskeysSection({ account, pageResult }: { account: AccountData; pageResult?: AccountActionData }) {
  const add = useFetcher<AccountActionData>({ key: "settings-account-passkey-add" });
  const hydrated = useHydrated();
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const handled = useRef<unknown>(null);
  const nameRef = useRef("");
  const result = add.data ?? pageResult;

  useEffect(() => {
    // Step 2: the server's options go to the device's prompt, and its answer back to the server.
    const data = add.data;
    if (!data || data.intent !== "passkey-options" || !data.ok || !data.passkey_options) return;
    if (handled.current === data) return;
    handled.current = data;
    setBusy(true);
    void (async () => {
      try {
        const { startRegistration } = await import("@simplewebauthn/browser");
        const response = await startRegistration({ optionsJSON: data.passkey_options as never });
        add.submit(
          { intent: "passkey-add", name: nameRef.current, response: JSON.stringify(response) },
          { method: "post", action: ACTION },
        );
      } catch (error) {
        setProblem(ceremonyProblem(error));
      } finally {
        setBusy(false);
      }
    })();
  }, [add, add.data]);

  const statusResult = result && result.message && result.intent !== "passkey-options" ? result : undefined;
  const optionsRefused = result?.intent === "passkey-options" && !result.ok ? result : undefined;
  return (
    <SettingsSection
      id="passkeys"
      title="Passkeys"
      icon={Fingerprint}
      description="Sign in with your fingerprint, face or device PIN instead of a password and a code, and confirm transfers the same way. A passkey stays on your device; we keep only its public key."
    >
      {account.passkey_required ? (
        <FormMessage tone="info" announce={false} className="mb-3">
          Staff sign in with a passkey. Add one to continue to the back office.
        </FormMessage>
      ) : null}
      {account.passkeys.length === 0 ? (
        <p className="text-sm text-slate-700">You have no passkeys yet.</p>
      ) : (
        <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200" aria-label="Your passkeys">
          {account.passkeys.map((passkey) => (
            <PasskeyRow key={passkey.id} passkey={passkey} canUseOther={account.passkeys.length > 1} />
          ))}
        </ul>
      )}
      {account.demo_locked ? (
        <FormMessage tone="info" announce={false} className="mt-3">
          The published demo sign-ins cannot add passkeys, so the demo stays open to everyone.
        </FormMessage>
      ) : hydrated ? (
        <add.Form
          method="post"
          action={ACTION}
          className="mt-4 space-y-4 rounded-lg bg-slate-50 p-4"
          aria-label="Add a passkey"
          onSubmit={(event) => {
            setProblem(null);
            nameRef.current = String(new FormData(event.currentTarget).get("name") ?? "");
          }}
        >
          <input type="hidden" name="intent" value="passkey-options" />
          <p className="text-sm font-medium text-slate-800">Add a passkey</p>
          <TextField
            name="name"
            label="Name"
            description="Something you will recognise, such as the device it is on."
            maxLength={60}
            isRequired
            error={fieldError(optionsRefused, "name")}
          />
          <CurrentPasswordField error={fieldError(optionsRefused, "current_password")} />
          {problem ? <FormMessage tone="error">{problem}</FormMessage> : null}
          {optionsRefused && !optionsRefused.reply ? <StatusMessage result={optionsRefused} /> : null}
          <div className="flex justify-end">
            <Button type="submit" isPending={add.state !== "idle" || busy} pendingLabel="Waiting for your device…">
              Add passkey
            </Button>
          </div>
        </add.Form>
      ) : (
        <p className="mt-3 text-sm text-slate-700">Adding a passkey needs JavaScript, which is off in this browser.</p>
      )}
      <StatusMessage result={statusResult} className="mt-3" />
    </SettingsSection>
  );
}

function PasskeyRow({ passkey, canUseOther }: { passkey: PasskeyData; canUseOther: boolean }) {
  const remove = useFetcher<AccountActionData>({ key: `settings-account-passkey-remove-${passkey.id}` });
  const hydrated = useHydrated();
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const handled = useRef<unknown>(null);
  const result = remove.data;

  useEffect(() => {
    const data = remove.data;
    if (!data || data.intent !== "passkey-remove-options" || !data.ok || !data.passkey_options) return;
    if (handled.current === data) return;
    handled.current = data;
    void (async () => {
      try {
        const { startAuthentication } = await import("@simplewebauthn/browser");
        const response = await startAuthentication({ optionsJSON: data.passkey_options as never });
        remove.submit(
          { intent: "passkey-remove-confirm", passkey_id: String(passkey.id), response: JSON.stringify(response) },
          { method: "post", action: ACTION },
        );
      } catch (error) {
        setProblem(ceremonyProblem(error));
      }
    })();
  }, [remove, remove.data, passkey.id]);

  const showForm = open || !hydrated;
  const refused = result && !result.ok ? result : undefined;
  const nameId = `passkey-${passkey.id}-name`;
  return (
    <li className="p-3 sm:p-4" aria-labelledby={nameId}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0 flex-1">
          <p id={nameId} className="break-words font-medium text-slate-900">
            {passkey.name}
          </p>
          <p className="text-sm text-slate-600">
            Added <time dateTime={passkey.created_at}>{passkey.created_label}</time> ·{" "}
            {passkey.last_used_at ? (
              <>
                Last used <time dateTime={passkey.last_used_at}>{passkey.last_used_label}</time>
              </>
            ) : (
              "Not used yet"
            )}
            {passkey.synced ? " · Synced" : ""}
          </p>
        </div>
        {hydrated && !open ? (
          <Button
            variant="secondary"
            className="self-start"
            onPress={() => setOpen(true)}
            aria-label={`Remove ${passkey.name}`}
          >
            Remove
          </Button>
        ) : null}
      </div>
      {showForm ? (
        <remove.Form
          method="post"
          action={ACTION}
          className="mt-3 space-y-3 rounded-lg bg-slate-50 p-3"
          aria-label={`Remove ${passkey.name}`}
          onSubmit={() => setProblem(null)}
        >
          <input type="hidden" name="intent" value="passkey-remove" />
          <input type="hidden" name="passkey_id" value={passkey.id} />
          <CurrentPasswordField error={fieldError(refused, "current_password")} />
          {problem ? <FormMessage tone="error">{problem}</FormMessage> : null}
          {refused && !fieldError(refused, "current_password") ? (
            <FormMessage tone="error">{refused.detail ?? refused.message}</FormMessage>
          ) : null}
          <div className="flex flex-wrap justify-end gap-2">
            {hydrated ? (
              <Button variant="secondary" onPress={() => setOpen(false)}>
                Keep it
              </Button>
            ) : null}
            {hydrated && canUseOther ? (
              <Button
                variant="secondary"
                onPress={() => {
                  setProblem(null);
                  remove.submit(
                    { intent: "passkey-remove-options", passkey_id: String(passkey.id) },
                    { method: "post", action: ACTION },
                  );
                }}
              >
                Confirm with another passkey
              </Button>
            ) : null}
            <Button type="submit" variant="danger" isPending={remove.state !== "idle"} pendingLabel="Removing…">
              Remove passkey
            </Button>
          </div>
        </remove.Form>
      ) : null}
    </li>
  );
}
