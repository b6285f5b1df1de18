import fs from "node:fs";
import { expect as baseExpect, test, type Page } from "./fixtures";
import { DESKTOP, PHONE, SAM, STAFF, expectNoAxeViolations, hydrated, watchConsole, type TestMember } from "./support";
import { businessDayOnOrAfter } from "../../app/domain/payment-dates";

/**
 * Bill Pay as a member uses it (docs/product.md#bill-pay): from Quick actions, add a payee,
 * schedule a one-off payment and a recurring one, cancel the recurring one, and see the one-off
 * paid by the bill-payments job once staff move the demo's job clock past its date (the test moves
 * the job clock, never waits for the wall clock). Axe-clean at 1440 and 375 px, with screenshots;
 * the payee and payment forms also work without JavaScript.
 *
 * The member is made for the test by staff and funded by the demo member Sam with a To Another
 * Member transfer, so nothing depends on the demo members' balances.
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

async function funded(
  newMember: (tag: string) => Promise<TestMember>,
  pageAs: (p: typeof SAM) => Promise<Page>,
  tag: string,
  dollars: string,
): Promise<TestMember> {
  const member = await newMember(tag);
  const page = await pageAs(SAM);
  page.setDefaultTimeout(120_000);
  await page.goto("/dashboard?transfer=member#transfer", { timeout: 200_000 });
  await hydrated(page);
  const panel = page.getByRole("tabpanel");
  await panel.getByLabel("Recipient's email").fill(member.email);
  await panel.getByRole("button", { name: "Verify" }).click();
  await expect(panel.getByText("Recipient found: Jordan Tester").first()).toBeVisible();
  await panel.getByLabel("Amount").fill(dollars);
  await panel.getByLabel("Reference").fill("Bill money");
  await panel.getByRole("button", { name: "Send money" }).click();
  await expect(panel.getByRole("status").filter({ hasText: "Transfer sent:" })).toBeVisible();
  await page.close();
  return member;
}

test("a member adds a payee, schedules a one-off and a recurring payment, cancels one, and sees the other paid by the job; axe-clean at 1440 and 375 px", async ({
  page,
  newMember,
  pageAs,
  signInAs,
  signedIn,
}) => {
  const errors = watchConsole(page);
  const member = await funded(newMember, pageAs, "billpay", "300.00");
  await signInAs(member);
  const first_day = businessDayOnOrAfter(addDays(todayThere(), 1));

  await page.goto("/dashboard", { timeout: 120_000 });
  await page.locator("#quick-actions").getByRole("link", { name: "Bill Pay" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Bill Pay" })).toBeVisible();
  await expect(
    page.getByRole("navigation", { name: "Banking" }).getByRole("link", { name: "Bill Pay" }),
  ).toHaveAttribute("aria-current", "page");
  await hydrated(page);

  // A payee: the account number at the payee as printed on the bill.
  const payees = page.getByRole("region", { name: "Payees" });
  await payees.getByLabel("Payee name").fill("City Power");
  await payees.getByLabel("Account number at the payee").fill("ACCT-1234 56");
  await payees.getByLabel(/Payee address/).fill("1 Grid Road, Portsmouth NH");
  await payees.getByRole("button", { name: "Add payee" }).click();
  await expect(
    payees.getByRole("status").filter({ hasText: "City Power ••3456 was added to your payees." }),
  ).toBeVisible();
  await expect(payees.getByTestId("payee")).toHaveCount(1);

  // A bad date is refused next to its field, nothing scheduled.
  const pay = page.getByRole("region", { name: "Pay a bill" });
  await pay.getByLabel("Payee", { exact: true }).selectOption({ label: "City Power ••3456" });
  await pay.getByLabel("Amount (US dollars)").fill("42.50");
  await pay.getByLabel("Payment date", { exact: true }).fill(todayThere());
  await pay.getByRole("button", { name: "Schedule payment" }).click();
  await expect(pay.getByText("The earliest payment date is tomorrow")).toBeVisible();
  await expect(page.getByTestId("upcoming-payment")).toHaveCount(0);

  // The one-off payment.
  await pay.getByLabel("Payment date", { exact: true }).fill(first_day);
  await pay.getByLabel(/^Memo/).fill("November bill");
  await pay.getByRole("button", { name: "Schedule payment" }).click();
  await expect(
    pay.getByRole("status").filter({ hasText: `Payment scheduled: $42.50 to City Power on ${pageDate(first_day)}` }),
  ).toBeVisible();

  // The recurring one, to a quick pick: monthly, three payments; "no end" is refused first.
  await pay.getByLabel("Payee", { exact: true }).selectOption({ label: "Internet Provider (quick pick)" });
  await pay.getByLabel("Account number at the payee").fill("NET-555-01");
  await pay.getByLabel("Amount (US dollars)").fill("20");
  await pay.getByLabel("Payment date", { exact: true }).fill(first_day);
  await pay.getByText("Repeat this payment (optional)").click();
  await pay.getByLabel("How often").selectOption("monthly");
  await pay.getByRole("button", { name: "Schedule payment" }).click();
  await expect(
    pay.getByText("Recurring payments need an end: choose a last date or a number of payments"),
  ).toBeVisible();
  await pay.getByLabel("Ends", { exact: true }).selectOption("count");
  await pay.getByLabel("Number of payments").fill("0");
  await pay.getByRole("button", { name: "Schedule payment" }).click();
  await expect(pay.getByText("Please enter a number of payments from 1 to 120")).toBeVisible();
  await pay.getByLabel("Number of payments").fill("3");
  await pay.getByRole("button", { name: "Schedule payment" }).click();
  await expect(
    pay
      .getByRole("status")
      .filter({ hasText: `Payment scheduled: $20.00 to Internet Provider on ${pageDate(first_day)}` }),
  ).toBeVisible();

  const upcoming = page.getByTestId("upcoming-payment");
  await expect(upcoming).toHaveCount(2);
  await expect(upcoming.filter({ hasText: "Internet Provider" })).toContainText("Monthly, 3 payments · payment 1");
  await expectNoAxeViolations(page);
  fs.mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/bill-pay-1440.png`, fullPage: true });

  // Edit opens in place (a link: it works without JavaScript too).
  await upcoming
    .filter({ hasText: "City Power" })
    .getByRole("link", { name: /^Edit payment to City Power/ })
    .click();
  const edit = upcoming.filter({ hasText: "City Power" });
  await expect(edit.getByRole("heading", { name: "Change this payment" })).toBeVisible();
  await edit.getByLabel("Amount (US dollars)").fill("45.00");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Payment changed." })).toBeVisible();
  await expect(upcoming.filter({ hasText: "City Power" })).toContainText("$45.00");

  // Cancel the recurring one: its hold is released and the series ends.
  await upcoming
    .filter({ hasText: "Internet Provider" })
    .getByRole("button", { name: /^Cancel payment to Internet Provider/ })
    .click();
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: "Payment cancelled. $20.00 is available in your account again. The recurring series ends" }),
  ).toBeVisible();
  await expect(upcoming).toHaveCount(1);
  const history = page.getByTestId("past-payment");
  await expect(history.filter({ hasText: "Internet Provider" })).toContainText("Cancelled");

  await page.setViewportSize(PHONE);
  await page.reload();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/bill-pay-375.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);

  // Staff move the demo's job clock past 6:00 on the payment date; the bill-payments job pays it.
  const staff = await signedIn(STAFF);
  const hours = Math.max(1, Math.ceil((Date.parse(`${first_day}T12:00:00Z`) - Date.now()) / 3_600_000));
  const moved = await staff.request.post("/admin/jobs", {
    form: { hours: String(hours) },
    headers: { Origin: new URL(page.url()).origin },
  });
  expect(moved.ok()).toBe(true);
  await staff.close();
  await expect(async () => {
    await page.goto("/dashboard/bill-pay");
    await expect(page.getByTestId("past-payment").filter({ hasText: "City Power" })).toContainText("Paid", {
      timeout: 1_000,
    });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("upcoming-payment")).toHaveCount(0);
  await expect(page.getByTestId("past-payment").filter({ hasText: "City Power" })).toContainText("$45.00");
  await page.goto("/dashboard/notifications");
  await expect(page.getByText("Bill paid: $45.00 to City Power").first()).toBeVisible();
  await page.goto("/dashboard/bill-pay");
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/bill-pay-paid-1440.png`, fullPage: true });
  expect(errors).toEqual([]);
});

test("without JavaScript: a payee is added and a payment scheduled, and a bad amount is refused next to its field", async ({
  newMember,
  pageAs,
  signedIn,
}) => {
  const member = await funded(newMember, pageAs, "billpay-nojs", "50.00");
  const context = await signedIn(member, { javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto("/dashboard/bill-pay", { timeout: 120_000 });
  const payees = page.getByRole("region", { name: "Payees" });
  await payees.getByLabel("Payee name").fill("Harbor Water");
  await payees.getByLabel("Account number at the payee").fill("W-1001");
  await payees.getByRole("button", { name: "Add payee" }).click();
  await expect(page.getByText("Harbor Water ••1001 was added to your payees.")).toBeVisible();

  const pay = page.getByRole("region", { name: "Pay a bill" });
  await pay.getByLabel("Payee", { exact: true }).selectOption({ label: "Harbor Water ••1001" });
  await pay.getByLabel("Amount (US dollars)").fill("0");
  await pay.getByLabel("Payment date", { exact: true }).fill(businessDayOnOrAfter(addDays(todayThere(), 1)));
  await pay.getByRole("button", { name: "Schedule payment" }).click();
  await expect(pay.getByLabel("Amount (US dollars)")).toHaveAttribute("aria-invalid", "true");
  await expect(pay.getByText("Please enter a valid amount")).toBeVisible();
  await pay.getByLabel("Amount (US dollars)").fill("12.34");
  await pay.getByRole("button", { name: "Schedule payment" }).click();
  await expect(page.getByText(/Payment scheduled: \$12\.34 to Harbor Water/)).toBeVisible();
  await expect(page.getByTestId("upcoming-payment")).toHaveCount(1);
  await context.close();
});

/** A business date as the member's pages write it: "Oct 25, 2027". */
function pageDate(date: string): string {
  return new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" }).format(
    new Date(`${date}T12:00:00Z`),
  );
}

