import { Clock, KeyRound, Lock, ShieldCheck } from "lucide-react";

/**
 * The frame of the sign-in pages: the form in a card, and beside it (wide screens) what keeps
 * online banking safe. The card comes first in reading order, so the page's heading is read first.
 */
export function AuthShell({
  children,
  support,
}: {
  children: React.ReactNode;
  support: { email: string; phone: string };
}) {
  return (
    <div className="bg-gradient-to-b from-brand-50 via-slate-50 to-slate-50">
      <div className="mx-auto grid max-w-6xl items-start gap-10 px-4 py-10 sm:px-6 sm:py-14 lg:grid-cols-[minmax(0,1fr)_minmax(0,30rem)] lg:px-8 lg:py-20">
        <div className="w-full lg:order-2">{children}</div>
        <aside
          aria-labelledby="safety-heading"
          className="hidden overflow-hidden rounded-3xl bg-gradient-to-br from-brand-800 via-brand-700 to-accent-700 p-10 text-white shadow-xl lg:order-1 lg:block"
        >
          <h2 id="safety-heading" className="max-w-md text-3xl font-semibold tracking-tight">
            Online banking, protected at every step
          </h2>
          <ul className="mt-8 space-y-6">
            <SafetyPoint icon={KeyRound} title="Two-step sign-in">
              Your password, then a one-time code sent to you or shown in your authenticator app.
            </SafetyPoint>
            <SafetyPoint icon={Clock} title="Automatic sign-out">
              After 15 minutes without activity, and after 12 hours in any case.
            </SafetyPoint>
            <SafetyPoint icon={ShieldCheck} title="Alerts you can trust">
              We email you when someone signs in to your account, and lock sign-in after repeated wrong passwords.
            </SafetyPoint>
            <SafetyPoint icon={Lock} title="We never ask for your codes">
              No one from the credit union will ask for your password or a sign-in code.
            </SafetyPoint>
          </ul>
          <p className="mt-10 border-t border-white/20 pt-6 text-sm text-brand-100">
            Need help signing in? Email{" "}
            <a href={`mailto:${support.email}`} className="font-semibold text-white underline underline-offset-2">
              {support.email}
            </a>{" "}
            or call {support.phone}.
          </p>
        </aside>
      </div>
    </div>
  );
}

function SafetyPoint({ icon: Icon, title, children }: { icon: typeof Lock; title: string; children: React.ReactNode }) {
  return (
    <li className="flex gap-4">
      <span className="flex size-10 shrink-0 items-center justify-center rounded-xl bg-white/15">
        <Icon className="size-5" aria-hidden="true" />
      </span>
      <span>
        <span className="block font-semibold">{title}</span>
        <span className="mt-1 block text-sm text-brand-100">{children}</span>
      </span>
    </li>
  );
}

/** The white card that holds a sign-in step. */
export function AuthCard({ children, className = "" }: { children: React.ReactNode; className?: string }) {
  return (
    <div
      className={`rounded-2xl border border-slate-200 bg-white p-6 shadow-lg shadow-brand-900/5 sm:p-8 ${className}`}
    >
      {children}
    </div>
  );
}
