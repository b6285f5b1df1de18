import AxeBuilder from "@axe-core/playwright";
import crypto from "node:crypto";
import zlib from "node:zlib";
import { expect, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";

/** Every public page (docs/product.md#routes), for crawling, scanning and screenshots. */
export const PUBLIC_PAGES = [
  "/",
  "/about",
  "/products",
  "/products?segment=business",
  "/products/premier-checking",
  "/contact",
  "/calculators",
  "/locations",
  "/security",
  "/privacy",
  "/terms",
  "/accessibility",
  "/careers",
  "/community",
] as const;

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1440, height: 900 };

/**
 * An axe scan against WCAG 2.1 A and AA; fails listing each violation and where it is.
 *
 * Legacy mode runs axe.run in the page (and its same-origin frames). The default mode runs axe in
 * each frame, then opens a new blank page to merge the frames' results: about half of every
 * scan's time (1-2 s on a busy machine; the suite scans some 200 times). The only difference is
 * that cross-origin frames go unscanned, and the app's only one is the optional third-party
 * market widget, off in the demo profile. Same rules, same results (checked on the dashboard,
 * transactions and home pages).
 */
export async function expectNoAxeViolations(page: Page, options: { disableRules?: string[] } = {}) {
  const results = await new AxeBuilder({ page })
    // Only the violations are read: axe then builds a selector for one node per passed or
    // inapplicable rule instead of every node (set first: options() replaces the tags and rules
    // set before it). Measured on the member pages' and public pages' scans (18 tests, 2026-11-24,
    // load average 11-25 on the shared 2-core machine): about 5% less CPU for the whole run, the
    // browser's part 72 -> 66-69 s. Same rules, same violations.
    .options({ resultTypes: ["violations"] })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .disableRules(options.disableRules ?? [])
    .setLegacyMode(true)
    .analyze();
  const summary = results.violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes
        .map((n) => n.target.join(" "))
        .slice(0, 5)
        .join("\n    ")}`,
  );
  expect(summary, `axe violations on ${page.url()}`).toEqual([]);
}

/** Collects console errors and CSP violations so a test can assert a page ran cleanly. */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  return errors;
}

/**
 * Sign-in and member helpers shared by the browser tests: sign in as a person would (the code read
 * from the demo inbox, or computed from an authenticator secret), a fresh member made by staff
 * through the back office (so no test changes a published demo sign-in), a real PNG, and RFC 6238.
 */
export const STAFF = { email: "staff@harborview.example", password: "Staff-Demo-Pass-1" };
/** The demo's second admin: approves what Dana (STAFF) asks for, as dual control needs (docs/product.md#staff-role-grants). */
export const APPROVER = { email: "approver@harborview.example", password: "Staff-Demo-Pass-2" };
/** The published demo members (their accounts and six months of history come from the demo seed). */
export const ALEX = { email: "alex.morgan@harborview.example", password: "Member-Demo-Pass-1", name: "Alex Morgan" };
export const PRIYA = { email: "priya.shah@harborview.example", password: "Member-Demo-Pass-2", name: "Priya Shah" };
export const SAM = { email: "sam.okafor@harborview.example", password: "Member-Demo-Pass-3", name: "Sam Okafor" };

/**
 * Waits until React has hydrated the page. React Aria collections (the transfer tabs) re-create
 * their items' DOM nodes as hydration finishes, so focus placed on them before that is lost:
 * keyboard tests focus things only after this.
 */
export async function hydrated(page: Page) {
  await page.waitForFunction(() => {
    const main = document.getElementById("main");
    return main !== null && Object.keys(main).some((key) => key.startsWith("__reactFiber"));
  });
}
export const MEMBER_PASSWORD = "Harbor lights 2026 settings";

export function uniqueEmail(tag: string): string {
  return `e2e-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** The newest sign-in code sent to `email`, read from the demo inbox in another tab. */
export async function inboxCode(page: Page, email: string): Promise<string> {
  const inbox = await page.context().newPage();
  try {
    await inbox.goto(`/demo/inbox?to=${encodeURIComponent(email)}`);
    const code = (await inbox.getByTestId("demo-code").first().textContent())?.trim() ?? "";
    expect(code).toMatch(/^\d{6}$/);
    return code;
  } finally {
    await inbox.close();
  }
}

/**
 * A transfer's code step refusing, as a member meets it: Confirm with no code ("Please enter OTP"),
 * then with a wrong one ("Invalid OTP"). Returns the right code, read from the demo inbox, which
 * the caller types with confirmWithCode once it has checked the page in that state.
 */