test("the dashboard and the history read a bill payment as Bill Pay does: Scheduled on its payment date alone, Cancelled, and not spending until paid", async ({
  page,
  newMember,
  pageAs,
  signInAs,
}) => {
  const errors = watchConsole(page);
  const member = await funded(newMember, pageAs, "billpay-reads", "300.00");
  await signInAs(member);
  const later = businessDayOnOrAfter(addDays(todayThere(), 300));
  // Months away, as `later` is: another test moves the server's job clock a few days forward to
  // pay its own bill, and a payment due in two days was then paid before this test cancelled it.
  const soon = businessDayOnOrAfter(addDays(todayThere(), 120));

  await page.goto("/dashboard/bill-pay", { timeout: 120_000 });
  await hydrated(page);
  const payees = page.getByRole("region", { name: "Payees" });
  await payees.getByLabel("Payee name").fill("Harbor Gas");
  await payees.getByLabel("Account number at the payee").fill("GAS-7788");
  await payees.getByRole("button", { name: "Add payee" }).click();
  await expect(
    payees.getByRole("status").filter({ hasText: "Harbor Gas ••7788 was added to your payees." }),
  ).toBeVisible();
  const pay = page.getByRole("region", { name: "Pay a bill" });
  const schedule = async (amount: string, date: string) => {
    await pay.getByLabel("Payee", { exact: true }).selectOption({ label: "Harbor Gas ••7788" });
    await pay.getByLabel("Amount (US dollars)").fill(amount);
    await pay.getByLabel("Payment date", { exact: true }).fill(date);
    await pay.getByRole("button", { name: "Schedule payment" }).click();
    await expect(
      pay.getByRole("status").filter({ hasText: `Payment scheduled: $${amount} to Harbor Gas` }),
    ).toBeVisible();
  };
  await schedule("61.25", later);
  await schedule("18.40", soon);
  await page
    .getByTestId("upcoming-payment")
    .filter({ hasText: "$18.40" })
    .getByRole("button", { name: /^Cancel payment to Harbor Gas/ })
    .click();
  await expect(
    page.getByRole("status").filter({ hasText: "Payment cancelled. $18.40 is available in your account again." }),
  ).toBeVisible();
  await expect(page.getByTestId("past-payment").filter({ hasText: "$18.40" })).toContainText("Cancelled");

  // The dashboard: the same words in the recent list; held money is not spending.
  await page.goto("/dashboard");
  const recent = page.getByRole("table", { name: /^Your latest \d+ transactions$/ });
  const scheduledRow = recent
    .getByRole("row")
    .filter({ hasText: "Bill payment to Harbor Gas" })
    .filter({ hasText: "$61.25" });
  const cancelledRow = recent
    .getByRole("row")
    .filter({ hasText: "Bill payment to Harbor Gas" })
    .filter({ hasText: "$18.40" });
  await expect(scheduledRow.getByText("Scheduled", { exact: true }).first()).toBeVisible();
  await expect(cancelledRow.getByText("Cancelled", { exact: true }).first()).toBeVisible();
  await expect(cancelledRow.getByText("Failed", { exact: true })).toHaveCount(0);
  await expect(scheduledRow.getByRole("cell").first()).toHaveText(pageDate(later));
  await expect(
    page.getByRole("region", { name: "Spending by category" }).getByText("No spending in the last 30 days."),
  ).toBeVisible();

  // The history: the payment date alone, not the time it was scheduled; the transfer that funded it keeps its time.
  await page.goto("/dashboard/transactions");
  const history = page.getByRole("table", { name: "Transactions, newest first" });
  const historyRow = history
    .getByRole("row")
    .filter({ hasText: "Bill payment to Harbor Gas" })
    .filter({ hasText: "$61.25" });
  await expect(historyRow.getByRole("cell").first()).toHaveText(pageDate(later));
  await expect(historyRow.getByText("Scheduled", { exact: true }).first()).toBeVisible();
  await expect(history.getByRole("row").filter({ hasText: "Bill money" }).getByRole("cell").first()).toHaveText(
    /\d{4}\d{1,2}:\d{2} [AP]M [A-Z]{2,4}$/,
  );
  await expectNoAxeViolations(page);
  await page.setViewportSize(PHONE);
  await expect(historyRow.getByText(pageDate(later), { exact: true }).last()).toBeVisible();
  await expect(historyRow.getByText("Scheduled", { exact: true }).last()).toBeVisible();
  await expectNoAxeViolations(page);
  expect(errors).toEqual([]);
});
