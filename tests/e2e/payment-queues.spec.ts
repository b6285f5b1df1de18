import fs from "node:fs";
import { expect as baseExpect, test, type Page } from "./fixtures";
import {
  DESKTOP,
  PHONE,
  STAFF,
  expectNoAxeViolations,
  fundedMember,
  hydrated,
  inboxCode,
  watchConsole,
  type TestMember,
} from "./support";
import { readNachaFile } from "../unit/nacha-reader";
import { buildInboundFile } from "../unit/nacha-inbound-builder";

/**
 * Payments to other banks, sent and cancelled (docs/product.md#payment-queues). A member queues
 * To US Bank transfers, sees them Pending on /dashboard/payments and cancels one; staff see the
 * queue at /admin/queues (1440 and 375 px, axe clean), cancel one, export the rest as a NACHA
 * file and download it again (read back by the tests' own NACHA reader); the member then sees
 * Sent with the file's effective date.
 *
 * Export sends every pending ACH transfer of the server, other tests' too: the tests here look
 * only at their own members' payments.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/payment-queues";
test.setTimeout(300_000);
test.describe.configure({ mode: "serial" });

/** A To US Bank transfer through the dashboard, confirmed with the emailed code. */
async function sendAch(page: Page, member: TestMember, payee: string, dollars: string) {
  // After a transfer the page is at /dashboard?transfer=ach: going to the same address with
  // #transfer only scrolls (no new page), and the last transfer's reload then emptied the form
  // being filled. A blank page first makes it a real load.
  await page.goto("about:blank");
  await page.goto("/dashboard?transfer=ach#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  // The member's checking account (the form preselects one only while a single account has money).
  const from = panel.getByLabel("From");
  const checking = await from
    .locator("option")
    .evaluateAll(
      (options) => (options as HTMLOptionElement[]).find((o) => o.textContent?.includes("Checking"))?.value ?? "",
    );
  await from.selectOption(checking);
  await panel.getByLabel("Bank").selectOption({ label: "JPMorgan Chase Bank (021000021)" });
  await panel.getByLabel("Account number").fill("123456789");
  await panel.getByLabel("Name on the account").fill(payee);
  await panel.getByLabel("Amount").fill(dollars);
  await panel.getByLabel("Reference").fill("Rent share");
  await panel.getByRole("button", { name: "Continue" }).click();
  await expect(panel.getByLabel("One-time code")).toBeVisible();
  await panel.getByLabel("One-time code").fill(await inboxCode(page, member.email));
  await panel.getByRole("button", { name: "Confirm transfer" }).click();
  await expect(panel.getByRole("status").filter({ hasText: `Transfer scheduled: $${dollars}` })).toBeVisible();
}

let member: TestMember;
// Payees named so that no name is inside another (filters match text case-insensitively).
const STAMP = Date.now().toString(36).toUpperCase();
const KEEP = `Kim ${STAMP}`;
const DROP = `Lee ${STAMP}`;
const STAFF_DROP = `Ray ${STAMP}`;
/** The exported entry of KEEP's transfer, which the other bank returns at the end. */
let keepTrace = "";

test("a member sees a pending ACH transfer and cancels it; the money is available again", async ({
  page,
  newMember,
  pageAs,
  signInAs,
}) => {
  member = await fundedMember({ newMember, pageAs }, "queues", "200.00");
  await signInAs(member);
  await sendAch(page, member, DROP, "20.00");
  await sendAch(page, member, KEEP, "30.00");
  await sendAch(page, member, STAFF_DROP, "40.00");
  await page.goto("/dashboard/transactions");
  await page.getByRole("link", { name: "Payments to other banks" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Payments to other banks" })).toBeVisible();
  await hydrated(page);
  const drop = page.getByTestId("member-payment").filter({ hasText: DROP });
  await expect(drop.getByText("Pending")).toBeVisible();
  await page.setViewportSize(PHONE);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/member-payments-pending-375.png`, fullPage: true });
  await drop.getByRole("button", { name: /^Cancel payment MU\d{8}$/ }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "Cancelled. $20.00 is available in your account again." }),
  ).toBeVisible();
  await expect(drop.getByText("Cancelled")).toBeVisible();
  await expect(drop.getByRole("button", { name: /Cancel/ })).toHaveCount(0);
  await expect(page.getByTestId("member-payment").filter({ hasText: KEEP }).getByText("Pending")).toBeVisible();
  await page.setViewportSize(DESKTOP);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/member-payments-cancelled-1440.png`, fullPage: true });
});

test("To US Bank refuses, next to the field, a name the NACHA file cannot carry; a transliterable one goes through", async ({
  page,
  signInAs,
}) => {
  await signInAs(member);
  await page.goto("/dashboard?transfer=ach#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  const from = panel.getByLabel("From");
  const checking = await from
    .locator("option")
    .evaluateAll(
      (options) => (options as HTMLOptionElement[]).find((o) => o.textContent?.includes("Checking"))?.value ?? "",
    );
  await from.selectOption(checking);
  await panel.getByLabel("Bank").selectOption({ label: "JPMorgan Chase Bank (021000021)" });
  await panel.getByLabel("Account number").fill("123456789");
  await panel.getByLabel("Name on the account").fill("山田太郎");
  await panel.getByLabel("Amount").fill("5.00");
  await panel.getByLabel("Reference").fill("Rent share");
  await panel.getByRole("button", { name: "Continue" }).click();
  // Accepted before, held, then blanked at export, which failed the file for everyone.
  const name = panel.getByLabel("Name on the account");
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(
    panel
      .getByText('Please write the name in Latin letters: a US bank transfer cannot carry "山", "田", "太", "郎"')
      .first(),
  ).toBeVisible();
  await expect(panel.getByLabel("One-time code")).toHaveCount(0);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/to-us-bank-name-refused-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
  await name.fill("Søren Łukasz Weiß-Æbelø");
  await panel.getByRole("button", { name: "Continue" }).click();
  await expect(panel.getByLabel("One-time code")).toBeVisible();
});

test.describe("staff", () => {
  test.use({ signedInAs: STAFF });

  test("see the queues at 1440 and 375 px (axe clean), cancel one, export the rest as a NACHA file and download it again", async ({
    page,
  }) => {
    const errors = watchConsole(page);
    await page.goto("/admin/queues");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: "Payment queues" })).toBeVisible();
    const nav = page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: /^Queues/ });
    await expect(nav).toHaveAttribute("aria-current", "page");
    await expect(nav).toContainText("waiting");
    const ach = page.getByTestId("queue-ach");
    await expect(ach.getByTestId("queued-payment").filter({ hasText: KEEP })).toBeVisible();
    await expect(ach.getByTestId("queued-payment").filter({ hasText: DROP })).toHaveCount(0);
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await expectNoAxeViolations(page);
      await page.screenshot({ path: `${SCREENS}/queues-${viewport.width}.png`, fullPage: true });
    }
    await page.setViewportSize(DESKTOP);

    const staffDrop = ach.getByTestId("queued-payment").filter({ hasText: STAFF_DROP });
    await staffDrop.getByRole("button", { name: /^Cancel MU\d{8} to / }).click();
    await expect(
      page.getByRole("status").filter({ hasText: "Payment cancelled; $40.00 is available to the member again." }),
    ).toBeVisible();
    await expect(staffDrop).toHaveCount(0);

    await ach.getByRole("button", { name: "Export as NACHA file" }).click();
    const done = page.getByRole("status").filter({
      hasText:
        /ACH transfers? \(\$[\d,.]+\) exported as ach-\d{4}-\d{2}-\d{2}-[A-Z0-9]-\d+\.ach, effective \d{4}-\d{2}-\d{2}\./,
    });
    await expect(done).toBeVisible();
    const fileName = /ach-[^ ]+\.ach/.exec((await done.textContent()) ?? "")![0];
    await expect(ach.getByTestId("queued-payment").filter({ hasText: KEEP })).toHaveCount(0);
    await page.setViewportSize(PHONE);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/queues-exported-375.png`, fullPage: true });
    await page.setViewportSize(DESKTOP);
    await page.screenshot({ path: `${SCREENS}/queues-exported-1440.png`, fullPage: true });

    const row = page.getByTestId("export-file").filter({ hasText: fileName });
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      row.getByRole("link", { name: `Download ${fileName}` }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(fileName);
    const file = readNachaFile(fs.readFileSync((await download.path())!, "utf8"));
    const entry = file.batches.flatMap((b) => b.entries).find((e) => e.individual_name === KEEP.toUpperCase());
    expect(entry).toMatchObject({ amount_cents: 3_000, account_number: "123456789", rdfi: "02100002" });
    keepTrace = entry!.trace_number;
    expect(
      file.batches
        .flatMap((b) => b.entries)
        .some((e) => e.individual_name === DROP.toUpperCase() || e.individual_name === STAFF_DROP.toUpperCase()),
    ).toBe(false);
    expect(errors).toEqual([]);
  });
});

test("the member then sees the transfer Sent with the file's effective date, and the staff cancel as Cancelled", async ({
  page,
  signInAs,
}) => {
  await signInAs(member);
  await page.goto("/dashboard/payments");
  const keep = page.getByTestId("member-payment").filter({ hasText: KEEP });
  await expect(keep.getByText("Sent", { exact: true })).toBeVisible();
  await expect(keep.getByText(/^Effective [A-Z][a-z]{2} \d{1,2}, \d{4}$/)).toBeVisible();
  await expect(page.getByTestId("member-payment").filter({ hasText: STAFF_DROP }).getByText("Cancelled")).toBeVisible();
  await page.setViewportSize(PHONE);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/member-payments-sent-375.png`, fullPage: true });

  // The history and the dashboard's recent list say the same: the payment's own state, not the
  // ledger's word for its hold (Completed, Failed).
  for (const [path, table] of [
    ["/dashboard/transactions", "Transactions, newest first"],
    ["/dashboard", /^Your latest \d+ transactions$/],
  ] as const) {
    await page.setViewportSize(DESKTOP);
    await page.goto(path);
    const rows = page.getByRole("table", { name: table }).getByRole("row");
    const sent = rows.filter({ hasText: `Transfer to ${KEEP}` });
    await expect(sent.getByText("Sent", { exact: true }).first()).toBeVisible();
    await expect(sent.getByText(/^Effective [A-Z][a-z]{2} \d{1,2}, \d{4}$/).first()).toBeVisible();
    await expect(sent.getByText("Completed")).toHaveCount(0);
    const cancelled = rows.filter({ hasText: `Transfer to ${STAFF_DROP}` });
    await expect(cancelled.getByText("Cancelled", { exact: true }).first()).toBeVisible();
    await expect(cancelled.getByText("Failed")).toHaveCount(0);
    await page.screenshot({ path: `${SCREENS}/member-history${path.replaceAll("/", "-")}-1440.png`, fullPage: true });
    await page.setViewportSize(PHONE);
    await expect(sent.getByText("Sent", { exact: true }).last()).toBeVisible();
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/member-history${path.replaceAll("/", "-")}-375.png`, fullPage: true });
  }
});

test.describe("the other bank returns it", () => {
  test.use({ signedInAs: STAFF });

  test("staff upload the return of the member's transfer (R03)", async ({ page }) => {
    expect(keepTrace).not.toBe("");
    const text = buildInboundFile(
      [
        {
          company_name: `Ret ${STAMP}`.slice(0, 16),
          odfi: "02100002",
          entries: [
            {
              code: "21",
              account_number: "123456789",
              amount_cents: 3_000,
              name: KEEP,
              return_of: { reason: "R03", original_trace: keepTrace },
            },
          ],
        },
      ],
      { modifier: "Q" },
    );
    await page.goto("/admin/queues");
    await hydrated(page);
    const achIn = page.getByTestId("queue-ach-in");
    await achIn
      .getByLabel("Inbound NACHA file from the Federal Reserve")
      .setInputFiles({ name: `ret-${STAMP}.ach`, mimeType: "text/plain", buffer: Buffer.from(text) });
    await achIn.getByRole("button", { name: "Upload and post" }).click();
    await expect(
      page.getByRole("status").filter({ hasText: `ret-${STAMP}.ach: 1 entry, 0 posted, 0 returned` }),
    ).toBeVisible();
  });
});

test("the member sees the returned transfer as Returned, with why, not Sent", async ({ page, signInAs }) => {
  await signInAs(member);
  await page.goto("/dashboard/payments");
  const keep = page.getByTestId("member-payment").filter({ hasText: KEEP });
  await expect(keep.getByText("Returned", { exact: true })).toBeVisible();
  await expect(keep.getByTestId("return-reason")).toHaveText(
    "The other bank sent it back: No account or unable to locate account. The money is back in your account.",
  );
  await expect(keep.getByText("Sent", { exact: true })).toHaveCount(0);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/member-payments-returned-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
  await page.goto("/dashboard/transactions");
  const row = page
    .getByRole("table", { name: "Transactions, newest first" })
    .getByRole("row")
    .filter({ hasText: `Transfer to ${KEEP}` });
  await expect(row.getByText("Returned", { exact: true }).first()).toBeVisible();
  await expect(row.getByText("No account or unable to locate account").first()).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/member-history-returned-1440.png`, fullPage: true });
});
