import type { KeyRound } from "lucide-react";

/** One titled part of Account Settings (a bordered box with an icon and an optional description). */
export function SettingsSection({
  id,
  title,
  icon: Icon,
  children,
  description,
}: {
  id: string;
  title: string;
  icon: typeof KeyRound;
  description?: string;
  children: React.ReactNode;
}) {
  return (
    <section
      id={id}
      aria-labelledby={`${id}-title`}
      className="scroll-mt-6 rounded-xl border border-slate-200 p-4 sm:p-5"
    >
      <h3 id={`${id}-title`} className="flex items-center gap-2 text-base font-semibold text-slate-900">
        <Icon className="size-5 text-brand-700" aria-hidden="true" />
        {title}
      </h3>
      {description ? <p className="mt-1 text-sm text-slate-600">{description}</p> : null}
      <div className="mt-3">{children}</div>
    </section>
  );
}
