import { AccountSettingsDialog, ProfileSettingsDialog } from "~/components/settings/settings-dialogs";
import type { SettingsDialog } from "./user-menu-parts";

/**
 * The public top bar's two settings dialogs, as one lazily loaded module (see loadSettingsDialogs
 * in user-menu.tsx): the React Aria modal and the forms load only when a signed-in person needs them.
 */
export default function SiteSettingsDialogs({
  dialog,
  onChange,
}: {
  dialog: SettingsDialog | null;
  onChange: (dialog: SettingsDialog | null) => void;
}) {
  return (
    <>
      <ProfileSettingsDialog isOpen={dialog === "profile"} onOpenChange={(open) => onChange(open ? "profile" : null)} />
      <AccountSettingsDialog isOpen={dialog === "account"} onOpenChange={(open) => onChange(open ? "account" : null)} />
    </>
  );
}
