import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "./fixtures";
import { PUBLIC_PAGES, hydrated, watchConsole } from "./support";

/**
 * The footer and the home page below its hero are rendered once per server and then sent as
 * stored HTML (components/ui/memoized-markup.tsx). Stored HTML must be exactly what React writes
 * when it renders the page, or the browser's hydration would not match it.
 */

const port = Number(process.env.E2E_PORT ?? 3210) + 100;
const base = `http://127.0.0.1:${port}`;

test.describe("memoized markup", () => {
  let server: ChildProcess | undefined;
  let log = "";

  test.afterAll(() => {
    server?.kill("SIGTERM");
  });

  test("every public page is the same HTML before and after its parts are stored", async () => {
    test.setTimeout(180_000);
    // A server of its own, so that its first answers are rendered in full whatever other tests did.
    server = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "mutual-memo-")),
        LOG_LEVEL: "debug",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
    server.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
    await expect
      .poll(async () => (await fetch(`${base}/readyz`).catch(() => null))?.status ?? 0, { timeout: 150_000, intervals: [250] })
      .toBe(200);

    // The same request id both times; the CSP nonce differs by design.
    const page = async (urlPath: string) => {
      const response = await fetch(`${base}${urlPath}`, { headers: { "x-request-id": "memo-check-0001" } });
      expect(response.status, urlPath).toBe(200);
      return (await response.text()).replace(/nonce="[^"]*"/g, 'nonce=""');
    };
    const stored = () => log.match(/memoized markup stored/g)?.length ?? 0;

    for (const urlPath of PUBLIC_PAGES) {
      const first = await page(urlPath);
      // The home page comes first: its footer and its sections are stored right after it is sent.
      if (urlPath === "/") await expect.poll(stored).toBe(2);
      const second = await page(urlPath);
      expect(second, `${urlPath}: stored markup differs from the rendered page`).toBe(first);
    }
    expect(log).toContain('"key":"footer:');
    expect(log).toContain('"key":"home:');
    expect(log).not.toContain("could not be rendered on its own");
  });
});

test("links in stored markup navigate in the page, without reloading it", async ({ page }) => {
  const errors = watchConsole(page);
  // The first visit stores the parts; the second is served from them.
  await page.goto("/");
  await page.waitForTimeout(200);
  await page.goto("/");
  await hydrated(page);
  await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));

  await page.getByRole("link", { name: "Explore Personal Banking" }).click();
  await expect(page).toHaveURL(/\/products$/);
  await expect(page.locator("h1")).toBeVisible();
  await page.getByRole("contentinfo").getByRole("link", { name: "Privacy Policy" }).click();
  await expect(page).toHaveURL(/\/privacy$/);
  await expect(page.locator("h1")).toContainText("Privacy");
  // Still the same document: React Router navigated, the browser did not load a new page.
  expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
  expect(errors).toEqual([]);
});
