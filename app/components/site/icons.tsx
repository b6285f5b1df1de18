import {
  ArrowRight as LucideArrowRight,
  ArrowUp as LucideArrowUp,
  Briefcase as LucideBriefcase,
  Calculator as LucideCalculator,
  CalendarDays as LucideCalendarDays,
  ChartLine as LucideChartLine,
  Check as LucideCheck,
  ChevronDown as LucideChevronDown,
  House as LucideHouse,
  Laptop as LucideLaptop,
  LayoutDashboard as LucideLayoutDashboard,
  LogOut as LucideLogOut,
  MapPin as LucideMapPin,
  Menu as LucideMenu,
  Quote as LucideQuote,
  Settings as LucideSettings,
  ShieldCheck as LucideShieldCheck,
  UserRound as LucideUserRound,
  Users as LucideUsers,
  Wallet as LucideWallet,
  X as LucideX,
} from "lucide-react";
import { staticIcon } from "~/components/ui/static-icon";

export type { StaticIcon } from "~/components/ui/static-icon";

/** The public site's decorative icons (see components/ui/static-icon.tsx). */
export const ArrowRight = /* @__PURE__ */ staticIcon(LucideArrowRight);
export const ArrowUp = /* @__PURE__ */ staticIcon(LucideArrowUp);
export const Briefcase = /* @__PURE__ */ staticIcon(LucideBriefcase);
export const Calculator = /* @__PURE__ */ staticIcon(LucideCalculator);
export const CalendarDays = /* @__PURE__ */ staticIcon(LucideCalendarDays);
export const ChartLine = /* @__PURE__ */ staticIcon(LucideChartLine);
export const Check = /* @__PURE__ */ staticIcon(LucideCheck);
export const ChevronDown = /* @__PURE__ */ staticIcon(LucideChevronDown);
export const House = /* @__PURE__ */ staticIcon(LucideHouse);
export const Laptop = /* @__PURE__ */ staticIcon(LucideLaptop);
export const LayoutDashboard = /* @__PURE__ */ staticIcon(LucideLayoutDashboard);
export const LogOut = /* @__PURE__ */ staticIcon(LucideLogOut);
export const MapPin = /* @__PURE__ */ staticIcon(LucideMapPin);
export const Menu = /* @__PURE__ */ staticIcon(LucideMenu);
export const Quote = /* @__PURE__ */ staticIcon(LucideQuote);
export const Settings = /* @__PURE__ */ staticIcon(LucideSettings);
export const ShieldCheck = /* @__PURE__ */ staticIcon(LucideShieldCheck);
export const UserRound = /* @__PURE__ */ staticIcon(LucideUserRound);
export const Users = /* @__PURE__ */ staticIcon(LucideUsers);
export const Wallet = /* @__PURE__ */ staticIcon(LucideWallet);
export const X = /* @__PURE__ */ staticIcon(LucideX);
