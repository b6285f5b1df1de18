/**
 * Takes the README's tour screenshots from a running server (default http://localhost:3000):
 *   npm start &   then   node --import tsx scripts/screenshots.ts [base-url]
 * Public pages only need the server; set SCREENSHOT_EMAIL/SCREENSHOT_PASSWORD for signed-in ones
 * (not automated here: sign-in needs a one-time code).
 */
import { chromium } from "@playwright/test";

const base = process.argv[2] ?? "http://localhost:3000";
const shots: { path: string; file: string; width: number; full?: boolean }[] = [
  { path: "/", file: "home-desktop.png", width: 1440 },
  { path: "/", file: "home-phone.png", width: 375 },
  { path: "/products", file: "products-desktop.png", width: 1440 },
  { path: "/calculators", file: "calculators-desktop.png", width: 1440 },
  { path: "/contact", file: "contact-phone.png", width: 375 },
  { path: "/signup", file: "signup-desktop.png", width: 1440 },
  { path: "/login", file: "login-phone.png", width: 375 },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
for (const shot of shots) {
  const page = await browser.newPage({ viewport: { width: shot.width, height: shot.width < 500 ? 812 : 900 } });
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.goto(base + shot.path, { waitUntil: "networkidle" });
  await page.screenshot({ path: `docs/screenshots/${shot.file}`, fullPage: shot.full ?? false });
  await page.close();
  console.log(`docs/screenshots/${shot.file}`);
}
await browser.close();
