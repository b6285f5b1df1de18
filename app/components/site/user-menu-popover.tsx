import { useNavigate, useSubmit } from "react-router";
import { LayoutDashboard, LogOut, Settings, UserRound } from "./icons";
import { Button as AriaButton, Menu, MenuItem, MenuTrigger, Popover, Separator } from "react-aria-components";
import { UserMenuTriggerContent, homeLinkFor, userMenuTriggerClass, type UserMenuProps } from "./user-menu-parts";
import { loadSettingsDialogs } from "./load-settings-dialogs";

const itemClass =
  "flex cursor-pointer items-center gap-3 rounded-md px-3 py-2.5 text-sm font-medium text-slate-800 focus-inset data-[focused]:bg-brand-50 data-[focused]:text-brand-900";

/**
 * The user menu as a React Aria menu (user-menu.tsx renders it once hydrated). Its own chunk, so
 * pages seen signed out never load React Aria's Menu and Popover. Opening it also starts loading
 * the settings dialogs, so they are there by the time an item is chosen.
 */
export function UserMenuPopover({ user, onOpenDialog }: UserMenuProps) {
  const submit = useSubmit();
  const navigate = useNavigate();
  const home = homeLinkFor(user);
  return (
    <MenuTrigger
      onOpenChange={(open) => {
        if (open) void loadSettingsDialogs();
      }}
    >
      <AriaButton className={userMenuTriggerClass}>
        <UserMenuTriggerContent user={user} />
      </AriaButton>
      <Popover
        placement="bottom end"
        offset={8}
        className="w-64 rounded-xl border border-slate-200 bg-white p-1.5 shadow-xl outline-none"
      >
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
