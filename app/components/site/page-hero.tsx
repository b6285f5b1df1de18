/**
 * The band at the top of each public page: deep navy with a soft accent glow (decorative only;
 * every text colour on it keeps AA contrast against the darkest and the lightest point).
 */
export function PageHero({
  title,
  lead,
  eyebrow,
  children,
}: {
  title: string;
  lead?: string;
  /** A short line above the title, e.g. "About us". */
  eyebrow?: string;
  children?: React.ReactNode;
}) {
  return (
    <section className="relative isolate overflow-hidden bg-brand-800 text-white">
      <HeroBackdrop />
      <div className="mx-auto max-w-7xl px-4 py-16 sm:px-6 sm:py-24 lg:px-8">
        {eyebrow ? <p className="text-sm font-semibold uppercase tracking-wider text-accent-100">{eyebrow}</p> : null}
        <h1
          className={`${eyebrow ? "mt-2 " : ""}max-w-3xl text-4xl font-semibold tracking-tight text-balance sm:text-5xl`}
        >
          {title}
        </h1>
        {lead ? <p className="mt-6 max-w-2xl text-lg leading-relaxed text-brand-100">{lead}</p> : null}
        {children}
      </div>
    </section>
  );
}

/** Decorative layers behind a navy hero: accent glow, a faint grid fading out, a base gradient. */
export function HeroBackdrop() {
  return (
    <div aria-hidden="true" className="absolute inset-0 -z-10">
      <div className="absolute inset-0 bg-gradient-to-br from-brand-900 via-brand-800 to-brand-700" />
      <div className="absolute inset-0 bg-[radial-gradient(ellipse_60%_80%_at_85%_10%,color-mix(in_oklab,var(--color-accent-600)_40%,transparent),transparent_70%)]" />
      <div className="absolute inset-0 bg-[linear-gradient(to_right,rgb(255_255_255/0.05)_1px,transparent_1px),linear-gradient(to_bottom,rgb(255_255_255/0.05)_1px,transparent_1px)] bg-[size:48px_48px] [mask-image:radial-gradient(ellipse_70%_70%_at_70%_0%,black,transparent)]" />
    </div>
  );
}
