import { Suspense, lazy, useEffect, useId, useRef, useState } from "react";
import { Form, Link, NavLink, useFetcher } from "react-router";
import {
  Button as AriaButton,
  Dialog,
  DialogTrigger,
  Heading,
  Menu,
  MenuItem,
  MenuTrigger,
  Modal,
  ModalOverlay,
  Popover,
  Separator,
} from "react-aria-components";
import {
  ArrowLeftRight,
  Bell,
  BellRing,
  CalendarClock,
  ChevronDown,
  CreditCard,
  CircleHelp,
  LayoutDashboard,
  LogOut,
  Mail,
  Menu as MenuIcon,
  Phone,
  Landmark,
  ReceiptText,
  RotateCcw,
  Settings,
  User,
  X,
} from "./icons";
import { cx } from "~/components/ui/field-styles";
import { useInstitutionDates, type InstitutionDates } from "~/components/institution-dates";

export interface ShellNotification {
  id: number;
  kind: string;
  title: string;
  body: string;
  read: boolean;
  created_at: string;
}

export interface TopBarProps {
  name: string;
  shortName: string;
  fullName: string;
  email: string;
  isStaff: boolean;
  unread: number;
  /** Secure-message conversations with a reply the member has not opened. */
  messagesUnread: number;
  notifications: ShellNotification[];
  support: { email: string; phone: string; hours: string };
  /** Whether members may apply for loans (docs/product.md#loans). */
  loans?: boolean;
}

const iconButton =
  "relative inline-flex size-11 items-center justify-center rounded-full text-slate-700 transition-colors hover:bg-slate-100 hover:text-brand-800";
const popoverClass =
  "w-[min(24rem,calc(100vw-1.5rem))] rounded-2xl border border-slate-200 bg-white shadow-xl outline-none data-[entering]:animate-in data-[entering]:fade-in motion-reduce:animate-none";

/** "just now", "45 min ago", "5 h ago", then the day in the institution's time zone ("Nov 10"). */
export function relativeTime(iso: string, dates: InstitutionDates, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  return dates.formatMonthDay(iso);
}

type SettingsDialog = "profile" | "account";
// The Profile Settings and Account Settings dialogs (docs/product.md#settings: "from every user
// menu"): the same lazily loaded module as the public top bar's. Without JavaScript the entries are
// links to the /settings pages.
const SettingsDialogs = lazy(() => import("~/components/site/site-settings-dialogs"));

/**
 * Top bar of the member app (docs/product.md#top-bar): navigation, help, notifications and the user
 * menu; a menu sheet on phones.
 */