export async function refuseMissingAndWrongCode(page: Page, panel: Locator, email: string): Promise<string> {
  const posted = { timeout: 15_000 };
  await panel.getByRole("button", { name: "Confirm transfer" }).click();
  await expect(panel.getByText("Please enter OTP").first()).toBeVisible(posted);
  const code = await inboxCode(page, email);
  await panel.getByLabel("One-time code").fill(code === "000000" ? "111111" : "000000");
  await panel.getByRole("button", { name: "Confirm transfer" }).click();
  await expect(panel.getByText("Invalid OTP").first()).toBeVisible(posted);
  return code;
}

/** Types the transfer's code and confirms it. */
export async function confirmWithCode(panel: Locator, code: string) {
  await panel.getByLabel("One-time code").fill(code);
  await panel.getByRole("button", { name: "Confirm transfer" }).click();
}

/**
 * Signs in through /login. `code` gives the second factor (default: the emailed code). Another
 * test may sign the same account in at the same moment, which replaces the emailed code: then
 * the whole sign-in starts again (at most twice more).
 */
export async function signIn(page: Page, email: string, password: string, code?: () => string | Promise<string>) {
  for (let attempt = 0; attempt < 3; attempt++) {
    await page.goto("/login");
    // A sign-in that finished after all (a slow answer) lands elsewhere: signed in.
    if (!new URL(page.url()).pathname.startsWith("/login")) return;
    // A second step still open from the last try: go back to step 1.
    if (await page.getByRole("heading", { name: "Verify OTP" }).isVisible())
      await page.getByRole("button", { name: "Back" }).click();
    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Continue" }).click();
    // Checking a password takes a moment (argon2), longer on a busy machine.
    await expect(page.getByRole("heading", { name: "Verify OTP" })).toBeVisible({ timeout: 20_000 });
    await page.getByLabel("Verification code").fill(code ? await code() : await inboxCode(page, email));
    await page.getByRole("button", { name: "Verify & Sign in" }).click();
    const outcome = await Promise.race([
      page
        .waitForURL((url) => !url.pathname.startsWith("/login"), { timeout: 20_000, waitUntil: "commit" })
        .then(
          () => "in" as const,
          () => "timeout" as const,
        ),
      page
        .getByText("Invalid OTP. Please try again.")
        .waitFor({ timeout: 20_000 })
        .then(
          () => "invalid" as const,
          () => "timeout" as const,
        ),
    ]);
    if (outcome === "in") return;
    if (code) break;
  }
  await expect(page).not.toHaveURL(/\/login/);
}

/**
 * A context that starts signed out. `browser.newContext()` inside a test takes the test's own
 * options, the signed-in person's cookies (`storageState`) among them: a "new person" signing in
 * there signed in on top of the worker's staff session, which then ended (the staff page was seen
 * signed out right after another person signed in), and the new person's pages could open as
 * staff (a set-up link's answer went on to /admin).
 */
export const NO_SESSION = { cookies: [], origins: [] };

/** A signed-in staff browser context (one sign-in per spec file: sign-ins are rate-limited per address). */
export async function staffContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, storageState: NO_SESSION });
  const page = await context.newPage();
  await signIn(page, STAFF.email, STAFF.password);
  await page.close();
  return context;
}

export interface TestMember {
  email: string;
  password: string;
  first_name: string;
  last_name: string;
}

/**
 * The temporary password staff give a member they create (replaced at first sign-in,
 * docs/product.md#passwords).
 */
export const TEMPORARY_PASSWORD = "Temporary harbor key 2026";

/**
 * A fresh, active member created by staff ("Create New User", docs/product.md#create-new-user)
 * through the back office, so the test can change their password or enrol an authenticator without
 * touching a published demo sign-in. Staff give a temporary password, which must be replaced at
 * first sign-in: unless `temporary` is set, this signs the member in once (in a throw-away context)
 * and replaces it with MEMBER_PASSWORD, so the member is ready to use with `password`.
 */
export async function createMember(
  staff: BrowserContext,
  baseURL: string,
  tag: string,
  options: { temporary?: boolean } = {},
): Promise<TestMember> {
  const member = { email: uniqueEmail(tag), password: TEMPORARY_PASSWORD, first_name: "Jordan", last_name: "Tester" };
  const response = await staff.request.post("/admin?index&create=1", {
    headers: { Origin: new URL(baseURL).origin },
    form: {
      intent: "create_member",
      email: member.email,
      password: member.password,
      first_name: member.first_name,
      last_name: member.last_name,
      phone: "(555) 010-3030",
      street: "12 Test Street",
      city: "Portsmouth",
      state: "NH",
      postal_code: "03801",
      role: "user",
    },
    maxRedirects: 0,
  });
  expect([200, 204, 302, 303], `creating ${member.email}`).toContain(response.status());
  if (options.temporary) return member;
  const browser = staff.browser();
  if (!browser) throw new Error("createMember needs a context with its browser");
  await replaceTemporaryPassword(browser, baseURL, member.email, TEMPORARY_PASSWORD, MEMBER_PASSWORD);
  return { ...member, password: MEMBER_PASSWORD };
}

