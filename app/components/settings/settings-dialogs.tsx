import { useEffect } from "react";
import { useFetcher } from "react-router";
import { X } from "lucide-react";
import { Dialog, Heading, Modal, ModalOverlay } from "react-aria-components";
import { SETTINGS_MESSAGES } from "~/domain/settings";
import { Button, FormMessage } from "~/components/ui";
import { AccountSettingsForm } from "./account-settings-form";
import { ProfileSettingsForm } from "./profile-settings-form";
import type { AccountData, ProfileData } from "./types";

/**
 * The Profile Settings and Account Settings dialogs (docs/product.md#settings), opened from every
 * user menu. React Aria's modal: focus moves in and is kept inside, Escape closes, focus returns to
 * the menu button. They load from and post to /settings/profile and /settings/account (the pages
 * serve the same forms for direct links and browsers without JavaScript).
 */
interface DialogProps {
  isOpen: boolean;
  onOpenChange: (open: boolean) => void;
}

function SettingsModal({
  title,
  isOpen,
  onOpenChange,
  children,
}: DialogProps & { title: string; children: React.ReactNode }) {
  return (
    <ModalOverlay
      isOpen={isOpen}
      onOpenChange={onOpenChange}
      isDismissable
      className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto bg-slate-950/50 p-0 sm:p-6 sm:pt-16"
    >
      <Modal className="w-full max-w-2xl outline-none">
        <Dialog className="relative min-h-dvh bg-white p-5 shadow-2xl outline-none sm:min-h-0 sm:rounded-2xl sm:p-8">
          {({ close }) => (
            <>
              <div className="flex items-start justify-between gap-4">
                <Heading slot="title" className="text-2xl font-semibold tracking-tight text-brand-800">
                  {title}
                </Heading>
                <Button
                  variant="ghost"
                  onPress={close}
                  aria-label={`Close ${title}`}
                  className="-mr-2 -mt-1 size-11 px-0 py-0"
                >
                  <X className="size-5" aria-hidden="true" />
                </Button>
              </div>
              <div className="mt-6">{children}</div>
            </>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

function Loading() {
  return (
    <div role="status" aria-label="Loading" className="space-y-4">
      {[0, 1, 2, 3].map((i) => (
        <div key={i} className="h-12 animate-pulse rounded-lg bg-slate-100 motion-reduce:animate-none" />
      ))}
    </div>
  );
}

function useSettingsData<T>(path: string, isOpen: boolean) {
  const fetcher = useFetcher<T>({ key: `settings-load-${path}` });
  useEffect(() => {
    if (isOpen) void fetcher.load(path);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [isOpen, path]);
  return fetcher;
}

export function ProfileSettingsDialog({ isOpen, onOpenChange }: DialogProps) {
  const fetcher = useSettingsData<{ profile: ProfileData | null }>("/settings/profile", isOpen);
  const profile = fetcher.data?.profile;
  return (
    <SettingsModal title="Profile Settings" isOpen={isOpen} onOpenChange={onOpenChange}>
      {profile ? (
        <ProfileSettingsForm profile={profile} />
      ) : fetcher.state === "idle" && fetcher.data !== undefined ? (
        <FormMessage tone="error">{SETTINGS_MESSAGES.profile_load_failed}</FormMessage>
      ) : (
        <Loading />
      )}
    </SettingsModal>
  );
}

export function AccountSettingsDialog({ isOpen, onOpenChange }: DialogProps) {
  const fetcher = useSettingsData<{ account: AccountData | null }>("/settings/account", isOpen);
  const account = fetcher.data?.account;
  return (
    <SettingsModal title="Account Settings" isOpen={isOpen} onOpenChange={onOpenChange}>
      {account ? (
        <AccountSettingsForm account={account} />
      ) : fetcher.state === "idle" && fetcher.data !== undefined ? (
        <FormMessage tone="error">{SETTINGS_MESSAGES.account_load_failed}</FormMessage>
      ) : (
        <Loading />
      )}
    </SettingsModal>
  );
}
