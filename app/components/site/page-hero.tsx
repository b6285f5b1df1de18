/** The band at the top of each public page. */
export function PageHero({ title, lead, children }: { title: string; lead?: string; children?: React.ReactNode }) {
  return (
    <section className="bg-gradient-to-br from-brand-800 via-brand-700 to-accent-700 text-white">
      <div className="mx-auto max-w-7xl px-4 py-14 sm:px-6 sm:py-20 lg:px-8">
        <h1 className="max-w-3xl text-3xl font-semibold tracking-tight sm:text-5xl">{title}</h1>
        {lead ? <p className="mt-4 max-w-2xl text-lg text-brand-100">{lead}</p> : null}
        {children}
      </div>
    </section>
  );
}
