import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated, watchConsole, type TestMember } from "./support";
import { checkJpeg, checkPng, pdfBytes } from "../check-images";

/**
 * Mobile Deposit in the browser (docs/product.md#mobile-deposit). A member opens Mobile Deposit
 * from the dashboard's quick actions, deposits two checks (one without JavaScript) and sees them
 * Pending review; a PDF renamed .jpg is refused next to its field. Staff see both in the queue with
 * their photos, approve one and reject the other with a reason. The member then sees Posted (with
 * when the money is available) and Rejected with the reason. Every page at 1440 and 375 px, axe clean.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SCREENS = "test-results/mobile-deposit";
test.setTimeout(240_000);
test.describe.configure({ mode: "serial" });

let member: TestMember;
// Amounts unlikely to collide with another test's deposit in the shared queue.
const CENTS = 100 + (Date.now() % 800);
const APPROVE = `${(312 + CENTS / 1000).toFixed(2)}`;
const REJECT = `${(41 + CENTS / 1000).toFixed(2)}`;
const REASON = "The back of the check is not signed.";
const money = (dollars: string) => `$${Number(dollars).toLocaleString("en-US", { minimumFractionDigits: 2 })}`;

test("a member deposits a check and sees it pending review; a PDF renamed .jpg is refused by its field", async ({
  page,
  newMember,
  signInAs,
  signedIn,
}) => {
  member = await newMember("deposit");
  await signInAs(member);
  const errors = watchConsole(page);
  await page.goto("/dashboard");
  await page.getByRole("link", { name: "Mobile Deposit" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Mobile Deposit" })).toBeVisible();
  await hydrated(page);
  // Regulation CC's amounts in force since July 1, 2025 (docs/product.md#funds-availability).
  await expect(page.getByText(/first \$275\.00 of the checks you deposit on a business day/)).toBeVisible();
  await expect(page.getByText(/deposits over \$6,725\.00 in one day/)).toBeVisible();

  const form = page.getByRole("form", { name: "Deposit a check" });
  await form.getByLabel("Amount").fill(APPROVE);
  await form
    .getByLabel("Front of the check")
    .setInputFiles({ name: "front.jpg", mimeType: "image/jpeg", buffer: pdfBytes() });
  await form
    .getByLabel("Back of the check (signed)")
    .setInputFiles({ name: "back.png", mimeType: "image/png", buffer: await checkPng(CENTS) });
  await form.getByRole("button", { name: "Deposit check" }).click();
  await expect(form.getByText("The photo of the front of the check must be a JPEG or PNG image")).toBeVisible();
  await expect(form.getByLabel("Front of the check")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("mobile-deposit")).toHaveCount(0);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/refused-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);

  await form.getByLabel("Amount").fill(APPROVE);
  await form
    .getByLabel("Front of the check")
    .setInputFiles({ name: "front.jpg", mimeType: "image/jpeg", buffer: await checkJpeg(CENTS) });
  await form
    .getByLabel("Back of the check (signed)")
    .setInputFiles({ name: "back.png", mimeType: "image/png", buffer: await checkPng(CENTS) });
  await form.getByRole("button", { name: "Deposit check" }).click();
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: `Your check for ${money(APPROVE)} was received and is pending review.` }),
  ).toBeVisible();
  const first = page.getByTestId("mobile-deposit").filter({ hasText: money(APPROVE) });
  await expect(first.getByText("Pending review")).toBeVisible();
  // The refused post answered 400, which the browser logs; nothing else may be.
  expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);

  // Without JavaScript: the same form posts as a plain multipart form.
  const plain = await (await signedIn(member, { javaScriptEnabled: false })).newPage();
  await plain.goto("/dashboard/deposit");
  const plainForm = plain.getByRole("form", { name: "Deposit a check" });
  await plainForm.getByLabel("Amount").fill(REJECT);
  await plainForm
    .getByLabel("Front of the check")
    .setInputFiles({ name: "f.jpg", mimeType: "image/jpeg", buffer: await checkJpeg(CENTS + 1) });
  await plainForm
    .getByLabel("Back of the check (signed)")
    .setInputFiles({ name: "b.jpg", mimeType: "image/jpeg", buffer: await checkJpeg(CENTS + 2) });
  await plainForm.getByRole("button", { name: "Deposit check" }).click();
  await expect(plain.getByText(`Your check for ${money(REJECT)} was received and is pending review.`)).toBeVisible();
  await expect(
    plain
      .getByTestId("mobile-deposit")
      .filter({ hasText: money(REJECT) })
      .getByText("Pending review"),
  ).toBeVisible();

  await page.reload();
  await expect(page.getByTestId("mobile-deposit")).toHaveCount(2);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/pending-${viewport.width}.png`, fullPage: true });
  }
  // History: the pending credit, not in the balance.
  await page.setViewportSize(DESKTOP);
  await page.goto("/dashboard/transactions");
  await expect(
    page
      .getByRole("row")
      .filter({ hasText: "Mobile deposit" })
      .filter({ hasText: money(APPROVE) })
      .getByText("Pending review")
      .first(),
  ).toBeVisible();
});

test.describe("staff", () => {
  test.use({ signedInAs: STAFF });

  test("review deposits in the queue with both photos: approve one, reject one with a reason", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/admin/queues");
    await hydrated(page);
    const queue = page.getByTestId("queue-deposits");
    await expect(queue.getByRole("heading", { name: /Mobile deposits/ })).toBeVisible();
    const approve = queue
      .getByTestId("queued-deposit")
      .filter({ hasText: money(APPROVE) })
      .filter({ hasText: member.email });
    const reject = queue
      .getByTestId("queued-deposit")
      .filter({ hasText: money(REJECT) })
      .filter({ hasText: member.email });
    await expect(approve).toBeVisible();
    for (const image of await approve.getByRole("img").all()) {
      await image.scrollIntoViewIfNeeded();
      await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(100);
    }
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await expectNoAxeViolations(page);
      await page.screenshot({ path: `${SCREENS}/queue-${viewport.width}.png`, fullPage: true });
    }
    await page.setViewportSize(DESKTOP);

    await reject.getByRole("button", { name: /^Reject deposit/ }).click();
    await expect(reject.getByText("Please give the reason the deposit is rejected.").first()).toBeVisible();
    await reject.getByLabel("Reason to reject").fill(REASON);
    await reject.getByRole("button", { name: /^Reject deposit/ }).click();
    await expect(
      page.getByRole("status").filter({ hasText: `Deposit of ${money(REJECT)} rejected; the member is told why.` }),
    ).toBeVisible();
    await expect(reject).toHaveCount(0);

    // A reasonable-cause hold (Regulation CC 229.13(e)) needs the reason the member is told.
    await approve.getByLabel("Hold longer").selectOption("reasonable_cause");
    await approve.getByRole("button", { name: /^Approve deposit/ }).click();
    await expect(approve.getByText(/Please write why you believe the check will not be paid/)).toBeVisible();
    await page.setViewportSize(PHONE);
    await approve.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}/queue-hold-refused-375.png`, fullPage: true });
    await page.setViewportSize(DESKTOP);
    await page.screenshot({ path: `${SCREENS}/queue-hold-refused-1440.png`, fullPage: true });
    // No staff hold: the member's account is new (opened today), so Regulation CC 229.13(a) holds it by rule.
    await approve.getByLabel("Hold longer").selectOption("");
    await approve.getByRole("button", { name: /^Approve deposit/ }).click();
    const approved = page.getByRole("status").filter({ hasText: `Deposit of ${money(APPROVE)} approved and posted.` });
    await expect(approved).toBeVisible();
    await expect(approved).toContainText(
      /is held until [A-Z][a-z]{2} \d{1,2}, \d{4} \(new account, 12 CFR 229\.13\(a\)\)/,
    );
    await expect(approve).toHaveCount(0);
    await page.screenshot({ path: `${SCREENS}/queue-reviewed-1440.png`, fullPage: true });
    expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
  });
});

test("the member then sees Posted with when the money is available, and Rejected with the reason", async ({
  page,
  signInAs,
}) => {
  await signInAs(member);
  await page.goto("/dashboard/deposit");
  const posted = page.getByTestId("mobile-deposit").filter({ hasText: money(APPROVE) });
  await expect(posted.getByText("Posted", { exact: true })).toBeVisible();
  await expect(
    posted.getByText(new RegExp(`^\\${money(APPROVE)} available on [A-Z][a-z]{2} \\d{1,2}, \\d{4}$`)),
  ).toBeVisible();
  // The hold notice (12 CFR 229.13(g)): how much, until when, and why.
  const notice = posted.getByTestId("hold-notice");
  await expect(notice.getByText("Notice of hold")).toBeVisible();
  await expect(notice.getByText(new RegExp(`We are delaying \\${money(APPROVE)} of this deposit`))).toBeVisible();
  await expect(
    notice.getByText("Why: Your account is new: it was opened in the last 30 days. (Regulation CC, 12 CFR 229.13(a))"),
  ).toBeVisible();
  const rejected = page.getByTestId("mobile-deposit").filter({ hasText: money(REJECT) });
  await expect(rejected.getByText("Rejected", { exact: true })).toBeVisible();
  await expect(rejected.getByText(`Reason: ${REASON}`)).toBeVisible();
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/reviewed-${viewport.width}.png`, fullPage: true });
  }
  await page.goto("/dashboard/notifications");
  await expect(page.getByText(`Mobile deposit of ${money(REJECT)} rejected`).first()).toBeVisible();
  await expect(page.getByText(`Notice of hold on your deposit of ${money(APPROVE)}`).first()).toBeVisible();
});
