/**
 * Zod compiles object parsers with `new Function` unless told not to. The pages' Content Security
 * Policy forbids that (no 'unsafe-eval'), so every page with a form made the browser report a
 * blocked eval. Turned off here, in the root module, which the browser runs before any page's
 * module, so before their schemas are built.
 *
 * Zod keeps its settings (what `config()` of zod/v4/core sets) on `globalThis.__zod_globalConfig`,
 * created by whichever runs first, Zod or this. Writing them there spares every page, most of which
 * have no form, the part of Zod that `config` would bring (4 KB compressed). A Zod upgrade that
 * moves them fails tests/unit/zod-settings.test.ts.
 */
const holder = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
holder.__zod_globalConfig ??= {};
holder.__zod_globalConfig.jitless = true;

export {};