export function TopBar(props: TopBarProps) {
  const { name, shortName, fullName } = props;
  const [dialog, setDialog] = useState<SettingsDialog | null>(null);
  // Mounted on first use and kept (their data fetchers and focus return work as on the public site).
  const [dialogsMounted, setDialogsMounted] = useState(false);
  const openDialog = (which: SettingsDialog) => {
    setDialogsMounted(true);
    setDialog(which);
  };
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur supports-[backdrop-filter]:bg-white/80">
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-2 px-4 sm:px-6 lg:px-8">
        <Link to="/dashboard" className="mr-2 flex items-center gap-2.5 rounded-md">
          <svg viewBox="0 0 32 32" className="size-9 shrink-0" aria-hidden="true">
            <rect width="32" height="32" rx="8" className="fill-brand-700" />
            <path
              d="M8 23V10l8 7 8-7v13"
              fill="none"
              stroke="currentColor"
              strokeWidth="3"
              strokeLinecap="round"
              strokeLinejoin="round"
              className="text-accent-100"
            />
          </svg>
          <span className="leading-tight">
            <span className="block text-base font-semibold text-brand-800 lg:hidden">{shortName}</span>
            <span className="hidden text-base font-semibold text-brand-800 lg:block">{fullName}</span>
            <span className="sr-only">, dashboard</span>
          </span>
        </Link>
        <nav aria-label="Banking" className="hidden md:block">
          <ul className="flex items-center gap-1 xl:whitespace-nowrap">
            <li>
              <NavLink
                to="/dashboard"
                end
                className={({ isActive }) =>
                  cx(
                    "inline-flex h-10 items-center gap-2 rounded-lg px-3 text-sm font-semibold transition-colors",
                    isActive ? "bg-brand-50 text-brand-800" : "text-slate-700 hover:bg-slate-100",
                  )
                }
              >
                <LayoutDashboard className="size-4" aria-hidden="true" /> Dashboard
              </NavLink>
            </li>
            <li>
              <Link
                to="/dashboard?transfer=internal#transfer"
                className="inline-flex h-10 items-center gap-2 rounded-lg px-3 text-sm font-semibold text-slate-700 transition-colors hover:bg-slate-100"
              >
                <ArrowLeftRight className="size-4" aria-hidden="true" /> Transfers
              </Link>
            </li>
            <li>
              {/* The Cards quick action on the dashboard; ?action= opens it without JavaScript too. */}
              <Link
                to="/dashboard?action=cards#quick-actions-cards"
                className="inline-flex h-10 items-center gap-2 rounded-lg px-3 text-sm font-semibold text-slate-700 transition-colors hover:bg-slate-100"
              >
                <CreditCard className="size-4" aria-hidden="true" /> Cards
              </Link>
            </li>
            <li>
              <NavLink
                to="/dashboard/bill-pay"
                className={({ isActive }) =>
                  cx(
                    "inline-flex h-10 items-center gap-2 rounded-lg px-3 text-sm font-semibold transition-colors",
                    isActive ? "bg-brand-50 text-brand-800" : "text-slate-700 hover:bg-slate-100",
                  )
                }
              >
                <CalendarClock className="size-4" aria-hidden="true" /> Bill Pay
              </NavLink>
            </li>
            <li>
              <NavLink
                to="/dashboard/transactions"
                className={({ isActive }) =>
                  cx(
                    "inline-flex h-10 items-center gap-2 rounded-lg px-3 text-sm font-semibold transition-colors",
                    isActive ? "bg-brand-50 text-brand-800" : "text-slate-700 hover:bg-slate-100",
                  )
                }
              >
                <ReceiptText className="size-4" aria-hidden="true" /> Transactions
              </NavLink>
            </li>
            <li>
              <NavLink
                to="/dashboard/messages"
                className={({ isActive }) =>
                  cx(
                    "inline-flex h-10 items-center gap-2 rounded-lg px-3 text-sm font-semibold transition-colors",
                    isActive ? "bg-brand-50 text-brand-800" : "text-slate-700 hover:bg-slate-100",
                  )
                }
              >
                {/* Below 1280 px an icon with its badge: the bar has no room for a sixth label. */}
                <Mail className="size-4" aria-hidden="true" /> <span className="sr-only xl:not-sr-only">Messages</span>
                <MessagesBadge unread={props.messagesUnread} />
              </NavLink>
            </li>
            {props.loans ? (
              // From 2xl only: below it the bar has no room for a sixth item (the account menu lists it).
              <li className="hidden 2xl:block">
                <NavLink
                  to="/dashboard/loans"
                  className={({ isActive }) =>
                    cx(
                      "inline-flex h-10 items-center gap-2 rounded-lg px-3 text-sm font-semibold transition-colors",
                      isActive ? "bg-brand-50 text-brand-800" : "text-slate-700 hover:bg-slate-100",
                    )
                  }
                >
                  <Landmark className="size-4" aria-hidden="true" /> Loans
                </NavLink>
              </li>
            ) : null}
          </ul>
        </nav>
        <div className="ml-auto flex items-center gap-1">
          <div className="hidden md:block">
            <HelpPopover support={props.support} />
          </div>
          <NotificationsBell unread={props.unread} notifications={props.notifications} />
          <div className="hidden md:block">
            <UserMenu
              name={name}
              email={props.email}
              isStaff={props.isStaff}
              loans={props.loans ?? false}
              onOpenDialog={openDialog}
            />
          </div>
          <div className="md:hidden">
            <MobileMenu {...props} onOpenDialog={openDialog} />
          </div>
        </div>
      </div>
      {dialogsMounted ? (
        <Suspense fallback={null}>
          <SettingsDialogs dialog={dialog} onChange={setDialog} />
        </Suspense>
      ) : null}
    </header>
  );
}

