/** "{page} | {institution name}", for every page's meta. */
export function pageTitle(page: string, matches: readonly unknown[]): { title: string }[] {
  const root = matches.find((m) => (m as { id?: string } | undefined)?.id === "root") as
    { loaderData?: { institution?: { name?: string } } } | undefined;
  const name = root?.loaderData?.institution?.name;
  return [{ title: name ? `${page} | ${name}` : page }];
}
