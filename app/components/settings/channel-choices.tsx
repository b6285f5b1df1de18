import { useFetcher } from "react-router";
import { Button } from "~/components/ui";
import {
  NOTIFICATION_GROUP_LABELS,
  NOTIFICATION_GROUPS,
  type NotificationChannel,
} from "~/domain/notification-channels";
import { SettingSwitch } from "./setting-switch";
import { StatusMessage } from "./status-message";
import type { AccountActionData, ChannelChoicesData } from "./types";

const ACTION = "/settings/account";

/**
 * Which groups of notifications also go by one channel (docs/product.md#notification-channels): a
 * switch per group, saved together. Every notification stays in the bell whatever is chosen here.
 */
export function ChannelChoices({
  channel,
  choices,
  title,
  pageResult,
}: {
  channel: NotificationChannel;
  choices: ChannelChoicesData;
  title: string;
  pageResult?: AccountActionData;
}) {
  const fetcher = useFetcher<AccountActionData>({ key: `settings-account-choices-${channel}` });
  const result = fetcher.data ?? pageResult;
  return (
    <fetcher.Form method="post" action={ACTION} aria-label={title} className="space-y-2">
      <input type="hidden" name="intent" value="channel-choices" />
      <input type="hidden" name="channel" value={channel} />
      <fieldset>
        <legend className="text-sm font-semibold text-slate-900">{title}</legend>
        <div className="divide-y divide-slate-200">
          {NOTIFICATION_GROUPS.map((group) => (
            <SettingSwitch
              key={group}
              name={`${channel}_${group}`}
              label={NOTIFICATION_GROUP_LABELS[group].label}
              description={NOTIFICATION_GROUP_LABELS[group].description}
              defaultSelected={choices[group]}
            />
          ))}
        </div>
      </fieldset>
      <StatusMessage result={result} />
      <div className="flex justify-end">
        <Button type="submit" variant="secondary" isPending={fetcher.state !== "idle"} pendingLabel="Saving…">
          {channel === "push" ? "Save device choices" : "Save text message choices"}
        </Button>
      </div>
    </fetcher.Form>
  );
}
