import fs from "node:fs";
import { expect as baseExpect, test, type Page } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated, watchConsole } from "./support";
import { readNachaFile } from "../unit/nacha-reader";

/**
 * Linked accounts as a member and staff use them (docs/product.md#linked-accounts): the member
 * links an account at another bank (a wrong routing number refused next to its field), staff
 * export the ACH file carrying its two micro-deposits and the debit taking them back (read by the
 * tests' own NACHA reader), the member types a wrong pair (tries left shown), then the right
 * pair: verified. Axe-clean at 1440 and 375 px, with screenshots.
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

test("a member links an account, staff send the micro-deposits, the member confirms the amounts; axe-clean at 1440 and 375 px", async ({
  page,
  newMember,
  signInAs,
  pageAs,
}) => {
  const errors = watchConsole(page);
  const member = await newMember("linked");
  await signInAs(member);
  // An account number of this test's own, to find its entries in the file.
  const account_number = `7${String(Date.now()).slice(-10)}`;

  await page.goto("/dashboard", { timeout: 120_000 });
  await page.getByRole("link", { name: "Linked accounts" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Linked accounts" })).toBeVisible();
  await hydrated(page);
  await expect(page.getByText("You have not linked an account at another bank yet.")).toBeVisible();
  const form = page.getByRole("region", { name: "Link an account" });
  await form.getByLabel("Routing number").fill("121000249");
  await form.getByLabel("Account number").fill(account_number);
  await form.getByLabel("Account type").selectOption("savings");
  await form.getByLabel("Nickname").fill("Rainy day at Wells");
  await form.getByRole("button", { name: "Link account" }).click();
  await expect(form.getByLabel("Routing number")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByText("Please enter a valid routing number").first()).toBeVisible();
  await allWidths(page, "linked-accounts-refused");
  await form.getByLabel("Routing number").fill("121000248");
  await form.getByRole("button", { name: "Link account" }).click();
  await expect(page.getByText("Rainy day at Wells is linked.")).toBeVisible();
  const card = page.getByTestId("linked-account").filter({ hasText: "Rainy day at Wells" });
  await expect(card).toContainText("Waiting for confirmation");
  await expect(card).toContainText(`••${account_number.slice(-4)}`);
  await expect(card).not.toContainText(account_number);
  await allWidths(page, "linked-accounts-pending");

  // Staff send the next ACH file: it carries the two deposits and the debit taking them back.
  const staff = await pageAs(STAFF);
  await staff.goto("/admin/queues", { timeout: 120_000 });
  await hydrated(staff);
  const ach = staff.getByTestId("queue-ach");
  await expect(ach).toContainText(/micro-deposits for \d+ linked accounts?/);
  await ach.getByRole("button", { name: "Export as NACHA file" }).click();
  const done = staff.getByRole("status").filter({ hasText: /linked accounts? exported as ach-[^ ]+\.ach/ });
  await expect(done).toBeVisible();
  const fileName = /ach-[^ ]+\.ach/.exec((await done.textContent()) ?? "")![0];
  const [download] = await Promise.all([
    staff.waitForEvent("download"),
    staff
      .getByTestId("export-file")
      .filter({ hasText: fileName })
      .getByRole("link", { name: `Download ${fileName}` })
      .click(),
  ]);
  const file = readNachaFile(fs.readFileSync((await download.path())!, "utf8"));
  const batch = file.batches.find((b) => b.entry_description === "ACCTVERIFY")!;
  expect(batch).toMatchObject({ sec_code: "WEB", service_class_code: "200" });
  const mine = batch.entries.filter((e) => e.account_number === account_number);
  expect(mine.map((e) => e.transaction_code)).toEqual(["32", "32", "37"]);
  const [first, second, back] = mine.map((e) => e.amount_cents) as [number, number, number];
  expect(back).toBe(first + second);
  const dollars = (cents: number) => `0.${String(cents).padStart(2, "0")}`;
  const wrong = (cents: number) => dollars(cents === 99 ? 98 : cents + 1);

  // The member reads the two amounts on their other bank's statement and types them back.
  await page.reload();
  await hydrated(page);
  await expect(card.getByRole("button", { name: "Confirm amounts" })).toBeVisible();
  await expect(card).toContainText("3 tries left.");
  await card.getByLabel("First deposit").fill(wrong(first));
  await card.getByLabel("Second deposit").fill(dollars(second));
  await card.getByRole("button", { name: "Confirm amounts" }).click();
  await expect(
    card.getByText("Those amounts do not match the deposits we sent. You have 2 tries left.").first(),
  ).toBeVisible();
  // The list is read again after the refusal: the try is counted.
  await expect(card.getByText("2 tries left.", { exact: true })).toBeVisible();
  await allWidths(page, "linked-accounts-wrong");
  await card.getByLabel("First deposit").fill(dollars(second));
  await card.getByLabel("Second deposit").fill(dollars(first));
  await card.getByRole("button", { name: "Confirm amounts" }).click();
  await expect(page.getByText("Rainy day at Wells is verified.")).toBeVisible();
  await expect(card).toContainText("Verified");
  await allWidths(page, "linked-accounts-verified");
  // The wrong pair's refusal is the page's own answer (422), shown next to the field.
  expect(errors.filter((e) => !/status of 422 \(Unprocessable Entity\)$/.test(e))).toEqual([]);
});
