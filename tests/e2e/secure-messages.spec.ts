import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, fundedMember, hydrated, watchConsole } from "./support";
import type { Page } from "@playwright/test";

/**
 * Secure messages (docs/product.md#secure-messages), as a member and as staff: the member asks about
 * a transaction from the history with a file (a web page renamed .pdf refused by its field, then a
 * PDF); staff find it in the Inbox's Unassigned view, take it and reply; the member sees the unread
 * count in the top bar, reads the reply and answers; staff close it and the member's page turns
 * read-only with a way to start again. A signed-in member's "Contact" leads to a new message. Pages
 * at 1440 and 375 px, axe clean.
 */
const expect = baseExpect.configure({ timeout: 15_000 });
const SHOTS = process.env.SHOTS_DIR ?? "test-results/secure-messages";
test.setTimeout(300_000);

const PDF = Buffer.from(
  "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
);
const HTML = Buffer.from("<!doctype html><html><body><script>alert(1)</script></body></html>\n");

async function shots(page: Page, name: string) {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
}

test("a member asks about a transaction; staff take it and reply; the member answers; staff close it", async ({
  page,
  newMember,
  pageAs,
  signInAs,
  signedIn,
}) => {
  const member = await fundedMember({ newMember, pageAs }, "messages", "60.00");
  await signInAs(member);
  const errors = watchConsole(page);

  // From the history: "Ask about this" starts a message about that transaction.
  await page.goto("/dashboard/transactions");
  await hydrated(page);
  await page
    .getByRole("row")
    .filter({ hasText: "$60.00" })
    .first()
    .getByRole("link", { name: /^Ask about/ })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "New message" })).toBeVisible();
  await hydrated(page);
  await expect(page.getByRole("region", { name: "The transaction" })).toContainText("$60.00");
  const subject = `Welcome money ${Date.now()}`;
  await page.getByLabel("Subject").fill(subject);
  await page.getByLabel("Message", { exact: true }).fill("Who sent me this $60? I attach my note.");
  await page.getByLabel("First file").setInputFiles({ name: "note.pdf", mimeType: "application/pdf", buffer: HTML });
  await page.getByRole("button", { name: "Send message" }).click();
  await expect(page.getByText("Attach a PDF, JPEG or PNG file.")).toBeVisible();
  await expect(page.getByLabel("First file")).toHaveAttribute("aria-invalid", "true");
  await shots(page, "new-message-refused");

  await page.getByLabel("First file").setInputFiles({ name: "note.pdf", mimeType: "application/pdf", buffer: PDF });
  await page.getByRole("button", { name: "Send message" }).click();
  await expect(page.getByText("Message sent")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: subject })).toBeVisible();
  const link = page.getByRole("link", { name: /^Attachment 1 \(PDF, \d+ KB\)$/ });
  await expect(link).toBeVisible();
  expect((await page.request.get((await link.getAttribute("href"))!)).status()).toBe(200);
  await shots(page, "conversation-sent");

  // Staff: Unassigned, open it, take it, reply.
  const staff = await (await signedIn(STAFF)).newPage();
  await staff.goto("/admin/inbox");
  await hydrated(staff);
  await expect(staff.getByRole("link", { name: "Inbox", exact: false }).first()).toBeVisible();
  await shots(staff, "staff-inbox");
  await staff.getByRole("link", { name: new RegExp(subject) }).click();
  await hydrated(staff);
  await expect(staff.getByText("Who sent me this $60? I attach my note.")).toBeVisible();
  await expect(staff.getByText(member.email)).toBeVisible();
  const staffLink = staff.getByRole("link", { name: /^Attachment 1 \(PDF, \d+ KB\)$/ });
  expect((await staff.request.get((await staffLink.getAttribute("href"))!)).status()).toBe(200);
  await staff.getByRole("button", { name: "Assign to me" }).click();
  await expect(staff.getByRole("status").filter({ hasText: "Assignment saved." })).toBeVisible();
  await hydrated(staff);
  await staff.getByLabel("Reply", { exact: true }).fill("It was a welcome transfer from a member. Nothing to do.");
  await staff.getByRole("button", { name: "Send reply" }).click();
  await expect(staff.getByRole("status").filter({ hasText: "Reply sent." })).toBeVisible();
  await shots(staff, "staff-conversation");

  // The member: one unread in the top bar, marked in the list, read on opening.
  await page.goto("/dashboard");
  await hydrated(page);
  await expect(
    page.getByRole("navigation", { name: "Banking" }).getByRole("link", { name: /Messages 1 unread/ }),
  ).toBeVisible();
  await page
    .getByRole("navigation", { name: "Banking" })
    .getByRole("link", { name: /Messages/ })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Messages" })).toBeVisible();
  await expect(page.getByRole("link", { name: new RegExp(subject) })).toContainText("Unread");
  await shots(page, "messages-unread");
  await page.getByRole("link", { name: new RegExp(subject) }).click();
  await hydrated(page);
  await expect(page.getByText("It was a welcome transfer from a member. Nothing to do.")).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Banking" }).getByRole("link", { name: /unread/ })).toHaveCount(0);
  await page.getByLabel("Your reply").fill("Thank you, all clear.");
  await page.getByRole("button", { name: "Send reply" }).click();
  await expect(page.getByText("Reply sent.")).toBeVisible();
  await expect(page.getByText("Thank you, all clear.")).toBeVisible();
  await shots(page, "conversation-replied");

  // Staff close it; the member's page is read-only with a way to start again.
  await staff.reload();
  await hydrated(staff);
  await expect(staff.getByText("Thank you, all clear.")).toBeVisible();
  await staff.getByRole("button", { name: "Close conversation" }).click();
  await expect(staff.getByRole("status").filter({ hasText: "Conversation closed." })).toBeVisible();
  await page.reload();
  await hydrated(page);
  await expect(page.getByText("This conversation is closed.")).toBeVisible();
  await expect(page.getByLabel("Your reply")).toHaveCount(0);
  await shots(page, "conversation-closed");
  await page.getByRole("link", { name: "Start a new message" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "New message" })).toBeVisible();

  // A signed-in member's Contact page is a new secure message, as the app's footer offers.
  await expect(page.getByRole("link", { name: "Send us a secure message" })).toHaveAttribute(
    "href",
    "/dashboard/messages/new",
  );
  await page.goto("/contact");
  await expect(page).toHaveURL(/\/dashboard\/messages\/new$/);
  expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
});
