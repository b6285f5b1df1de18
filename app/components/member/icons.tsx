import {
  ArrowDownLeft as LucideArrowDownLeft,
  ArrowUpRight as LucideArrowUpRight,
  ArrowLeft as LucideArrowLeft,
  ArrowRight as LucideArrowRight,
  ArrowLeftRight as LucideArrowLeftRight,
  Bell as LucideBell,
  BellRing as LucideBellRing,
  CalendarClock as LucideCalendarClock,
  Camera as LucideCamera,
  CreditCard as LucideCreditCard,
  Check as LucideCheck,
  ChevronDown as LucideChevronDown,
  CircleHelp as LucideCircleHelp,
  Clock as LucideClock,
  Copy as LucideCopy,
  Gift as LucideGift,
  LayoutDashboard as LucideLayoutDashboard,
  LogOut as LucideLogOut,
  Mail as LucideMail,
  Menu as LucideMenu,
  Phone as LucidePhone,
  PiggyBank as LucidePiggyBank,
  Landmark as LucideLandmark,
  ReceiptText as LucideReceiptText,
  RotateCcw as LucideRotateCcw,
  Settings as LucideSettings,
  User as LucideUser,
  Users as LucideUsers,
  Wallet as LucideWallet,
  X as LucideX,
  Zap as LucideZap,
} from "lucide-react";
import { staticIcon } from "~/components/ui/static-icon";

/**
 * The member app's decorative icons, drawn with prepared markup (components/ui/static-icon.tsx):
 * the dashboard draws about 50, most of them the arrows of its amounts.
 */
export const ArrowDownLeft = /* @__PURE__ */ staticIcon(LucideArrowDownLeft);
export const ArrowUpRight = /* @__PURE__ */ staticIcon(LucideArrowUpRight);
export const ArrowLeft = /* @__PURE__ */ staticIcon(LucideArrowLeft);
export const ArrowRight = /* @__PURE__ */ staticIcon(LucideArrowRight);
export const ArrowLeftRight = /* @__PURE__ */ staticIcon(LucideArrowLeftRight);
export const Bell = /* @__PURE__ */ staticIcon(LucideBell);
export const BellRing = /* @__PURE__ */ staticIcon(LucideBellRing);
export const CalendarClock = /* @__PURE__ */ staticIcon(LucideCalendarClock);
export const Camera = /* @__PURE__ */ staticIcon(LucideCamera);
export const CreditCard = /* @__PURE__ */ staticIcon(LucideCreditCard);
export const Check = /* @__PURE__ */ staticIcon(LucideCheck);
export const ChevronDown = /* @__PURE__ */ staticIcon(LucideChevronDown);
export const CircleHelp = /* @__PURE__ */ staticIcon(LucideCircleHelp);
export const Clock = /* @__PURE__ */ staticIcon(LucideClock);
export const Copy = /* @__PURE__ */ staticIcon(LucideCopy);
export const Gift = /* @__PURE__ */ staticIcon(LucideGift);
export const LayoutDashboard = /* @__PURE__ */ staticIcon(LucideLayoutDashboard);
export const LogOut = /* @__PURE__ */ staticIcon(LucideLogOut);
export const Mail = /* @__PURE__ */ staticIcon(LucideMail);
export const Menu = /* @__PURE__ */ staticIcon(LucideMenu);
export const Phone = /* @__PURE__ */ staticIcon(LucidePhone);
export const PiggyBank = /* @__PURE__ */ staticIcon(LucidePiggyBank);
export const Landmark = /* @__PURE__ */ staticIcon(LucideLandmark);
export const ReceiptText = /* @__PURE__ */ staticIcon(LucideReceiptText);
export const RotateCcw = /* @__PURE__ */ staticIcon(LucideRotateCcw);
export const Settings = /* @__PURE__ */ staticIcon(LucideSettings);
export const User = /* @__PURE__ */ staticIcon(LucideUser);
export const Users = /* @__PURE__ */ staticIcon(LucideUsers);
export const Wallet = /* @__PURE__ */ staticIcon(LucideWallet);
export const X = /* @__PURE__ */ staticIcon(LucideX);
export const Zap = /* @__PURE__ */ staticIcon(LucideZap);
