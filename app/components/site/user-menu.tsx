import { useEffect, useState, type ComponentType } from "react";
import { Form, Link } from "react-router";
import { LayoutDashboard, LogOut, Settings, UserRound } from "./icons";
import { useHydrated } from "~/components/ui/use-hydrated";
import {
  homeLinkFor,
  UserMenuTriggerContent,
  userMenuTriggerClass,
  type SettingsDialog,
  type SignedInUser,
  type UserMenuProps,
} from "./user-menu-parts";

// The React Aria menu (user-menu-popover.tsx), loaded once after hydration for signed-in people.
let popoverMenu: ComponentType<UserMenuProps> | null = null;
let popoverMenuLoading: Promise<ComponentType<UserMenuProps>> | null = null;
function loadPopoverMenu() {
  popoverMenuLoading ??= import("./user-menu-popover").then((module) => (popoverMenu = module.UserMenuPopover));
  return popoverMenuLoading;
}

/**
 * The signed-in user menu of the public top bar (docs/product.md#header-and-footer): avatar and
 * name (or email), then Profile Settings and Account Settings (dialogs), Go to dashboard (Back
 * office for staff) and Sign out (ends the session, then /login). Before JavaScript (and until its
 * code has loaded) it is a disclosure of plain links and a sign-out form; then a React Aria menu
 * (arrow keys, Escape, typeahead) from user-menu-popover.tsx, loaded only for signed-in people.
 */
export function UserMenu({ user, onOpenDialog }: UserMenuProps) {
  const hydrated = useHydrated();
  const [PopoverMenu, setPopoverMenu] = useState<ComponentType<UserMenuProps> | null>(() => popoverMenu);
  // A disclosure opened while the menu's code was loading stays until it is closed.
  const [disclosureOpen, setDisclosureOpen] = useState(false);
  useEffect(() => {
    if (PopoverMenu) return;
    let current = true;
    void loadPopoverMenu().then((menu) => {
      if (current) setPopoverMenu(() => menu);
    });
    return () => {
      current = false;
    };
  }, [PopoverMenu]);

  if (hydrated && PopoverMenu && !disclosureOpen) return <PopoverMenu user={user} onOpenDialog={onOpenDialog} />;
  return (
    <details className="relative" onToggle={(event) => setDisclosureOpen(event.currentTarget.open)}>
      <summary className={`${userMenuTriggerClass} list-none [&::-webkit-details-marker]:hidden`}>
        <UserMenuTriggerContent user={user} />
      </summary>
      <div className="absolute right-0 mt-2 w-60 rounded-xl border border-slate-200 bg-white p-1.5 shadow-xl">
        <StaticMenuItems user={user} />
      </div>
    </details>
  );
}

/**
 * The same entries as links and a sign-out form, for the mobile menu and for the moment before
 * JavaScript runs. With JavaScript the settings links open the dialogs in place.
 */
export function StaticMenuItems({
  user,
  onOpenDialog,
}: {
  user: SignedInUser;
  onOpenDialog?: (dialog: SettingsDialog) => void;
}) {
  const home = homeLinkFor(user);
  const linkClass =
    "flex items-center gap-3 rounded-md px-3 py-3 text-sm font-medium text-slate-800 hover:bg-brand-50 hover:text-brand-900";
  const open = (dialog: SettingsDialog) => (event: React.MouseEvent<HTMLAnchorElement>) => {
    if (!onOpenDialog || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    onOpenDialog(dialog);
  };
  return (
    <ul className="flex flex-col">
      <li>
        <Link to="/settings/profile" className={linkClass} onClick={open("profile")}>
          <UserRound className="size-4 text-brand-700" aria-hidden="true" />
          Profile Settings
        </Link>
      </li>
      <li>
        <Link to="/settings/account" className={linkClass} onClick={open("account")}>
          <Settings className="size-4 text-brand-700" aria-hidden="true" />
          Account Settings
        </Link>
      </li>
      <li>
        <Link to={home.to} className={linkClass}>
          <LayoutDashboard className="size-4 text-brand-700" aria-hidden="true" />
          {home.label}
        </Link>
      </li>
      <li className="mt-1 border-t border-slate-100 pt-1">
        <Form method="post" action="/logout">
          <button type="submit" className={`${linkClass} w-full cursor-pointer text-left`}>
            <LogOut className="size-4 text-brand-700" aria-hidden="true" />
            Sign out
          </button>
        </Form>
      </li>
    </ul>
  );
}
