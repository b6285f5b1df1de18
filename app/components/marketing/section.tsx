/** Page sections on the 8 px grid, with one heading style for the whole marketing site. */
export function Section({
  id,
  labelledBy,
  tone = "plain",
  className = "",
  children,
}: {
  id?: string;
  labelledBy?: string;
  tone?: "plain" | "white";
  className?: string;
  children: React.ReactNode;
}) {
  const background = tone === "white" ? "bg-white border-y border-slate-200/70" : "";
  return (
    <section id={id} aria-labelledby={labelledBy} className={`${background} ${className}`}>
      <div className="mx-auto max-w-7xl px-4 py-16 sm:px-6 sm:py-24 lg:px-8">{children}</div>
    </section>
  );
}

export function SectionHeading({
  id,
  eyebrow,
  title,
  lead,
  align = "left",
  level = 2,
}: {
  id: string;
  eyebrow?: string;
  title: string;
  lead?: string;
  align?: "left" | "center";
  level?: 2 | 3;
}) {
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <div className={align === "center" ? "mx-auto max-w-2xl text-center" : "max-w-2xl"}>
      {eyebrow ? <p className="text-sm font-semibold uppercase tracking-wider text-accent-700">{eyebrow}</p> : null}
      <Heading id={id} className="mt-2 text-3xl font-semibold tracking-tight text-balance text-brand-800 sm:text-4xl">
        {title}
      </Heading>
      {lead ? <p className="mt-4 text-lg leading-relaxed text-slate-600">{lead}</p> : null}
    </div>
  );
}

/** An icon in a soft tile; always decorative (the text beside it carries the meaning). */
export function IconTile({
  icon: Icon,
  tone = "accent",
  size = "md",
}: {
  icon: React.ComponentType<{ className?: string; "aria-hidden"?: boolean | "true" }>;
  tone?: "accent" | "brand" | "onDark";
  size?: "md" | "lg";
}) {
  const tones = {
    accent: "bg-accent-50 text-accent-700 ring-1 ring-inset ring-accent-100",
    brand: "bg-brand-50 text-brand-700 ring-1 ring-inset ring-brand-100",
    onDark: "bg-white/10 text-white ring-1 ring-inset ring-white/20",
  } as const;
  const sizes = { md: "size-12 rounded-xl [&>svg]:size-6", lg: "size-16 rounded-2xl [&>svg]:size-8" } as const;
  return (
    <span className={`inline-flex shrink-0 items-center justify-center ${tones[tone]} ${sizes[size]}`}>
      <Icon aria-hidden="true" />
    </span>
  );
}

/** The card look of the design system: white, light border, soft shadow. */
export const cardClass =
  "rounded-2xl border border-slate-200 bg-white shadow-[0_1px_2px_rgb(15_23_42/0.04),0_8px_24px_-12px_rgb(15_23_42/0.12)]";

/** A card that is itself a link: lifts slightly on hover. */
export const linkCardClass = `${cardClass} transition hover:-translate-y-0.5 hover:border-brand-200 hover:shadow-[0_1px_2px_rgb(15_23_42/0.06),0_16px_32px_-16px_rgb(15_23_42/0.25)] motion-reduce:hover:translate-y-0`;