/**
 * The member's first sign-in and "Choose a new password", as plain form posts (what a browser
 * without JavaScript sends): the password, the code from the demo inbox, then the new password.
 * From an address of its own (see fixtures.ts), so it does not count against the caller's sign-ins.
 */
export async function replaceTemporaryPassword(
  browser: Browser,
  baseURL: string,
  email: string,
  temporary: string,
  chosen: string,
) {
  const address = `198.19.${crypto.randomInt(1, 255)}.${crypto.randomInt(1, 255)}`;
  const context = await browser.newContext({
    baseURL,
    storageState: NO_SESSION,
    extraHTTPHeaders: { "X-Forwarded-For": address },
  });
  try {
    const headers = { Origin: new URL(baseURL).origin };
    const step1 = await context.request.post("/login", {
      headers,
      form: { intent: "password", email, password: temporary },
      maxRedirects: 0,
    });
    expect([302, 303], `first sign-in of ${email}`).toContain(step1.status());
    const inbox = await (await context.request.get(`/demo/inbox?to=${encodeURIComponent(email)}`)).text();
    const code = /data-testid="demo-code"[^>]*>\s*(\d{6})/.exec(inbox)?.[1] ?? "";
    expect(code, `sign-in code for ${email}`).toMatch(/^\d{6}$/);
    const step2 = await context.request.post("/login", { headers, form: { intent: "code", code }, maxRedirects: 0 });
    expect(step2.headers()["location"], `second step of ${email}`).toBe("/change-password");
    const change = await context.request.post("/change-password", {
      headers,
      form: { current_password: temporary, new_password: chosen, confirm_password: chosen },
      maxRedirects: 0,
    });
    expect(change.headers()["location"], `new password of ${email}`).toBe("/dashboard");
  } finally {
    await context.close();
  }
}

/** A new context signed in with /login's two posts (the code from the demo inbox), from an address of its own. */
async function signedInContext(
  browser: Browser,
  baseURL: string,
  person: { email: string; password: string },
): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL,
    storageState: NO_SESSION,
    extraHTTPHeaders: { "X-Forwarded-For": `198.19.${crypto.randomInt(1, 255)}.${crypto.randomInt(1, 255)}` },
  });
  const headers = { Origin: new URL(baseURL).origin };
  const step1 = await context.request.post("/login", {
    headers,
    form: { intent: "password", email: person.email, password: person.password },
    maxRedirects: 0,
  });
  expect([302, 303], `sign-in of ${person.email}`).toContain(step1.status());
  const inbox = await (await context.request.get(`/demo/inbox?to=${encodeURIComponent(person.email)}`)).text();
  const code = /data-testid="demo-code"[^>]*>\s*(\d{6})/.exec(inbox)?.[1] ?? "";
  const step2 = await context.request.post("/login", { headers, form: { intent: "code", code }, maxRedirects: 0 });
  expect([302, 303], `second step of ${person.email}`).toContain(step2.status());
  return context;
}

/** The new staff member's password, chosen through the set-up link. */
export const STAFF_PASSWORD = "Harbor checker key 2026";

/**
 * A staff or reviewer account made the only way there is (docs/product.md#staff-role-grants):
 * `requester` (a signed-in admin's context) asks with Create New User, the demo's second admin
 * (APPROVER) approves in Queues, and the new person chooses their password through the set-up
 * link from the demo inbox. As plain form posts; the pages themselves are tested in
 * staff-role-grants.spec.ts.
 */
