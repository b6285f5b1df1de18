import { Form, Link, useNavigate, useSubmit } from "react-router";
import { ChevronDown, LayoutDashboard, LogOut, Settings, UserRound } from "lucide-react";
import { Button as AriaButton, Menu, MenuItem, MenuTrigger, Popover, Separator } from "react-aria-components";
import { Avatar } from "~/components/settings/avatar";
import { useHydrated } from "~/components/calculators/use-hydrated";

/** What the top bar knows about the signed-in person (from the public layout's loader). */
export interface SignedInUser {
  name: string;
  email: string;
  initials: string;
  image_url: string | null;
  role: "user" | "admin" | "pending";
}

export type SettingsDialog = "profile" | "account";

export function homeLinkFor(user: SignedInUser): { to: string; label: string } {
  return user.role === "admin" ? { to: "/admin", label: "Back office" } : { to: "/dashboard", label: "Go to dashboard" };
}

const itemClass =
  "flex cursor-pointer items-center gap-3 rounded-md px-3 py-2.5 text-sm font-medium text-slate-800 outline-none data-[focused]:bg-brand-50 data-[focused]:text-brand-900";

/**
 * The signed-in user menu of the public top bar (SPEC 3): avatar and name (or email), then
 * Profile Settings and Account Settings (dialogs), Go to dashboard (Back office for staff) and
 * Sign out (ends the session, then /login). With JavaScript it is a React Aria menu (arrow keys,
 * Escape, typeahead); before that, a disclosure of plain links and a sign-out form.
 */
export function UserMenu({ user, onOpenDialog }: { user: SignedInUser; onOpenDialog: (dialog: SettingsDialog) => void }) {
  const hydrated = useHydrated();
  const submit = useSubmit();
  const navigate = useNavigate();
  const home = homeLinkFor(user);
  const label = user.name || user.email;
  // The visible name is the accessible name (WCAG 2.5.3), with a prefix for screen readers.
  const trigger = (
    <>
      <span className="sr-only">Account menu for </span>
      <Avatar initials={user.initials} imageUrl={user.image_url} size="sm" />
      <span className="max-w-40 truncate text-sm font-medium text-slate-800">{label}</span>
      <ChevronDown className="size-4 text-slate-600" aria-hidden="true" />
    </>
  );
  const triggerClass =
    "flex cursor-pointer items-center gap-2 rounded-full py-1 pl-1 pr-3 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600";

  if (!hydrated) {
    return (
      <details className="relative">
        <summary className={`${triggerClass} list-none [&::-webkit-details-marker]:hidden`}>
          {trigger}
        </summary>
        <div className="absolute right-0 mt-2 w-60 rounded-xl border border-slate-200 bg-white p-1.5 shadow-xl">
          <StaticMenuItems user={user} />
        </div>
      </details>
    );
  }

  return (
    <MenuTrigger>
      <AriaButton className={triggerClass}>
        {trigger}
      </AriaButton>
      <Popover placement="bottom end" offset={8} className="w-64 rounded-xl border border-slate-200 bg-white p-1.5 shadow-xl outline-none">
        <div className="border-b border-slate-100 px-3 pb-2 pt-1.5" aria-hidden="true">
          <p className="truncate text-sm font-semibold text-slate-900">{user.name || user.email}</p>
          {user.name ? <p className="truncate text-xs text-slate-600">{user.email}</p> : null}
        </div>
        <Menu
          aria-label="Account"
          className="mt-1 outline-none"
          onAction={(key) => {
            if (key === "profile" || key === "account") onOpenDialog(key);
            else if (key === "home") void navigate(home.to);
            else if (key === "sign-out") void submit(null, { method: "post", action: "/logout" });
          }}
        >
          <MenuItem id="profile" className={itemClass} textValue="Profile Settings">
            <UserRound className="size-4 text-brand-700" aria-hidden="true" />
            Profile Settings
          </MenuItem>
          <MenuItem id="account" className={itemClass} textValue="Account Settings">
            <Settings className="size-4 text-brand-700" aria-hidden="true" />
            Account Settings
          </MenuItem>
          <MenuItem id="home" className={itemClass} textValue={home.label}>
            <LayoutDashboard className="size-4 text-brand-700" aria-hidden="true" />
            {home.label}
          </MenuItem>
          <Separator className="my-1 border-t border-slate-100" />
          <MenuItem id="sign-out" className={itemClass} textValue="Sign out">
            <LogOut className="size-4 text-brand-700" aria-hidden="true" />
            Sign out
          </MenuItem>
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}

/**
 * The same entries as links and a sign-out form, for the mobile menu and for the moment before
 * JavaScript runs. With JavaScript the settings links open the dialogs in place.
 */
export function StaticMenuItems({ user, onOpenDialog }: { user: SignedInUser; onOpenDialog?: (dialog: SettingsDialog) => void }) {
  const home = homeLinkFor(user);
  const linkClass = "flex items-center gap-3 rounded-md px-3 py-3 text-sm font-medium text-slate-800 hover:bg-brand-50 hover:text-brand-900";
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
