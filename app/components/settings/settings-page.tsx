import { Link } from "react-router";
import { ArrowLeft } from "lucide-react";

/** The frame of /settings/profile and /settings/account (the same forms as the dialogs). */
export function SettingsPage({
  title,
  description,
  other,
  role,
  children,
}: {
  title: string;
  description: string;
  other: { to: string; label: string };
  role: string;
  children: React.ReactNode;
}) {
  const home =
    role === "admin" || role === "reviewer"
      ? { to: "/admin", label: "Back office" }
      : { to: "/dashboard", label: "Dashboard" };
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <nav aria-label="Settings" className="flex flex-wrap items-center justify-between gap-3 text-sm">
        <Link
          to={home.to}
          className="inline-flex items-center gap-1.5 rounded-md font-medium text-brand-800 hover:underline"
        >
          <ArrowLeft className="size-4" aria-hidden="true" />
          {home.label}
        </Link>
        <Link to={other.to} className="rounded-md font-medium text-brand-800 hover:underline">
          {other.label}
        </Link>
      </nav>
      <h1 className="mt-6 text-3xl font-semibold tracking-tight text-brand-800">{title}</h1>
      <p className="mt-2 text-slate-700">{description}</p>
      <div className="mt-8 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-8">{children}</div>
    </div>
  );
}