/**
 * Help: a disclosure that opens on a click, tap or Enter only (never on hover), and closes on
 * Escape, a click outside or a second press. It is not modal: the page stays usable and readable
 * while it is open (a modal popover here, opened by merely passing the pointer over the button,
 * left the whole page hidden from screen readers until the member found how to close it).
 */
function HelpPopover({ support }: { support: TopBarProps["support"] }) {
  const [open, setOpen] = useState(false);
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (!wrapper.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      if (wrapper.current?.contains(document.activeElement)) button.current?.focus();
    };
    document.addEventListener("pointerdown", onPointerDown);
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("pointerdown", onPointerDown);
      document.removeEventListener("keydown", onKeyDown);
    };
  }, [open]);
  return (
    <div ref={wrapper} className="relative">
      <button
        ref={button}
        type="button"
        aria-label="Help"
        aria-expanded={open}
        aria-controls={panelId}
        className={iconButton}
        onClick={() => setOpen((value) => !value)}
      >
        <CircleHelp className="size-5" aria-hidden="true" />
      </button>
      {/* A non-modal dialog: no aria-modal, nothing outside it is hidden or made inert. */}
      <div
        id={panelId}
        role="dialog"
        aria-labelledby={`${panelId}-heading`}
        hidden={!open}
        className={cx(popoverClass, "absolute top-full right-0 z-40 mt-2 p-5")}
      >
        <SupportDetails support={support} headingId={`${panelId}-heading`} />
      </div>
    </div>
  );
}

function SupportDetails({ support, headingId }: { support: TopBarProps["support"]; headingId: string }) {
  return (
    <div>
      <h2 id={headingId} className="text-base font-semibold text-brand-800">
        Need help?
      </h2>
      <p className="mt-1 text-sm text-slate-600">Our member service team is here {support.hours}.</p>
      <ul className="mt-4 space-y-2 text-sm">
        <li>
          <a
            href={`mailto:${support.email}`}
            className="inline-flex items-center gap-2 font-medium text-accent-700 underline-offset-2 hover:underline"
          >
            <Mail className="size-4" aria-hidden="true" /> {support.email}
          </a>
        </li>
        <li>
          <a
            href={`tel:${support.phone.replace(/[^\d+]/g, "")}`}
            className="inline-flex items-center gap-2 font-medium text-accent-700 underline-offset-2 hover:underline"
          >
            <Phone className="size-4" aria-hidden="true" /> {support.phone}
          </a>
        </li>
      </ul>
    </div>
  );
}

