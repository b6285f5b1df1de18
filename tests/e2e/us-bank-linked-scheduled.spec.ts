import fs from "node:fs";
import { expect as baseExpect, test, type Page } from "./fixtures";
import {
  CREATED_MEMBER_NAME,
  DESKTOP,
  PHONE,
  STAFF,
  expectNoAxeViolations,
  fundedMember,
  hydrated,
  inboxCode,
  watchConsole,
} from "./support";
import { readNachaFile } from "../unit/nacha-reader";
import { businessDayOnOrAfter } from "../../app/domain/payment-dates";

/**
 * To US Bank to the member's own linked account, now and repeating (docs/product.md#to-us-bank,
 * #scheduled-transfers), as a member uses it: link an account and confirm its micro-deposits
 * (staff send them in the ACH file), then in To US Bank choose the linked account (only its
 * nickname, bank and last four are shown), set a monthly transfer of two with the emailed code,
 * send one now, and find the series in Scheduled transfers. Axe-clean at 1440 and 375 px.
 *
 * The dates are months ahead: other tests move the demo's job clock a few days forward.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/screens";
test.setTimeout(300_000);

const TIME_ZONE = "America/New_York";

function todayThere(): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: TIME_ZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date());
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

async function allWidths(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

/** Links an account at Wells Fargo and confirms it with the micro-deposits staff export. */
async function linkAndVerify(page: Page, pageAs: (who: typeof STAFF) => Promise<Page>, account_number: string) {
  await page.goto("/dashboard/linked-accounts", { timeout: 120_000 });
  await hydrated(page);
  const form = page.getByRole("region", { name: "Link an account" });
  await form.getByLabel("Routing number").fill("121000248");
  await form.getByLabel("Account number").fill(account_number);
  await form.getByLabel("Account type").selectOption("savings");
  await form.getByLabel("Nickname").fill("Savings at Wells");
  await form.getByRole("button", { name: "Link account" }).click();
  await expect(page.getByText("Savings at Wells is linked.")).toBeVisible();

  const staff = await pageAs(STAFF);
  await staff.goto("/admin/queues", { timeout: 120_000 });
  await hydrated(staff);
  await staff.getByTestId("queue-ach").getByRole("button", { name: "Export as NACHA file" }).click();
  const done = staff.getByRole("status").filter({ hasText: /exported as ach-[^ ]+\.ach/ });
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
  const [first, second] = batch.entries
    .filter((e) => e.account_number === account_number)
    .map((e) => e.amount_cents) as [number, number];
  await staff.close();
  const dollars = (cents: number) => `0.${String(cents).padStart(2, "0")}`;
  await page.reload();
  await hydrated(page);
  const card = page.getByTestId("linked-account").filter({ hasText: "Savings at Wells" });
  await card.getByLabel("First deposit").fill(dollars(first));
  await card.getByLabel("Second deposit").fill(dollars(second));
  await card.getByRole("button", { name: "Confirm amounts" }).click();
  await expect(page.getByText("Savings at Wells is verified.")).toBeVisible();
}

test("a member sends To US Bank to their verified linked account, monthly and now, and sees the series; axe-clean at 1440 and 375 px", async ({
  page,
  newMember,
  pageAs,
  signInAs,
}) => {
  const errors = watchConsole(page);
  const member = await fundedMember({ newMember, pageAs }, "ach-linked", "300.00");
  await signInAs(member);
  const account_number = `6${String(Date.now()).slice(-10)}`;
  const last4 = account_number.slice(-4);
  await linkAndVerify(page, pageAs, account_number);

  // To US Bank: the linked account is offered first; the typed fields are for another account.
  await page.goto("/dashboard?transfer=ach#transfer");
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  const to = panel.getByLabel("To", { exact: true });
  await expect(to.locator("option:checked")).toHaveText(`Savings at Wells, Wells Fargo Bank ••${last4}`);
  await expect(panel.getByLabel("Account number")).toBeHidden();
  await to.selectOption("new");
  await expect(panel.getByLabel("Account number")).toBeVisible();
  await to.selectOption({ label: `Savings at Wells, Wells Fargo Bank ••${last4}` });
  await expect(panel.getByLabel("Account number")).toBeHidden();
  await expect(page.locator("body")).not.toContainText(account_number);

  // Monthly, two transfers, confirmed with the emailed code.
  const first_day = businessDayOnOrAfter(addDays(todayThere(), 170));
  await panel.getByLabel("Amount").fill("40.00");
  await panel.getByLabel("Reference").fill("Monthly saving");
  await panel.getByText("Repeat", { exact: true }).click();
  await panel.getByLabel("First transfer date").fill(first_day);
  await panel.getByLabel("How often").selectOption("monthly");
  await panel.getByLabel("Number of transfers").fill("2");
  await allWidths(page, "us-bank-linked-form");
  await panel.getByRole("button", { name: "Continue" }).click();
  await expect(panel.getByLabel("One-time code")).toBeVisible();
  await expect(panel.getByText(new RegExp(`savings account ••${last4}, Monthly, 2 transfers, from`))).toBeVisible();
  await panel.getByLabel("One-time code").fill(await inboxCode(page, member.email));
  await panel.getByRole("button", { name: "Confirm transfer" }).click();
  await expect(panel.getByRole("status").filter({ hasText: "Transfer scheduled: $40.00" })).toBeVisible();
  await expect(panel.getByRole("status")).toContainText("Monthly, 2 transfers, from");
  await allWidths(page, "us-bank-scheduled");

  // And one now, to the same linked account: the form is ready for the next transfer.
  await expect(to.locator("option:checked")).toHaveText(`Savings at Wells, Wells Fargo Bank ••${last4}`);
  await expect(panel.getByLabel("From").locator("option:checked")).toContainText("Checking");
  await panel.getByLabel("Amount").fill("15.00");
  await panel.getByLabel("Reference").fill("Now");
  await panel.getByRole("button", { name: "Continue" }).click();
  await expect(panel.getByLabel("One-time code")).toBeVisible();
  await panel.getByLabel("One-time code").fill(await inboxCode(page, member.email));
  await panel.getByRole("button", { name: "Confirm transfer" }).click();
  await expect(panel.getByRole("status").filter({ hasText: "Transfer scheduled: $15.00" })).toBeVisible();

  // The series, in Scheduled transfers.
  await page.goto("/dashboard/scheduled-transfers");
  await hydrated(page);
  const card = page.getByTestId("scheduled-transfer").filter({ hasText: "Monthly saving" });
  await expect(card).toContainText(`To a US bank: ${CREATED_MEMBER_NAME} at Wells Fargo Bank ••${last4}`);
  await expect(card).toContainText("Monthly, 2 transfers");
  await expect(page.locator("body")).not.toContainText(account_number);
  await allWidths(page, "us-bank-scheduled-list");
  expect(errors).toEqual([]);
});
