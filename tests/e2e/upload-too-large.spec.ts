import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "./fixtures";

const SCREENS = "test-results/upload-too-large";

/**
 * A file far over the upload limit, sent by the browser's own form post (what happens without
 * JavaScript): the request guards refuse it before reading it, with a page in the site's look
 * that says the limit and leads back to the form, not a line of plain text.
 */
// Without JavaScript, as the title says: with it, the sign-up page's own script could hydrate after
// setContent and draw the sign-up page over the plain form, whose field was then never found (a
// 2-minute timeout, passed on retry, in three runs out of three).
test.use({ javaScriptEnabled: false });

test("a 100 MB file sent by a form without JavaScript gets a page that says the limit and the way back", async ({
  page,
}) => {
  test.setTimeout(120_000);
  // Sparse: 100 MB declared, next to nothing written to disk.
  const big = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mutual-too-large-")), "passport.pdf");
  fs.writeFileSync(big, "%PDF-1.4\n");
  fs.truncateSync(big, 100 * 1024 * 1024);

  await page.goto("/signup");
  // The sign-up form's own script would check the size first; a plain form posts as a browser without JavaScript does.
  await page.setContent(
    '<form method="post" action="/signup" enctype="multipart/form-data"><input type="file" name="document" aria-label="ID document"><button type="submit">Send</button></form>',
  );
  await page.getByLabel("ID document").setInputFiles(big);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/signup") && r.request().method() === "POST"),
    page.getByRole("button", { name: "Send" }).click(),
  ]);
  expect(answer.status()).toBe(413);
  expect(answer.headers()["content-type"]).toMatch(/^text\/html/);
  await expect(page.getByRole("heading", { level: 1, name: "That file is too large" })).toBeVisible();
  await expect(page.getByText("We accept at most 21 MB in one form.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Back to the form" })).toHaveAttribute("href", "/signup");

  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await page.screenshot({ path: `${SCREENS}/too-large-${width}.png`, fullPage: true });
  }
  await page.getByRole("link", { name: "Back to the form" }).click();
  await expect(page).toHaveURL(/\/signup$/);
  fs.rmSync(path.dirname(big), { recursive: true, force: true });
});