function NotificationsBell({ unread, notifications }: Pick<TopBarProps, "unread" | "notifications">) {
  const fetcher = useFetcher();
  const dates = useInstitutionDates();
  const label = unread === 0 ? "Notifications, none unread" : `Notifications, ${unread} unread`;
  // Optimistic: a mark-read in flight already counts as read.
  const pendingId = fetcher.formData?.get("id");
  const allPending = fetcher.formData?.get("intent") === "read-all";
  const shown = notifications.map((n) => ({ ...n, read: n.read || allPending || String(n.id) === pendingId }));
  const count = allPending
    ? 0
    : Math.max(0, unread - (pendingId && notifications.some((n) => String(n.id) === pendingId && !n.read) ? 1 : 0));
  return (
    <DialogTrigger>
      <AriaButton aria-label={label} className={iconButton}>
        <Bell className="size-5" aria-hidden="true" />
        {count > 0 ? (
          <span
            aria-hidden="true"
            className="absolute top-1.5 right-1.5 flex min-w-5 items-center justify-center rounded-full bg-red-700 px-1 text-[11px] font-bold leading-5 text-white ring-2 ring-white"
          >
            {count > 99 ? "99+" : count}
          </span>
        ) : null}
      </AriaButton>
      <Popover placement="bottom end" className={popoverClass}>
        <Dialog className="outline-none" aria-labelledby="notifications-heading">
          <div className="flex items-center justify-between gap-3 border-b border-slate-100 px-5 py-4">
            <Heading slot="title" id="notifications-heading" className="text-base font-semibold text-brand-800">
              Notifications
            </Heading>
            {count > 0 ? (
              <fetcher.Form method="post" action="/dashboard/notifications">
                <input type="hidden" name="intent" value="read-all" />
                <button
                  type="submit"
                  className="rounded-md px-2 py-1 text-sm font-semibold text-accent-700 hover:bg-accent-50"
                >
                  Mark all as read
                </button>
              </fetcher.Form>
            ) : null}
          </div>
          {shown.length === 0 ? (
            <p className="px-5 py-8 text-center text-sm text-slate-600">
              You have no notifications yet. Transfers and account alerts will appear here.
            </p>
          ) : (
            <ul className="max-h-96 divide-y divide-slate-100 overflow-y-auto">
              {shown.map((n) => (
                <li key={n.id} className={cx("flex gap-3 px-5 py-3", !n.read && "bg-brand-50/60")}>
                  <span
                    className={cx("mt-1.5 size-2 shrink-0 rounded-full", n.read ? "bg-transparent" : "bg-accent-600")}
                    aria-hidden="true"
                  />
                  <div className="min-w-0 flex-1">
                    <p className="text-sm font-semibold text-slate-900">
                      {!n.read ? <span className="sr-only">Unread: </span> : null}
                      {n.title}
                    </p>
                    <p className="mt-0.5 text-sm text-slate-600">{n.body}</p>
                    <div className="mt-1 flex items-center gap-3">
                      <time dateTime={n.created_at} className="text-xs text-slate-600">
                        {relativeTime(n.created_at, dates)}
                      </time>
                      {!n.read ? (
                        <fetcher.Form method="post" action="/dashboard/notifications">
                          <input type="hidden" name="intent" value="read" />
                          <input type="hidden" name="id" value={n.id} />
                          <button
                            type="submit"
                            className="rounded px-1 text-xs font-semibold text-accent-700 hover:underline"
                          >
                            Mark as read<span className="sr-only">: {n.title}</span>
                          </button>
                        </fetcher.Form>
                      ) : null}
                    </div>
                  </div>
                </li>
              ))}
            </ul>
          )}
          <div className="border-t border-slate-100 px-5 py-3 text-center">
            <Link to="/dashboard/notifications" className="text-sm font-semibold text-accent-700 hover:underline">
              See all notifications
            </Link>
          </div>
        </Dialog>
      </Popover>
    </DialogTrigger>
  );
}

