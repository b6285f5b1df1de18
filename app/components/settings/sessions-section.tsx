import { useFetcher } from "react-router";
import { MonitorSmartphone } from "lucide-react";
import { Button } from "~/components/ui";
import { StatusMessage } from "./status-message";
import { SettingsSection } from "./settings-section";
import type { AccountActionData, AccountData, SessionData } from "./types";

const ACTION = "/settings/account";

/**
 * Sessions and devices (docs/product.md#sessions-and-devices): every place the person is signed in,
 * with browser and device (from the user agent), the approximate place when a city database is
 * configured, when it started and was last active, this one marked; end one, or all the others. Plain forms: it works without JavaScript too.
 */
export function SessionsSection({ account, pageResult }: { account: AccountData; pageResult?: AccountActionData }) {
  const fetcher = useFetcher<AccountActionData>({ key: "settings-account-sessions" });
  const result = fetcher.data ?? pageResult;
  const highlighted = account.highlighted_session;
  // The session the login alert's link names comes first after this one, marked.
  const ordered = highlighted
    ? [
        ...account.sessions.filter((s) => s.current),
        ...account.sessions.filter((s) => s.id === highlighted),
        ...account.sessions.filter((s) => !s.current && s.id !== highlighted),
      ]
    : account.sessions;
  const others = account.sessions.filter((s) => !s.current).length;
  return (
    <SettingsSection
      id="sessions"
      title="Sessions and devices"
      icon={MonitorSmartphone}
      description="Where you are signed in now. If you do not recognise one, end it and change your password."
    >
      <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200" aria-label="Your sessions">
        {ordered.map((session) => (
          <SessionRow key={session.id} session={session} highlighted={session.id === highlighted} fetcher={fetcher} />
        ))}
      </ul>
      <StatusMessage result={result} className="mt-3" />
      {others > 0 ? (
        <fetcher.Form method="post" action={ACTION} className="mt-3 flex justify-end">
          <input type="hidden" name="intent" value="sessions-end-others" />
          <Button type="submit" variant="secondary" isPending={fetcher.state !== "idle"} pendingLabel="Ending…">
            End all other sessions
          </Button>
        </fetcher.Form>
      ) : (
        <p className="mt-3 text-sm text-slate-600">You are not signed in anywhere else.</p>
      )}
    </SettingsSection>
  );
}

function SessionRow({
  session,
  highlighted,
  fetcher,
}: {
  session: SessionData;
  highlighted: boolean;
  fetcher: ReturnType<typeof useFetcher<AccountActionData>>;
}) {
  const labelId = `session-${session.id}-label`;
  return (
    <li
      className={`flex flex-col gap-3 p-3 sm:flex-row sm:items-start sm:justify-between sm:p-4 ${highlighted ? "bg-amber-50" : ""}`}
      aria-labelledby={labelId}
    >
      <div className="min-w-0 flex-1">
        <p id={labelId} className="font-medium text-slate-900">
          {session.browser} on {session.device}
          {session.current ? (
            <span className="ml-2 rounded-full bg-emerald-100 px-2 py-0.5 text-xs font-semibold text-emerald-900">
              This device
            </span>
          ) : null}
          {highlighted ? (
            <span className="ml-2 rounded-full bg-amber-200 px-2 py-0.5 text-xs font-semibold text-amber-950">
              From your sign-in alert
            </span>
          ) : null}
        </p>
        {session.place ? <p className="text-sm text-slate-700">Near {session.place} (approximate)</p> : null}
        <p className="text-sm text-slate-600">
          Signed in <time dateTime={session.started_at}>{session.started_label}</time> · Last active{" "}
          <time dateTime={session.last_seen_at}>{session.last_seen_label}</time>
        </p>
      </div>
      {session.current ? null : (
        <fetcher.Form method="post" action={ACTION}>
          <input type="hidden" name="intent" value="session-end" />
          <input type="hidden" name="session_id" value={session.id} />
          <Button
            type="submit"
            variant="secondary"

            aria-label={`End session: ${session.browser} on ${session.device}`}
          >
            End session
          </Button>
        </fetcher.Form>
      )}
    </li>
  );
}
