import fs from "node:fs";
import { expect as baseExpect, test } from "./fixtures";
import { DESKTOP, PHONE, STAFF, expectNoAxeViolations, hydrated, watchConsole } from "./support";
import { readNachaFile } from "../unit/nacha-reader";
import { buildInboundFile } from "../unit/nacha-inbound-builder";

/**
 * ACH in (docs/product.md#ach-in) as staff: upload the Federal Reserve's inbound file on
 * /admin/queues, see its entries that cannot post in Returned items (1440 and 375 px, axe clean),
 * be refused the same file again and a broken one, export the return file and download it (read
 * back by the tests' own NACHA reader); see a notification of change in its section and mark it
 * handled (1440 and 375 px). The upload works without JavaScript too.
 */
const expect = baseExpect.configure({ timeout: 30_000 });
const SCREENS = "test-results/ach-inbound";
test.setTimeout(300_000);
test.describe.configure({ mode: "serial" });
test.use({ signedInAs: STAFF });

const STAMP = Date.now().toString(36).toUpperCase();
// Account numbers no member has (ours start 1-9 and have ten digits): both come back as R03.
const file = buildInboundFile([
  {
    company_name: `Payroll ${STAMP}`.slice(0, 16),
    description: "PAYROLL",
    service_class: "220",
    entries: [
      { code: "22", account_number: "000123", amount_cents: 12_345, name: "Nobody One" },
      { code: "32", account_number: "000456", amount_cents: 100, name: "Nobody Two" },
    ],
  },
]);
const upload = (name: string, text: string) => ({ name, mimeType: "text/plain", buffer: Buffer.from(text) });

test("staff upload an inbound file, see its returned items, are refused it again and a broken one, and download the return file", async ({
  page,
}) => {
  const errors = watchConsole(page);
  await page.goto("/admin/queues");
  await hydrated(page);
  const achIn = page.getByTestId("queue-ach-in");
  await achIn.getByLabel("Inbound NACHA file from the Federal Reserve").setInputFiles(upload(`fed-${STAMP}.ach`, file));
  await achIn.getByRole("button", { name: "Upload and post" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `fed-${STAMP}.ach: 2 entries, 0 posted, 2 returned.` }),
  ).toBeVisible();
  await expect(achIn.getByTestId("inbound-file").filter({ hasText: `fed-${STAMP}.ach` })).toContainText(
    "2 entries · 0 posted · 2 returned",
  );

  const returns = page.getByTestId("queue-returns");
  const mine = returns.getByTestId("returned-item").filter({ hasText: `PAYROLL ${STAMP}`.slice(0, 16) });
  await expect(mine).toHaveCount(2);
  await expect(mine.first()).toContainText("R03");
  await expect(mine.first()).toContainText("No account or unable to locate account");
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${SCREENS}/queues-returned-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);

  await achIn.getByLabel("Inbound NACHA file from the Federal Reserve").setInputFiles(upload("again.ach", file));
  await achIn.getByRole("button", { name: "Upload and post" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: `This file was already posted (fed-${STAMP}.ach` }),
  ).toBeVisible();

  const broken = file.replace(/^8220(\d{6})\d{10}/m, (_, count: string) => `8220${count}0000000001`);
  await achIn.getByLabel("Inbound NACHA file from the Federal Reserve").setInputFiles(upload("broken.ach", broken));
  await achIn.getByRole("button", { name: "Upload and post" }).click();
  await expect(
    page.getByRole("alert").filter({
      hasText:
        "The file was refused, nothing was posted: line 5: entry hash is 0000000001, the entries' receiving DFIs sum to 0100246912.",
    }),
  ).toBeVisible();

  await returns.getByRole("button", { name: "Export return file" }).click();
  const done = page
    .getByRole("status")
    .filter({ hasText: /returns? \(\$[\d,.]+\) exported as ach-returns-\d{4}-\d{2}-\d{2}-[A-Z0-9]-\d+\.ach\./ });
  await expect(done).toBeVisible();
  const fileName = /ach-returns-[^ ]+\.ach/.exec((await done.textContent()) ?? "")![0];
  await expect(returns.getByTestId("returned-item").filter({ hasText: `PAYROLL ${STAMP}`.slice(0, 16) })).toHaveCount(
    0,
  );
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${SCREENS}/queues-return-file-375.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${SCREENS}/queues-return-file-1440.png`, fullPage: true });

  const row = returns.getByTestId("return-file").filter({ hasText: fileName });
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    row.getByRole("link", { name: `Download ${fileName}` }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(fileName);
  const read = readNachaFile(fs.readFileSync((await download.path())!, "utf8"), { returns: true });
  const entries = read.batches
    .filter((b) => b.company_name === `PAYROLL ${STAMP}`.slice(0, 16))
    .flatMap((b) => b.entries);
  expect(
    entries.map((e) => [e.transaction_code, e.account_number, e.amount_cents, e.addenda[0]!.text.slice(0, 3)]),
  ).toEqual([
    ["21", "000123", 12_345, "R03"],
    ["31", "000456", 100, "R03"],
  ]);
  // A return of an entry we never sent waits for staff, who mark it handled with what they did.
  const unknown = buildInboundFile(
    [
      {
        company_name: `Return ${STAMP}`.slice(0, 16),
        odfi: "02100002",
        entries: [
          {
            code: "21",
            account_number: "555",
            amount_cents: 777,
            name: "Who Knows",
            return_of: { reason: "R02", original_trace: "501234569999990" },
          },
        ],
      },
    ],
    { modifier: "R" },
  );
  await achIn
    .getByLabel("Inbound NACHA file from the Federal Reserve")
    .setInputFiles(upload(`return-${STAMP}.ach`, unknown));
  await achIn.getByRole("button", { name: "Upload and post" }).click();
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: `return-${STAMP}.ach: 1 entry, 0 posted, 0 returned, 1 return to look into.` }),
  ).toBeVisible();
  const look = returns.getByTestId("returned-item").filter({ hasText: `RETURN ${STAMP}`.slice(0, 16) });
  await expect(look).toContainText("Look into it");
  await page.setViewportSize(PHONE);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: `${SCREENS}/queues-look-into-375.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  await look.getByLabel("What was done").fill("Asked the other bank: not our entry");
  await look.getByRole("button", { name: "Mark as handled" }).click();
  await expect(page.getByRole("status").filter({ hasText: "The return was marked as handled." })).toBeVisible();
  await expect(look).toHaveCount(0);

  // The two refusals answer 409 and 422, which the browser logs as failed loads; nothing else.
  expect(errors.filter((e) => !/status of (409 \(Conflict\)|422 \(Unprocessable Entity\))$/.test(e))).toEqual([]);
});