function UserMenu({
  name,
  email,
  isStaff,
  loans,
  onOpenDialog,
}: {
  name: string;
  email: string;
  isStaff: boolean;
  loans: boolean;
  onOpenDialog: (dialog: SettingsDialog) => void;
}) {
  const fetcher = useFetcher();
  return (
    <MenuTrigger>
      <AriaButton
        aria-label={`${name.split(" ")[0]}, account menu`}
        className="inline-flex h-11 items-center gap-2 rounded-full py-1 pr-3 pl-1 text-sm font-semibold text-slate-800 hover:bg-slate-100"
      >
        <span
          aria-hidden="true"
          className="flex size-9 items-center justify-center rounded-full bg-brand-700 text-white"
        >
          <User className="size-5" />
        </span>
        <span className="hidden lg:inline">{name.split(" ")[0]}</span>
        <ChevronDown className="size-4 text-slate-600" aria-hidden="true" />
      </AriaButton>
      <Popover
        placement="bottom end"
        className="w-64 rounded-2xl border border-slate-200 bg-white p-1.5 shadow-xl outline-none"
      >
        <div className="px-3 py-2.5">
          <p className="text-sm font-semibold text-slate-900">{name}</p>
          <p className="truncate text-xs text-slate-600">{email}</p>
        </div>
        <Menu
          aria-label="Account"
          className="outline-none"
          onAction={(key) => {
            if (key === "sign-out") void fetcher.submit(null, { method: "post", action: "/logout" });
            if (key === "profile" || key === "account") onOpenDialog(key);
          }}
        >
          {isStaff ? (
            <MenuItem id="reset" href="/admin/reset-transfers" className={menuItemClass}>
              <RotateCcw className="size-4" aria-hidden="true" /> Reset Transfer Counts
            </MenuItem>
          ) : null}
          <MenuItem id="profile" className={menuItemClass}>
            <User className="size-4" aria-hidden="true" /> Profile Settings
          </MenuItem>
          <MenuItem id="account" className={menuItemClass}>
            <Settings className="size-4" aria-hidden="true" /> Account Settings
          </MenuItem>
          {isStaff ? null : (
            <MenuItem id="alerts" href="/settings/alerts" className={menuItemClass}>
              <BellRing className="size-4" aria-hidden="true" /> Alerts
            </MenuItem>
          )}
          {loans ? (
            // The bar shows Loans from 2xl; the menu lists it at every width (after the settings, which
            // keyboard users reach first).
            <MenuItem id="loans" href="/dashboard/loans" className={menuItemClass}>
              <Landmark className="size-4" aria-hidden="true" /> Loans
            </MenuItem>
          ) : null}
          <Separator className="my-1 border-t border-slate-100" />
          <MenuItem id="sign-out" className={menuItemClass}>
            <LogOut className="size-4" aria-hidden="true" /> Sign out
          </MenuItem>
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}

const menuItemClass =
  "flex cursor-pointer items-center gap-3 rounded-lg px-3 py-2.5 text-sm font-medium text-slate-800 focus-inset data-[focused]:bg-slate-100 data-[focused]:text-brand-800";

function MobileMenu(props: TopBarProps & { onOpenDialog: (dialog: SettingsDialog) => void }) {
  const [open, setOpen] = useState(false);
  const openDialog = (dialog: SettingsDialog) => (event: React.MouseEvent<HTMLAnchorElement>) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    setOpen(false);
    props.onOpenDialog(dialog);
  };
  useEffect(() => {
    if (!open) return;
    const close = () => setOpen(false);
    window.addEventListener("hashchange", close);
    return () => window.removeEventListener("hashchange", close);
  }, [open]);
  const linkClass =
    "flex items-center gap-3 rounded-xl px-3 py-3 text-base font-semibold text-slate-800 hover:bg-slate-100";
  return (
    <DialogTrigger isOpen={open} onOpenChange={setOpen}>
      <AriaButton aria-label="Open menu" className={iconButton}>
        <MenuIcon className="size-6" aria-hidden="true" />
      </AriaButton>
      <ModalOverlay isDismissable className="fixed inset-0 z-50 bg-slate-900/40">
        <Modal className="fixed inset-y-0 right-0 w-[min(22rem,90vw)] overflow-y-auto bg-white shadow-2xl outline-none">
          <Dialog className="flex min-h-full flex-col p-4 outline-none" aria-label="Menu">
            <div className="flex items-center justify-between">
              <div>
                <p className="text-sm font-semibold text-slate-900">{props.name}</p>
                <p className="text-xs text-slate-600">{props.email}</p>
              </div>
              <AriaButton slot="close" aria-label="Close menu" className={iconButton}>
                <X className="size-6" aria-hidden="true" />
              </AriaButton>
            </div>
            <nav aria-label="Banking, mobile" className="mt-4">
              <ul className="space-y-1">
                <li>
                  <Link to="/dashboard" className={linkClass} onClick={() => setOpen(false)}>
                    <LayoutDashboard className="size-5 text-brand-700" aria-hidden="true" /> Dashboard
                  </Link>
                </li>
                <li>
                  <Link to="/dashboard?transfer=internal#transfer" className={linkClass} onClick={() => setOpen(false)}>
                    <ArrowLeftRight className="size-5 text-brand-700" aria-hidden="true" /> Transfers
                  </Link>
                </li>
                <li>
                  <Link
                    to="/dashboard?action=cards#quick-actions-cards"
                    className={linkClass}
                    onClick={() => setOpen(false)}
                  >
                    <CreditCard className="size-5 text-brand-700" aria-hidden="true" /> Cards
                  </Link>
                </li>
                <li>
                  <Link to="/dashboard/bill-pay" className={linkClass} onClick={() => setOpen(false)}>
                    <CalendarClock className="size-5 text-brand-700" aria-hidden="true" /> Bill Pay
                  </Link>
                </li>
                <li>
                  <Link to="/dashboard/transactions" className={linkClass} onClick={() => setOpen(false)}>
                    <ReceiptText className="size-5 text-brand-700" aria-hidden="true" /> Transactions
                  </Link>
                </li>
                {props.loans ? (
                  <li>
                    <Link to="/dashboard/loans" className={linkClass} onClick={() => setOpen(false)}>
                      <Landmark className="size-5 text-brand-700" aria-hidden="true" /> Loans
                    </Link>
                  </li>
                ) : null}
                <li>
                  <Link to="/dashboard/messages" className={linkClass} onClick={() => setOpen(false)}>
                    <Mail className="size-5 text-brand-700" aria-hidden="true" /> Messages
                    <MessagesBadge unread={props.messagesUnread} />
                  </Link>
                </li>
                <li>
                  <Link to="/dashboard/notifications" className={linkClass} onClick={() => setOpen(false)}>
                    <Bell className="size-5 text-brand-700" aria-hidden="true" /> Notifications
                    {props.unread > 0 ? (
                      <span className="ml-auto rounded-full bg-red-700 px-2 text-xs font-bold leading-5 text-white">
                        {props.unread} unread
                      </span>
                    ) : null}
                  </Link>
                </li>
                {props.isStaff ? (
                  <li>
                    <a href="/admin/reset-transfers" className={linkClass}>
                      <RotateCcw className="size-5 text-brand-700" aria-hidden="true" /> Reset Transfer Counts
                    </a>
                  </li>
                ) : null}
                <li>
                  <a href="/settings/profile" className={linkClass} onClick={openDialog("profile")}>
                    <User className="size-5 text-brand-700" aria-hidden="true" /> Profile Settings
                  </a>
                </li>
                <li>
                  <a href="/settings/account" className={linkClass} onClick={openDialog("account")}>
                    <Settings className="size-5 text-brand-700" aria-hidden="true" /> Account Settings
                  </a>
                </li>
                {props.isStaff ? null : (
                  <li>
                    <Link to="/settings/alerts" className={linkClass} onClick={() => setOpen(false)}>
                      <BellRing className="size-5 text-brand-700" aria-hidden="true" /> Alerts
                    </Link>
                  </li>
                )}
              </ul>
            </nav>
            <section aria-label="Help" className="mt-4 rounded-2xl bg-slate-50 p-4">
              <SupportDetailsPlain support={props.support} />
            </section>
            <Form method="post" action="/logout" className="mt-auto pt-4">
              <button
                type="submit"
                className="flex w-full items-center justify-center gap-2 rounded-xl border border-slate-300 px-4 py-3 text-base font-semibold text-slate-800 hover:bg-slate-50"
              >
                <LogOut className="size-5" aria-hidden="true" /> Sign out
              </button>
            </Form>
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

function SupportDetailsPlain({ support }: { support: TopBarProps["support"] }) {
  return (
    <div>
      <h2 className="flex items-center gap-2 text-base font-semibold text-brand-800">
        <CircleHelp className="size-5" aria-hidden="true" /> Help
      </h2>
      <p className="mt-1 text-sm text-slate-600">Member service, {support.hours}.</p>
      <p className="mt-2 text-sm">
        <a href={`mailto:${support.email}`} className="font-medium text-accent-700 underline">
          {support.email}
        </a>
      </p>
      <p className="mt-1 text-sm">
        <a href={`tel:${support.phone.replace(/[^\d+]/g, "")}`} className="font-medium text-accent-700 underline">
          {support.phone}
        </a>
      </p>
    </div>
  );
}

/** Unread secure messages beside "Messages": a count, read out as words. */
function MessagesBadge({ unread }: { unread: number }) {
  if (unread <= 0) return null;
  return (
    <span className="ml-auto rounded-full bg-red-700 px-2 text-xs font-bold leading-5 text-white">
      {unread}
      <span className="sr-only"> unread</span>
    </span>
  );
}
