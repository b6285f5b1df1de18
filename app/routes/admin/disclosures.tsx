import type { Route } from "./+types/disclosures";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { pageTitle } from "~/components/site/page-title";
import { formatBusinessDate } from "~/domain/calendar-date";
import { disclosureChangeList } from "./disclosures.server";

/**
 * /admin/disclosures (docs/product.md#disclosures): each new version of a disclosure in the
 * profile, when it was first seen, the date it takes effect (never sooner than its rule's notice
 * period: 12 CFR 1005.8(a) 21 days, 1030.5(a) and 229.18(e) 30 days), and how many members were
 * told by email and by mail. The notices are sent by the "Change-in-terms notices" job. Staff only.
 */
export function meta({ matches }: Route.MetaArgs) {
  return [...pageTitle("Disclosure changes", matches), { name: "robots", content: "noindex" }];
}

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaff(request, context.get(requestInfoContext));
  return { changes: await disclosureChangeList() };
}

export default function Disclosures({ loaderData }: Route.ComponentProps) {
  const { changes } = loaderData;
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-brand-800 sm:text-3xl">Disclosure changes</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-700">
          A new version of a disclosure in the institution profile is announced to every member by the Change-in-terms
          notices job: by email and in the app for members on electronic delivery, and on the Paper mail list for the
          others. It takes effect on the profile&apos;s date, or later when that is sooner than its rule allows.
        </p>
      </div>
      <section aria-labelledby="changes-heading" className="rounded-2xl border border-slate-200 bg-white shadow-sm">
        <h2 id="changes-heading" className="border-b border-slate-100 px-5 py-3 text-lg font-semibold text-brand-900">
          Changes ({changes.length})
        </h2>
        {changes.length === 0 ? (
          <p className="px-5 py-8 text-sm text-slate-700">No disclosure has changed since this installation began.</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {changes.map((c) => (
              <li key={c.id} className="grid gap-2 px-5 py-4 text-sm sm:grid-cols-3" data-testid="disclosure-change">
                <div>
                  <p className="font-semibold text-slate-900">{c.title}</p>
                  <p className="text-slate-700">Version {c.version}</p>
                  <p className="text-xs text-slate-600">
                    {c.rule ? `${c.rule}: ${c.days_ahead} days' notice` : "No notice period set by a rule"}
                  </p>
                </div>
                <div className="text-slate-800">
                  <p>Announced {formatBusinessDate(c.announced_on)}</p>
                  <p className="font-semibold">Takes effect {formatBusinessDate(c.effective_on)}</p>
                  {c.effective_on !== c.profile_effective_on ? (
                    <p className="text-xs text-amber-900">
                      The profile said {formatBusinessDate(c.profile_effective_on)}: too soon for the notice period.
                    </p>
                  ) : null}
                </div>
                <div className="text-slate-800">
                  <p>
                    Told: {c.by_email + c.by_mail} ({c.by_email} by email, {c.by_mail} on the paper list)
                  </p>
                  <p className="text-xs text-slate-600">{c.done ? "Every member was told." : "Being sent."}</p>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
