import { useEffect, useState } from "react";
import { useFetcher } from "react-router";
import { BellRing } from "lucide-react";
import { Button, FormMessage } from "~/components/ui";
import { StatusMessage } from "./status-message";
import { SettingsSection } from "./settings-section";
import { ChannelChoices } from "./channel-choices";
import type { AccountActionData, PushData } from "./types";

const ACTION = "/settings/account";
/** Served from public/ at the site's root, so its scope is the whole site. */
export const PUSH_WORKER_URL = "/push-worker.js";

/** What this browser can do about notifications, found after the page loads. */
type BrowserState =
  | { kind: "checking" }
  | { kind: "unsupported" }
  | { kind: "blocked" }
  | { kind: "off" }
  | { kind: "on"; endpoint: string };

/**
 * Notifications on this device (Web Push, docs/product.md#settings): "Allow notifications on this
 * device" asks the browser's permission, registers the service worker and subscribes with the
 * server's VAPID public key; the subscription is stored for the member. The member's devices are
 * listed with Remove (plain forms: the list works without JavaScript; turning a device on needs it).
 */
export function PushSection({ push, pageResult }: { push: PushData; pageResult?: AccountActionData }) {
  const fetcher = useFetcher<AccountActionData>({ key: "settings-account-push" });
  const result = fetcher.data ?? (pageResult?.intent !== "channel-choices" ? pageResult : undefined);
  const [state, setState] = useState<BrowserState>({ kind: "checking" });
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let stopped = false;
    void browserState().then((s) => {
      if (!stopped) setState(s);
    });
    return () => {
      stopped = true;
    };
  }, [fetcher.data]);

  async function allow() {
    setProblem(null);
    setBusy(true);
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        setState({ kind: "blocked" });
        return;
      }
      const registration = await navigator.serviceWorker.register(PUSH_WORKER_URL, { scope: "/" });
      await navigator.serviceWorker.ready;
      const subscription =
        (await registration.pushManager.getSubscription()) ??
        (await registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: base64UrlBytes(push.public_key),
        }));
      await fetcher.submit(
        { intent: "push-subscribe", subscription: JSON.stringify(subscription.toJSON()) },
        { method: "post", action: ACTION },
      );
    } catch {
      setProblem("This browser could not turn notifications on. Please try again, or use another browser.");
    } finally {
      setBusy(false);
    }
  }

  async function turnOff() {
    setProblem(null);
    setBusy(true);
    try {
      const registration = await navigator.serviceWorker.getRegistration("/");
      const subscription = await registration?.pushManager.getSubscription();
      const endpoint = subscription?.endpoint ?? (state.kind === "on" ? state.endpoint : "");
      await subscription?.unsubscribe();
      await fetcher.submit({ intent: "push-unsubscribe", endpoint }, { method: "post", action: ACTION });
    } catch {
      setProblem("This browser could not turn notifications off. Please try again.");
    } finally {
      setBusy(false);
    }
  }

  const thisDevice =
    state.kind === "on"
      ? push.devices.find((d) => d.endpoint_suffix && state.endpoint.endsWith(d.endpoint_suffix))
      : undefined;
  return (
    <SettingsSection
      id="push"
      title="Notifications on your devices"
      icon={BellRing}
      description="Your bell's notifications, shown by your phone or computer even when Mutual is closed: the same words as in the bell, nothing more."
    >
      <div className="space-y-3">
        {state.kind === "checking" ? (
          <p className="text-sm text-slate-600">Checking this browser…</p>
        ) : state.kind === "unsupported" ? (
          <p className="text-sm text-slate-600">This browser cannot show notifications from websites.</p>
        ) : state.kind === "blocked" ? (
          <FormMessage tone="error">
            Notifications are blocked for this site. Allow them in your browser&apos;s site settings, then try again.
          </FormMessage>
        ) : state.kind === "on" && thisDevice ? (
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-sm text-slate-800">Notifications are on for this device.</p>
            <Button variant="secondary" onPress={() => void turnOff()} isPending={busy} pendingLabel="Turning off…">
              Turn off on this device
            </Button>
          </div>
        ) : (
          <Button onPress={() => void allow()} isPending={busy} pendingLabel="Allowing…">
            Allow notifications on this device
          </Button>
        )}
        {problem ? <FormMessage tone="error">{problem}</FormMessage> : null}
        <StatusMessage result={result} />
        {push.devices.length ? (
          <ul
            className="divide-y divide-slate-200 rounded-lg border border-slate-200"
            aria-label="Devices with notifications on"
          >
            {push.devices.map((d) => (
              <li key={d.id} className="flex flex-col gap-2 p-3 sm:flex-row sm:items-center sm:justify-between">
                <div>
                  <p className="font-medium text-slate-900">
                    {d.device}
                    {d === thisDevice ? (
                      <span className="ml-2 rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-semibold text-emerald-900">
                        This device
                      </span>
                    ) : null}
                  </p>
                  <p className="text-sm text-slate-600">
                    On since <time dateTime={d.created_at}>{d.created_label}</time>
                  </p>
                </div>
                <fetcher.Form method="post" action={ACTION}>
                  <input type="hidden" name="intent" value="push-remove" />
                  <input type="hidden" name="subscription_id" value={d.id} />
                  <Button type="submit" variant="secondary" aria-label={`Remove notifications: ${d.device}`}>
                    Remove
                  </Button>
                </fetcher.Form>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600">No device shows your notifications yet.</p>
        )}
        <ChannelChoices
          channel="push"
          choices={push.choices}
          title="Show on my devices"
          pageResult={pageResult?.intent === "channel-choices" ? pageResult : undefined}
        />
      </div>
    </SettingsSection>
  );
}

async function browserState(): Promise<BrowserState> {
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window))
    return { kind: "unsupported" };
  if (Notification.permission === "denied") return { kind: "blocked" };
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = await registration?.pushManager.getSubscription();
  return subscription && Notification.permission === "granted"
    ? { kind: "on", endpoint: subscription.endpoint }
    : { kind: "off" };
}

/** The VAPID public key as PushManager.subscribe takes it. */
function base64UrlBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (value.length % 4)) % 4);
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