export async function grantedStaff(
  requester: BrowserContext,
  browser: Browser,
  baseURL: string,
  tag: string,
  role: "admin" | "reviewer",
): Promise<TestMember> {
  const email = uniqueEmail(tag);
  const headers = { Origin: new URL(baseURL).origin };
  const asked = await requester.request.post("/admin?index&create=1", {
    headers,
    form: {
      intent: "create_member",
      email,
      first_name: "Casey",
      last_name: "Checker",
      phone: "(555) 010-4040",
      street: "1 Bank Street",
      city: "Portsmouth",
      state: "NH",
      postal_code: "03801",
      role,
    },
    maxRedirects: 0,
  });
  expect([302, 303], `request for ${email}`).toContain(asked.status());
  const approver = await signedInContext(browser, baseURL, APPROVER);
  try {
    const queues = await (await approver.request.get("/admin/queues")).text();
    const item = queues.split('data-testid="staff-grant-').find((chunk) => chunk.includes(email));
    const grant_id = /^(\d+)"/.exec(item ?? "")?.[1];
    expect(grant_id, `the request for ${email} in Queues`).toBeTruthy();
    const approved = await approver.request.post("/admin/queues", {
      headers,
      form: { intent: "approve_staff_grant", grant_id: grant_id! },
      maxRedirects: 0,
    });
    expect(approved.status(), `approving ${email}`).toBe(200);
    const inbox = await (await approver.request.get(`/demo/inbox?to=${encodeURIComponent(email)}`)).text();
    const token = /href="\/reset-password\?token=([A-Za-z0-9_%-]+)"/.exec(inbox)?.[1] ?? "";
    expect(token, `set-up link for ${email}`).not.toBe("");
    const set = await approver.request.post("/reset-password", {
      headers,
      form: { token: decodeURIComponent(token), password: STAFF_PASSWORD, confirm_password: STAFF_PASSWORD },
      maxRedirects: 0,
    });
    expect(set.headers()["location"], `password of ${email}`).toBe("/login?notice=reset");
  } finally {
    await approver.close();
  }
  return { email, password: STAFF_PASSWORD, first_name: "Casey", last_name: "Checker" };
}

/** Every member createMember makes is named so (the recipient's name a transfer shows). */
export const CREATED_MEMBER_NAME = "Jordan Tester";
/** The demo profile's To Another Member amount above which the emailed code confirms (app/config/demo-institution.ts). */
const MEMBER_CODE_ABOVE_DOLLARS = 1_000;

/** What fundedMember needs of a test's fixtures (fixtures.ts). */
export type MemberFixtures = {
  newMember: (tag: string) => Promise<TestMember>;
  pageAs: (person: { email: string; password: string }) => Promise<Page>;
};

/**
 * The demo members who fund new members, taken in turn. A member may look up 30 recipients in
 * 15 minutes (RECIPIENT_LOOKUPS_PER_WINDOW) and a funding is two look-ups (Verify, then Send):
 * one funder for the whole suite ran out of look-ups in its last quarter hour, and with two, taken
 * in turn by each worker from the same one, a whole run once left Sam without.
 */
const FUNDERS = [SAM, PRIYA] as const;
let fundings = 0;

/**
 * A new member (checking and savings at zero, see createMember) given `dollars` by a demo member
 * (Sam Okafor or Priya Shah, in turn; `from` picks one) through a real To Another Member transfer,
 * so the money comes through the ledger and no test depends on the demo members' balances.
 */
export async function fundedMember(
  { newMember, pageAs }: MemberFixtures,
  tag: string,
  dollars: string,
  from?: (typeof FUNDERS)[number],
): Promise<TestMember> {
  const member = await newMember(tag);
  // Each worker starts its turns at its own funder, so the suite's look-ups fall evenly on both.
  // A funder out of look-ups is refused before any money moves; the other funder then sends.
  const first = from ?? FUNDERS[(fundings++ + Number(process.env.TEST_WORKER_INDEX ?? 0)) % FUNDERS.length]!;
  // Alex only as the last resort: other tests read Alex's pages, so a funding from Alex is the
  // exception, late in a fast run when Sam and Priya have both used their 30 look-ups.
  const funders = from ? [from] : [first, ...FUNDERS.filter((funder) => funder !== first), ALEX];
  for (const funder of funders) {
    if ((await sendWelcomeMoney(pageAs, funder, member.email, dollars)) === "sent") return member;
  }
  throw new Error(`${funders.map((funder) => funder.name).join(" and ")} had no look-ups left to fund ${tag}`);
}

