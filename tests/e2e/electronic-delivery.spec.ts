import { extractText, getDocumentProxy } from "unpdf";
import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated, watchConsole } from "./support";
import type { Page } from "@playwright/test";

/**
 * Electronic delivery consent (E-SIGN, 15 U.S.C. 7001(c); docs/product.md#electronic-delivery) in
 * the browser, as a person does it: a new member is asked on the dashboard, reads the disclosure,
 * opens the sample PDF and types the code they read in it (a wrong code first, refused by the
 * field), and agrees; then withdraws in Account Settings, and staff find them on the Paper mail
 * list. Pages at 1440 and 375 px, axe clean.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SHOTS = process.env.SHOTS_DIR ?? "test-results/electronic-delivery";
test.setTimeout(150_000);

async function shots(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

/** Clicks "Open the sample PDF" and reads the code in the file, as the member reads it on screen. */
async function readSampleCode(page: Page): Promise<string> {
  // The member clicks the link and a new tab opens the file. Headless Chromium has no PDF viewer to
  // read it from, so the test reads the same file with the member's session (the code is the same
  // until it is used) through pdf.js (unpdf), as a PDF reader does.
  const popup = page.context().waitForEvent("page", { timeout: 15_000 });
  const link = page.getByRole("link", { name: "Open the sample PDF" });
  await link.click();
  await (await popup).close();
  const response = await page.request.get((await link.getAttribute("href"))!);
  expect(response.headers()["content-type"]).toBe("application/pdf");
  const bytes = new Uint8Array(await response.body());
  const { text } = await extractText(await getDocumentProxy(bytes), { mergePages: true });
  const code = /Your code:\s*([A-Z0-9](?:\s*[A-Z0-9]){5})/.exec(text)?.[1]?.replace(/\s/g, "");
  expect(code, text).toMatch(/^[A-Z0-9]{6}$/);
  return code!;
}

test("a member consents with the sample PDF's code, withdraws in Account Settings, and is on staff's paper list", async ({
  page,
  newMember,
  signInAs,
  signedIn,
}) => {
  const member = await newMember("esign");
  await signInAs(member);
  const errors = watchConsole(page);

  await page.goto("/dashboard");
  await hydrated(page);
  await page.getByRole("link", { name: "Choose electronic delivery or paper" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Electronic delivery" })).toBeVisible();
  await hydrated(page);
  await expect(page.getByRole("heading", { name: "What you need" })).toBeVisible();
  await expect(page.getByText("Withdrawing your consent is free.")).toBeVisible();

  const code = await readSampleCode(page);
  await page.getByLabel("Code from the sample PDF").fill(code === "ACDEFG" ? "ACDEFH" : "ACDEFG");
  await page.getByText("I have read the disclosure above").click();
  await page.getByRole("button", { name: "Agree to electronic delivery" }).click();
  await expect(page.getByText("That is not the code in the sample PDF.")).toBeVisible();
  await shots(page, "consent-page");

  await page.getByLabel("Code from the sample PDF").fill(code.toLowerCase());
  await page.getByRole("button", { name: "Agree to electronic delivery" }).click();
  await expect(
    page.getByText("From now on your statements, notices and disclosures come electronically."),
  ).toBeVisible();
  await expect(page.getByText(/Agreed to electronic delivery \(disclosure version/)).toBeVisible();
  await expect(page.getByRole("link", { name: "Choose electronic delivery or paper" })).toHaveCount(0);

  // Withdrawing is in Account Settings (the page; the dialog posts the same form).
  await page.goto("/settings/account");
  await hydrated(page);
  const section = page.getByRole("region", { name: "Statements and notices" });
  await expect(section.getByText("You get statements, notices and disclosures electronically.")).toBeVisible();
  await section.getByRole("button", { name: "Withdraw consent: send paper" }).click();
  await expect(page.getByText(/Consent withdrawn\. We will mail your statements/)).toBeVisible();
  await page.reload();
  await expect(
    page
      .getByRole("region", { name: "Statements and notices" })
      .getByRole("link", { name: "Switch to electronic delivery" }),
  ).toBeVisible();

  const staff = await (await signedIn(STAFF)).newPage();
  await staff.goto("/admin/paper-delivery");
  await hydrated(staff);
  await expect(staff.getByRole("heading", { level: 1, name: "Paper mail" })).toBeVisible();
  const row = staff.getByRole("row").filter({ hasText: member.email });
  await expect(row.getByText("Withdrew consent")).toBeVisible();
  await expect(row.getByText(/12 Test Street/)).toBeVisible();
  await shots(staff, "paper-list");
  // The one refused post is the wrong code's 400, answered beside the field.
  expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
});
