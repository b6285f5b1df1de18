import {
  test as base,
  type APIRequestContext,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from "@playwright/test";
import crypto from "node:crypto";
import { createMember, STAFF, type TestMember } from "./support";

/**
 * The browser tests' fixtures.
 *
 * Addresses: every test browses from its own network address, as real visitors do: the e2e
 * server runs behind a "proxy" (TRUST_PROXY=1) and each test sends its own X-Forwarded-For.
 * Without this, the whole suite shares 127.0.0.1 and the per-address sign-in limits trip mid-run.
 * The addresses come from 198.18.0.0/15, the range reserved for benchmarks: a header value only.
 *
 * Sessions: signing in through the page costs 30-60 s on a busy machine (argon2, two steps, the
 * inbox), so only the tests about signing in do it (identity.spec.ts keeps the one that signs in
 * through the page as a person does). Every other test is handed a session made once per worker
 * and person with the same two form posts a browser without JavaScript sends (password, then the
 * emailed code from the demo inbox) and reused through its cookies, Playwright's "authenticate
 * once per worker" pattern. The server runs in another process on an embedded database only it
 * can open, so the session cannot be written into the database directly, and no test-only route
 * exists in the application for it.
 *
 *   test.use({ signedInAs: ALEX });            // `page` is Alex's, signed in
 *   await signInAs(PRIYA);                     // or, inside one test
 *   const staff = await signedIn(STAFF);       // a second, signed-in browser context
 *   const member = await newMember("limit");   // a fresh member of the test's own
 */
export type Person = { email: string; password: string };
export type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;

/** A session this worker has made, for any person with a password (demo or made by a test). */
export interface Sessions {
  /** The cookies of a live session of `person`: the worker's one, or a new one if it ended. */
  stateFor(person: Person): Promise<StorageState>;
}

/** A session left with less than this before its idle end is replaced before a test uses it. */
const SESSION_LEFT_MIN_MS = 5 * 60 * 1000;
const SIGN_IN_ATTEMPTS = 4;

function testAddress(seed: string): string {
  const digest = crypto.createHash("sha256").update(seed).digest();
  return `198.${18 + (digest[0]! & 1)}.${digest[1]}.${digest[2]! || 1}`;
}

/**
 * One sign-in through the login form's posts, from a fresh address (so it does not count against
 * any test's own sign-ins). Another worker may sign the same person in at the same moment, which
 * sends a newer code: then it starts again. A wrong code is counted against the account, but the
 * next right one clears the count, so the per-account code lock is never reached.
 */
async function signInByRequest(
  newRequest: (address: string) => Promise<APIRequestContext>,
  baseURL: string,
  person: Person,
): Promise<StorageState> {
  const headers = { Origin: new URL(baseURL).origin };
  let last = "";
  for (let attempt = 0; attempt < SIGN_IN_ATTEMPTS; attempt++) {
    const request = await newRequest(testAddress(`${person.email}:${crypto.randomUUID()}`));
    try {
      const step1 = await request.post("/login", {
        headers,
        form: { intent: "password", email: person.email, password: person.password },
        maxRedirects: 0,
      });
      if (![302, 303].includes(step1.status())) {
        last = `password step answered ${step1.status()}`;
        continue;
      }
      const inbox = await (await request.get(`/demo/inbox?to=${encodeURIComponent(person.email)}`)).text();
      const code = /data-testid="demo-code"[^>]*>\s*(\d{6})/.exec(inbox)?.[1] ?? "";
      const step2 = await request.post("/login", { headers, form: { intent: "code", code }, maxRedirects: 0 });
      const location = step2.headers()["location"] ?? "";
      if ([302, 303].includes(step2.status()) && !location.startsWith("/login")) return await request.storageState();
      last = `code step answered ${step2.status()} ${location}`;
    } finally {
      await request.dispose();
    }
  }
  throw new Error(`could not sign ${person.email} in by request (${last})`);
}

/** Whether the session in `state` is live with time to spare (GET /session does not count as activity). */
async function sessionLeftMs(
  newRequest: (state: StorageState) => Promise<APIRequestContext>,
  state: StorageState,
): Promise<number> {
  const request = await newRequest(state);
  try {
    const response = await request.get("/session");
    if (!response.ok()) return 0;
    const body = (await response.json()) as { signed_in: boolean; expires_in_ms: number };
    return body.signed_in ? body.expires_in_ms : 0;
  } finally {
    await request.dispose();
  }
}

export const test = base.extend<
  {
    /** Who `page` (and the test's own context) is signed in as; none unless a spec says. */
    signedInAs: Person | undefined;
    /** Signs the test's own `page` in as `person` (the worker's session, no sign-in page). */
    signInAs: (person: Person) => Promise<void>;
    /** A new browser context signed in as `person` (closed after the test). */
    signedIn: (person: Person, options?: BrowserContextOptions) => Promise<BrowserContext>;
    /** A new page in a context signed in as `person`. */
    pageAs: (person: Person, options?: BrowserContextOptions) => Promise<Page>;
    /** A fresh, active member created by staff (see createMember in support.ts). */
    newMember: (tag: string, options?: { temporary?: boolean }) => Promise<TestMember>;
  },
  { sessions: Sessions }
>({
  extraHTTPHeaders: async ({ extraHTTPHeaders }, provide, testInfo) => {
    await provide({ ...extraHTTPHeaders, "X-Forwarded-For": testAddress(`${testInfo.testId}:${testInfo.retry}`) });
  },

  sessions: [
    async ({ playwright }, provide, workerInfo) => {
      const baseURL = workerInfo.project.use.baseURL!;
      const made = new Map<string, StorageState>();
      const byAddress = (address: string) =>
        playwright.request.newContext({ baseURL, extraHTTPHeaders: { "X-Forwarded-For": address } });
      const withState = (storageState: StorageState) => playwright.request.newContext({ baseURL, storageState });
      await provide({
        async stateFor(person) {
          const key = person.email.toLowerCase();
          const known = made.get(key);
          if (known && (await sessionLeftMs(withState, known)) > SESSION_LEFT_MIN_MS) return known;
          const state = await signInByRequest(byAddress, baseURL, person);
          made.set(key, state);
          return state;
        },
      });
    },
    { scope: "worker" },
  ],

  signedInAs: [undefined, { option: true }],

  storageState: async ({ signedInAs, sessions, storageState }, provide) => {
    await provide(signedInAs ? await sessions.stateFor(signedInAs) : storageState);
  },

  signInAs: async ({ context, sessions }, provide) => {
    await provide(async (person) => context.addCookies((await sessions.stateFor(person)).cookies));
  },

  signedIn: async ({ browser, baseURL, extraHTTPHeaders, sessions }, provide) => {
    const contexts: BrowserContext[] = [];
    await provide(async (person, options = {}) => {
      const context = await browser.newContext({
        baseURL,
        extraHTTPHeaders,
        ...options,
        storageState: await sessions.stateFor(person),
      });
      contexts.push(context);
      return context;
    });
    for (const context of contexts) await context.close();
  },

  pageAs: async ({ signedIn }, provide) => {
    await provide(async (person, options) => (await signedIn(person, options)).newPage());
  },

  newMember: async ({ signedIn, baseURL }, provide) => {
    let staff: BrowserContext | undefined;
    await provide(async (tag, options = {}) => createMember((staff ??= await signedIn(STAFF)), baseURL!, tag, options));
  },
});

export * from "@playwright/test";