/** One To Another Member transfer of `dollars` from `funder` to `email`, as the funder would send it. */
async function sendWelcomeMoney(
  pageAs: MemberFixtures["pageAs"],
  funder: { email: string; password: string; name: string },
  email: string,
  dollars: string,
): Promise<"sent" | "out of look-ups"> {
  const posted = { timeout: 15_000 };
  const page = await pageAs(funder);
  await page.goto("/dashboard?transfer=member#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  // Said next to the email after Verify, and in the form's alert after Send or Confirm.
  const out_of_lookups = panel.getByText("Too many lookups").first();
  const outcome = async (next: Locator): Promise<"next" | "out of look-ups"> => {
    await expect(next.or(out_of_lookups).first()).toBeVisible(posted);
    return (await out_of_lookups.count()) > 0 ? "out of look-ups" : "next";
  };
  const answer = await (async () => {
    await panel.getByLabel("Recipient's email").fill(email);
    await panel.getByRole("button", { name: "Verify" }).click();
    if ((await outcome(panel.getByText(`Recipient found: ${CREATED_MEMBER_NAME}`))) !== "next")
      return "out of look-ups";
    await panel.getByLabel("Amount").fill(dollars);
    await panel.getByLabel("Reference").fill("Welcome money");
    await panel.getByRole("button", { name: "Send money" }).click();
    if (Number(dollars) > MEMBER_CODE_ABOVE_DOLLARS) {
      if ((await outcome(panel.getByLabel("One-time code"))) !== "next") return "out of look-ups";
      await panel.getByLabel("One-time code").fill(await inboxCode(page, funder.email));
      await panel.getByRole("button", { name: "Confirm transfer" }).click();
    }
    const shown = Number(dollars).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const sent = panel.getByRole("status").filter({ hasText: `Transfer sent: $${shown}` });
    if ((await outcome(sent)) !== "next") return "out of look-ups";
    return "sent";
  })();
  await page.close();
  return answer;
}

/** A file for a form's file field, as Playwright's setInputFiles takes it. */
export type UploadFile = { name: string; mimeType: string; buffer: Buffer };

/**
 * Types `answers` (see applicationAnswers in ../application-answers.ts) into the membership form
 * at /signup, choosing the two selects, and attaches `document` (a real PNG unless given; none if null).
 */
export async function fillApplication(
  page: Page,
  answers: Record<string, string>,
  document: UploadFile | null = { name: "id.png", mimeType: "image/png", buffer: makePng() },
) {
  const field = (name: string) => page.getByRole("form", { name: "Create your account" }).locator(`[name="${name}"]`);
  const selects = ["marital_status", "id_type", "tin_type", "tin_country", "joint_tin_type", "joint_tin_country"];
  for (const [name, value] of Object.entries(answers)) {
    // A non-US document's country shows only once that kind is chosen: left alone when empty.
    if (name.endsWith("tin_country") && value === "") continue;
    if (selects.includes(name)) await field(name).selectOption(value);
    else await field(name).fill(value);
  }
  if (document) await field("id_document").setInputFiles(document);
}

/**
 * Staff find a member or applicant by email at /admin and open their details. `listedAs` (their
 * name) picks the member list's link where the approvals box links them too; `hydrate` waits for
 * React before the caller opens a dialog (never without JavaScript).
 */
export async function openMemberDetails(
  staff: Page,
  email: string,
  options: { listedAs?: string; hydrate?: boolean } = {},
) {
  const escaped = email.replace(/[.+]/g, "\\$&");
  await staff.goto("/admin");
  await staff.getByRole("searchbox", { name: "Search by name, email or account number" }).fill(email);
  await staff.getByRole("button", { name: "Search" }).click();
  await staff
    .getByRole("link", { name: new RegExp(options.listedAs ? `^${options.listedAs} ${escaped}` : escaped) })
    .click();
  await expect(staff.getByRole("heading", { name: `User Details: ${email}` })).toBeVisible();
  if (options.hydrate) await hydrated(staff);
}

/**
 * A second staff member for an approval: the demo's second admin; or a reviewer made through a
 * role grant (Dana asks, the second admin approves, the reviewer sets their password with the
 * set-up link), in a context that starts signed out (NO_SESSION).
 */
export async function secondStaff(
  browser: Browser,
  baseURL: string,
  staffPage: Page,
  role: "admin" | "reviewer" = "admin",
): Promise<TestMember> {
  if (role === "admin") return { ...APPROVER, first_name: "Morgan", last_name: "Alvarez" };
  return grantedStaff(staffPage.context(), browser, baseURL, "reviewer", "reviewer");
}

/** A real PNG (`size`×`size`, a two-colour pattern), built with zlib. */
export function makePng(size = 64): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((size * 3 + 1) * size);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++)
      rows.set((x + y) % 16 < 8 ? [15, 118, 110] : [11, 37, 69], y * (size * 3 + 1) + 1 + x * 3);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** RFC 6238 TOTP (HMAC-SHA1, 30-second steps, 6 digits) from a base32 secret, with node:crypto. */
export function totp(secret_base32: string, at_ms = Date.now()): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of secret_base32.replace(/\s+/g, "").toUpperCase())
    bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at_ms / 1000 / 30)));
  const mac = crypto.createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return ((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).toString().padStart(6, "0");
}
