import { ChevronDown } from "./icons";
import { Avatar } from "~/components/settings/avatar";

/**
 * What the user menu (user-menu.tsx), its lazily loaded React Aria menu (user-menu-popover.tsx)
 * and the settings dialogs share. In a file of its own so the lazily loaded chunks import it, not
 * the menu that loads them (no import cycle).
 */

/** What the top bar knows about the signed-in person (from the public layout's loader). */
export interface SignedInUser {
  name: string;
  email: string;
  initials: string;
  image_url: string | null;
  role: "user" | "admin" | "pending" | "reviewer" | "accountant";
}

export type SettingsDialog = "profile" | "account";

export interface UserMenuProps {
  user: SignedInUser;
  onOpenDialog: (dialog: SettingsDialog) => void;
}

export function homeLinkFor(user: SignedInUser): { to: string; label: string } {
  if (user.role === "accountant") return { to: "/admin/books", label: "Books" };
  return user.role === "admin" || user.role === "reviewer"
    ? { to: "/admin", label: "Back office" }
    : { to: "/dashboard", label: "Go to dashboard" };
}

export const userMenuTriggerClass =
  "flex cursor-pointer items-center gap-2 rounded-full py-1 pl-1 pr-3 hover:bg-slate-100";

/** The menu button's content: the visible name is the accessible name (WCAG 2.5.3), with a prefix for screen readers. */
export function UserMenuTriggerContent({ user }: { user: SignedInUser }) {
  return (
    <>
      <span className="sr-only">Account menu for </span>
      <Avatar initials={user.initials} imageUrl={user.image_url} size="sm" />
      <span className="max-w-40 truncate text-sm font-medium text-slate-800">{user.name || user.email}</span>
      <ChevronDown className="size-4 text-slate-600" aria-hidden="true" />
    </>
  );
}