test("a notification of change waits in its section; staff must say what they did to mark it handled", async ({
  page,
}) => {
  const errors = watchConsole(page);
  // A COR naming an entry we never sent: it waits as unmatched (applying a matched one is in tests/integration/rails/ach-inbound-classes.test.ts).
  const cor = buildInboundFile(
    [
      {
        company_name: `Change ${STAMP}`.slice(0, 16),
        sec: "COR",
        description: "TRANSFER",
        odfi: "02100002",
        service_class: "220",
        entries: [
          {
            code: "21",
            account_number: "123456789",
            amount_cents: 0,
            name: "Lee Park",
            change_of: {
              code: "C01",
              original_trace: `50123456${String(Date.now() % 10_000_000).padStart(7, "0")}`,
              corrected: "987654321",
            },
          },
        ],
      },
    ],
    { modifier: "C" },
  );
  await page.goto("/admin/queues");
  await hydrated(page);
  const achIn = page.getByTestId("queue-ach-in");
  await achIn.getByLabel("Inbound NACHA file from the Federal Reserve").setInputFiles(upload(`cor-${STAMP}.ach`, cor));
  await achIn.getByRole("button", { name: "Upload and post" }).click();
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: `cor-${STAMP}.ach: 1 entry, 0 posted, 0 returned, 1 notification of change to see to.` }),
  ).toBeVisible();

  const changes = page.getByTestId("queue-changes");
  await expect(changes.getByRole("heading", { name: /Notifications of change/ })).toBeVisible();
  const item = changes.getByTestId("change-item").filter({ hasText: `cor-${STAMP}.ach` });
  await expect(item).toContainText("No payment of ours matches");
  await expect(item).toContainText("C01");
  await expect(item).toContainText("Incorrect account number");
  await expect(item).toContainText("Account number ••4321");
  // Unmatched: nothing to apply.
  await expect(item.getByRole("button", { name: /Apply/ })).toHaveCount(0);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await changes.screenshot({ path: `${SCREENS}/queues-changes-${viewport.width}.png` });
  }
  await page.setViewportSize(DESKTOP);

  // No note: refused, the message next to the field.
  await item.getByRole("button", { name: "Mark as handled" }).click();
  await expect(item.getByText("Please say what was done about this notification of change.")).toBeVisible();
  await expect(item.getByLabel("What was done")).toHaveAttribute("aria-invalid", "true");
  await item.getByLabel("What was done").fill("Not our entry: told the Federal Reserve");
  await item.getByRole("button", { name: "Mark as handled" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "The notification of change was marked as handled." }),
  ).toBeVisible();
  await expect(item).toHaveCount(0);
  // The refused note answers 400, which the browser logs as a failed load; nothing else.
  expect(errors.filter((e) => !/status of 400 \(Bad Request\)$/.test(e))).toEqual([]);
});

