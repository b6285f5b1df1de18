import fs from "node:fs";
import { expect as baseExpect, test, type Page } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated, watchConsole } from "./support";
import { readNachaFile } from "../unit/nacha-reader";

/**
 * Move money in as a member and staff use it (docs/product.md#move-money-in): the member's link is
 * verified (micro-deposits exported and confirmed), the member asks to move money in from it
 * (a bad amount refused next to its field, the Nacha WEB authorization read and agreed to), staff
 * export the ACH file carrying the WEB debit (read by the tests' own NACHA reader), and the member
 * sees the pull completed with the day its money is available. Axe-clean at 1440 and 375 px.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/screens";
test.setTimeout(300_000);

async function allWidths(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

/** Staff export the next ACH file and download it, read by the tests' own reader. */
async function exportAch(staff: Page, done: RegExp) {
  await staff.goto("/admin/queues", { timeout: 120_000 });
  await hydrated(staff);
  await staff.getByTestId("queue-ach").getByRole("button", { name: "Export as NACHA file" }).click();
  const status = staff.getByRole("status").filter({ hasText: done });
  await expect(status).toBeVisible();
  const fileName = /ach-[^ ]+\.ach/.exec((await status.textContent()) ?? "")![0];
  const [download] = await Promise.all([
    staff.waitForEvent("download"),
    staff
      .getByTestId("export-file")
      .filter({ hasText: fileName })
      .getByRole("link", { name: `Download ${fileName}` })
      .click(),
  ]);
  return readNachaFile(fs.readFileSync((await download.path())!, "utf8"));
}

test("a member moves money in from a verified linked account; staff send the debit; axe-clean at 1440 and 375 px", async ({
  page,
  newMember,
  signInAs,
  pageAs,
}) => {
  const errors = watchConsole(page);
  const member = await newMember("movein");
  await signInAs(member);
  const account_number = `8${String(Date.now()).slice(-10)}`;
  const staff = await pageAs(STAFF);

  // A verified link: linked, its deposits sent, the two amounts confirmed.
  await page.goto("/dashboard/linked-accounts", { timeout: 120_000 });
  await hydrated(page);
  await expect(page.getByRole("link", { name: "Move money in" })).toHaveCount(0);
  const form = page.getByRole("region", { name: "Link an account" });
  await form.getByLabel("Routing number").fill("121000248");
  await form.getByLabel("Account number").fill(account_number);
  await form.getByLabel("Nickname").fill("Paycheck at Wells");
  await form.getByRole("button", { name: "Link account" }).click();
  await expect(page.getByText("Paycheck at Wells is linked.")).toBeVisible();
  const micro = await exportAch(staff, /linked accounts? exported as ach-[^ ]+\.ach/);
  const [first, second] = micro.batches
    .flatMap((b) => b.entries)
    .filter((e) => e.account_number === account_number)
    .map((e) => e.amount_cents);
  const dollars = (cents: number) => `0.${String(cents).padStart(2, "0")}`;
  await page.reload();
  await hydrated(page);
  const card = page.getByTestId("linked-account").filter({ hasText: "Paycheck at Wells" });
  await card.getByLabel("First deposit").fill(dollars(first!));
  await card.getByLabel("Second deposit").fill(dollars(second!));
  await card.getByRole("button", { name: "Confirm amounts" }).click();
  await expect(page.getByText("Paycheck at Wells is verified.")).toBeVisible();

  // Offered now that a link is verified.
  await page.getByRole("link", { name: "Move money in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Move money in" })).toBeVisible();
  await hydrated(page);
  await expect(page.getByTestId("money-in-limits")).toContainText("You can move up to");
  await expect(page.getByLabel("From", { exact: true })).toContainText(`Paycheck at Wells`);
  await page.getByLabel("Amount").fill("12.345");
  await page.getByRole("button", { name: "Review" }).click();
  await expect(page.getByLabel("Amount")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Please enter a valid amount").first()).toBeVisible();
  await allWidths(page, "move-money-in-refused");

  await page.getByLabel("Amount").fill("125.00");
  await page.getByRole("button", { name: "Review" }).click();
  const words = page.getByTestId("authorization-text");
  await expect(words).toContainText("authorize");
  await expect(words).toContainText("$125.00");
  await expect(words).toContainText(`checking ••${account_number.slice(-4)}`);
  await expect(words).not.toContainText(account_number);
  // Not ticked: refused next to the box, nothing asked for.
  await page.getByRole("button", { name: "Move money in" }).click();
  await expect(page.getByText("Please agree to the authorization to continue").first()).toBeVisible();
  await allWidths(page, "move-money-in-authorize");
  await page.getByText("I agree to this authorization").click();
  await page.getByRole("button", { name: "Move money in" }).click();
  await expect(page.getByText("$125.00 will be moved in with the next ACH file.")).toBeVisible();
  const pull = page.getByTestId("money-in-pull").filter({ hasText: "$125.00" });
  await expect(pull).toContainText("Pending");
  await expect(pull).toContainText("Goes with the next ACH file.");
  await allWidths(page, "move-money-in-pending");

  // Staff send the next file: it carries the WEB debit from the member's other bank.
  const file = await exportAch(staff, /debits? moving members' money in exported as ach-[^ ]+\.ach/);
  const batch = file.batches.find(
    (b) => b.entry_description === "TRANSFER" && b.entries.some((e) => e.account_number === account_number),
  )!;
  expect(batch).toMatchObject({ sec_code: "WEB" });
  const debit = batch.entries.find((e) => e.account_number === account_number)!;
  expect(debit).toMatchObject({ transaction_code: "27", amount_cents: 12_500 });

  await page.reload();
  await hydrated(page);
  await expect(pull).toContainText("Completed");
  await expect(pull).toContainText(/available on [A-Z][a-z]{2} \d{1,2}, \d{4}/);
  await allWidths(page, "move-money-in-completed");
  // The refusals are the page's own answers (400), shown next to the field.
  expect(errors.filter((e) => !/status of 400 \(Bad Request\)$/.test(e))).toEqual([]);
});
