import fs from "node:fs";
import { expect as baseExpect, test } from "./fixtures";
import {
  CREATED_MEMBER_NAME,
  DESKTOP,
  PHONE,
  expectNoAxeViolations,
  fundedMember,
  hydrated,
  watchConsole,
} from "./support";
import { businessDayOnOrAfter } from "../../app/domain/payment-dates";

/**
 * Scheduled and repeating transfers as a member uses them (docs/product.md#scheduled-transfers):
 * Between Accounts on a later date, To Another Member repeating every two weeks, a repeat without
 * a number of transfers refused next to its field; then the Scheduled transfers list: skip the
 * next one, change the series' amount, cancel the other after confirming. Axe-clean at 1440 and 375 px, with screenshots.
 *
 * The dates are months ahead: other tests move the demo's job clock a few days forward, and the
 * scheduled-transfers job would send a transfer due in a few days before this test skips it.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/screens";
test.setTimeout(300_000);

/** The demo profile's time zone (app/config/demo-institution.ts). */
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

/** A business date as the member's pages write it: "Oct 25, 2027". */
function pageDate(date: string): string {
  return new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" }).format(
    new Date(`${date}T12:00:00Z`),
  );
}

test("a member schedules a transfer between accounts and a repeating one to another member, sees them listed, skips and edits one and cancels the other; axe-clean at 1440 and 375 px", async ({
  page,
  newMember,
  pageAs,
  signInAs,
}) => {
  const errors = watchConsole(page);
  const member = await fundedMember({ newMember, pageAs }, "scheduled", "200.00");
  const friend = await newMember("scheduled-to");
  await signInAs(member);
  const once_day = businessDayOnOrAfter(addDays(todayThere(), 150));
  const first_day = businessDayOnOrAfter(addDays(todayThere(), 160));

  // Between Accounts, on a date.
  await page.goto("/dashboard?transfer=internal#transfer", { timeout: 120_000 });
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  await expect(panel.getByRole("button", { name: "Transfer now" })).toBeVisible();
  await panel.getByLabel("Amount").fill("25.00");
  await panel.getByLabel("Reference").fill("Savings goal");
  // The radio is drawn by its label (the input itself is visually hidden): a person clicks the words.
  await panel.getByText("On a date", { exact: true }).click();
  await expect(panel.getByRole("radio", { name: "On a date", exact: true })).toBeChecked();
  await panel.getByLabel("Transfer date").fill(once_day);
  await panel.getByRole("button", { name: "Schedule transfer" }).click();
  await expect(
    panel
      .getByRole("status")
      .filter({ hasText: "Transfer scheduled: $25.00" })
      .filter({ hasText: pageDate(once_day) }),
  ).toBeVisible();
  await expectNoAxeViolations(page);

  // To Another Member, repeating every 2 weeks: a number of transfers is asked for first.
  await page.goto("/dashboard?transfer=member#transfer");
  await hydrated(page);
  await panel.getByLabel("Recipient's email").fill(friend.email);
  await panel.getByRole("button", { name: "Verify" }).click();
  await expect(panel.getByText(`Recipient found: ${CREATED_MEMBER_NAME}`).first()).toBeVisible();
  await panel.getByLabel("Amount").fill("10.00");
  await panel.getByLabel("Reference").fill("Allowance");
  await panel.getByText("Repeat", { exact: true }).click();
  await expect(panel.getByRole("radio", { name: "Repeat", exact: true })).toBeChecked();
  await panel.getByLabel("First transfer date").fill(first_day);
  await panel.getByLabel("How often").selectOption("weeks");
  await panel.getByLabel("Every how many weeks").fill("2");
  await panel.getByText("Stop the repeating transfer", { exact: true }).click();
  await expectNoAxeViolations(page);
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/scheduled-transfers-form-1440.png`, fullPage: true });
  await panel.getByRole("button", { name: "Schedule transfer" }).click();
  await expect(panel.getByText("Please enter a number of transfers from 1 to 120").first()).toBeVisible();
  await panel.getByLabel("Number of transfers").fill("3");
  await panel.getByRole("button", { name: "Schedule transfer" }).click();
  await expect(
    panel
      .getByRole("status")
      .filter({ hasText: "Transfer scheduled: $10.00" })
      .filter({ hasText: `Every 2 weeks, 3 transfers, from ${pageDate(first_day)}` }),
  ).toBeVisible();

  // The list.
  await panel.getByRole("link", { name: "See your scheduled transfers" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Scheduled transfers" })).toBeVisible();
  const cards = page.getByTestId("scheduled-transfer");
  await expect(cards).toHaveCount(2);
  const allowance = cards.filter({ hasText: "Allowance" });
  await expect(allowance).toContainText(`To another member: ${CREATED_MEMBER_NAME}`);
  await expect(allowance).toContainText("Every 2 weeks, 3 transfers");
  await expect(allowance).toContainText(pageDate(first_day));
  await expect(allowance).toContainText("the series stops");
  await hydrated(page);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/scheduled-transfers-1440.png`, fullPage: true });

  // Skip the next one of the series: the one after is two weeks later.
  const second_day = businessDayOnOrAfter(addDays(first_day, 14));
  await allowance.getByRole("button", { name: /^Skip next/ }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Skipped. The next transfer is on ${pageDate(second_day)}.` }),
  ).toBeVisible();
  await expect(cards.filter({ hasText: "Allowance" })).toContainText(pageDate(second_day));
  await cards
    .filter({ hasText: "Allowance" })
    .getByText(/^History/)
    .click();
  await expect(cards.filter({ hasText: "Allowance" }).getByText("Skipped", { exact: true })).toBeVisible();

  // Edit the series: a new amount from the next transfer on.
  await cards.filter({ hasText: "Allowance" }).getByText("Edit", { exact: true }).click();
  const edit = cards.filter({ hasText: "Allowance" }).getByRole("button", { name: "Save changes" });
  await cards.filter({ hasText: "Allowance" }).getByLabel("Amount").fill("12.50");
  await edit.click();
  await expect(
    page.getByRole("status").filter({ hasText: `Changed: the next transfer is $12.50 on ${pageDate(second_day)}.` }),
  ).toBeVisible();
  await expect(cards.filter({ hasText: "Allowance" })).toContainText("$12.50");

  // Cancel the one-off, after confirming.
  const savings = cards.filter({ hasText: "Savings goal" });
  await savings.getByText("Cancel…").click();
  await savings.getByRole("button", { name: "Yes, cancel it" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "Cancelled. No further transfer will be sent." }),
  ).toBeVisible();
  await expect(
    page.getByRole("region", { name: "Finished and cancelled" }).getByTestId("scheduled-transfer"),
  ).toContainText("Cancelled");

  await page.setViewportSize(PHONE);
  await page.reload();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/scheduled-transfers-375.png`, fullPage: true });
  await page.goto("/dashboard?transfer=internal#transfer");
  await hydrated(page);
  await page.getByRole("tabpanel").getByText("Repeat", { exact: true }).click();
  await expect(page.getByRole("tabpanel").getByLabel("How often")).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/scheduled-transfers-form-375.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  expect(errors).toEqual([]);
});