test("a re-sent file's entries wait in Possible duplicates (1440 and 375 px, axe clean); staff post one and return the other", async ({
  page,
}) => {
  const errors = watchConsole(page);
  const company = `Resent ${STAMP}`.slice(0, 16);
  const resent = (modifier: string) =>
    buildInboundFile(
      [
        {
          company_name: company,
          description: "PAYROLL",
          service_class: "220",
          entries: [
            { code: "22", account_number: "000901", amount_cents: 4_200, name: "Nobody Three" },
            { code: "22", account_number: "000902", amount_cents: 4_300, name: "Nobody Four" },
          ],
        },
      ],
      { modifier },
    );
  await page.goto("/admin/queues");
  await hydrated(page);
  const achIn = page.getByTestId("queue-ach-in");
  await achIn
    .getByLabel("Inbound NACHA file from the Federal Reserve")
    .setInputFiles(upload(`first-${STAMP}.ach`, resent("P")));
  await achIn.getByRole("button", { name: "Upload and post" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `first-${STAMP}.ach: 2 entries, 0 posted, 2 returned.` }),
  ).toBeVisible();
  // The same entries under a new file header: new bytes, the same trace numbers, amounts, date and accounts.
  await achIn
    .getByLabel("Inbound NACHA file from the Federal Reserve")
    .setInputFiles(upload(`resent-${STAMP}.ach`, resent("Q")));
  await achIn.getByRole("button", { name: "Upload and post" }).click();
  await expect(
    page
      .getByRole("status")
      .filter({ hasText: `resent-${STAMP}.ach: 2 entries, 0 posted, 0 returned, 2 possible duplicates held.` }),
  ).toBeVisible();

  const duplicates = page.getByTestId("queue-duplicates");
  const held = duplicates.getByTestId("held-entry").filter({ hasText: company.toUpperCase() });
  await expect(held).toHaveCount(2);
  await expect(held.first()).toContainText(`Possible duplicate of first-${STAMP}.ach line 3 (returned`);
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await expectNoAxeViolations(page);
    await duplicates.screenshot({ path: `${SCREENS}/queues-duplicates-${viewport.width}.png` });
  }
  await page.setViewportSize(DESKTOP);

  // Post: decided as the upload would have (no such account here: it goes back as R03).
  await held
    .first()
    .getByRole("button", { name: /^Post the credit of \$42\.00/ })
    .click();
  await expect(
    page.getByRole("status").filter({
      hasText:
        "The credit of $42.00 could not post (R03: No account or unable to locate account); it waits in Returned items for the return file.",
    }),
  ).toBeVisible();
  await held
    .first()
    .getByRole("button", { name: /^Return the credit of \$43\.00/ })
    .click();
  await expect(
    page.getByRole("status").filter({
      hasText: "The credit of $43.00 was marked as a duplicate (R24); it waits in Returned items for the return file.",
    }),
  ).toBeVisible();
  await expect(held).toHaveCount(0);
  const returned = page
    .getByTestId("queue-returns")
    .getByTestId("returned-item")
    .filter({ hasText: company.toUpperCase() });
  await expect(returned.filter({ hasText: "R24" })).toHaveCount(1);
  await expect(returned.filter({ hasText: "Duplicate entry" })).toHaveCount(1);
  expect(errors).toEqual([]);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the upload is a plain form: the page answers with what became of the file", async ({ page }) => {
    const other = buildInboundFile(
      [
        {
          company_name: `NoJS ${STAMP}`.slice(0, 16),
          entries: [{ code: "22", account_number: "000789", amount_cents: 5_000 }],
        },
      ],
      { modifier: "N" },
    );
    await page.goto("/admin/queues");
    await page
      .getByTestId("queue-ach-in")
      .getByLabel("Inbound NACHA file from the Federal Reserve")
      .setInputFiles(upload(`nojs-${STAMP}.ach`, other));
    await page.getByTestId("queue-ach-in").getByRole("button", { name: "Upload and post" }).click();
    await expect(
      page.getByRole("status").filter({ hasText: `nojs-${STAMP}.ach: 1 entry, 0 posted, 1 returned.` }),
    ).toBeVisible();
    await expect(
      page
        .getByTestId("queue-returns")
        .getByTestId("returned-item")
        .filter({ hasText: `NOJS ${STAMP}`.slice(0, 16) }),
    ).toHaveCount(1);
  });
});
