import { ButtonLink } from "./button-link";
import type { SitePath } from "~/components/site/site-link";

/** The closing call to action of a marketing page: a navy band with two actions. */
export function CtaBand({
  id,
  title,
  lead,
  primary,
  secondary,
}: {
  id: string;
  title: string;
  lead: string;
  primary: { to: SitePath; label: string };
  secondary: { to: SitePath; label: string };
}) {
  return (
    <section aria-labelledby={id} className="mx-auto max-w-7xl px-4 py-16 sm:px-6 sm:py-24 lg:px-8">
      <div className="relative isolate overflow-hidden rounded-3xl bg-brand-800 px-6 py-16 text-center shadow-xl sm:px-16">
        <div
          aria-hidden="true"
          className="absolute inset-0 -z-10 bg-[radial-gradient(ellipse_at_top_right,color-mix(in_oklab,var(--color-accent-600)_45%,transparent),transparent_60%),radial-gradient(ellipse_at_bottom_left,color-mix(in_oklab,var(--color-brand-600)_60%,transparent),transparent_55%)]"
        />
        <h2
          id={id}
          className="mx-auto max-w-2xl text-3xl font-semibold tracking-tight text-balance text-white sm:text-4xl"
        >
          {title}
        </h2>
        <p className="mx-auto mt-4 max-w-xl text-lg text-brand-100">{lead}</p>
        <div className="mt-8 flex flex-col justify-center gap-4 sm:flex-row">
          <ButtonLink to={primary.to} variant="onDark">
            {primary.label}
          </ButtonLink>
          <ButtonLink to={secondary.to} variant="outlineOnDark">
            {secondary.label}
          </ButtonLink>
        </div>
      </div>
    </section>
  );
}
