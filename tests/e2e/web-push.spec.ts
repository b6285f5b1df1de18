import type { CDPSession, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, hydrated, watchConsole } from "./support";
import {
  browserSubscription,
  decryptPush,
  startPushService,
  verifyVapid,
} from "../integration/notifications/push-service";

/**
 * Notifications on the member's devices (Web Push, docs/product.md#settings,
 * docs/decisions/0023-web-push.md). What this proves, and what it cannot:
 *
 * - Proved: the member allows notifications in Account Settings; the page asks the browser's
 *   permission, registers the service worker /push-worker.js and subscribes with the server's
 *   VAPID public key; the server stores the subscription; a real event (locking the card) writes a
 *   notification; the push-delivery job posts an RFC 8291 encrypted, VAPID-signed push to the
 *   subscription's push service (a local HTTP server here), which this test decrypts with the
 *   subscription's private key; that payload, delivered to Chromium's service worker through the
 *   DevTools protocol (ServiceWorker.deliverPushMessage), is shown as a system notification
 *   (registration.getNotifications()); turning the device off removes it.
 * - Not proved: a real push service (Chrome's FCM, Mozilla's, Apple's) carrying the message to the
 *   browser. Headless Chromium without the network cannot subscribe at a real push service, so
 *   PushManager.subscribe is replaced in this page by one that returns a subscription whose keys
 *   the test holds and whose URL is the local push service. Everything on either side of the push
 *   service is the real code.
 */
const SCREENS = "test-results/screens";

/**
 * The full Chromium, not the headless shell the other specs use: the shell reports notification
 * permission as denied and shows no notification from a service worker (tried: a push delivered
 * by the DevTools protocol gave no notification there, and one in the full browser).
 */
test.use({
  launchOptions: {
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"],
  },
});
const posted = { timeout: 20_000 };

/** PushManager's subscribe and getSubscription, answered from the test's subscription (see above). */
async function stubPushManager(page: Page, json: object) {
  await page.addInitScript((subscription) => {
    const KEY = "e2e-push-subscription";
    const fake = () => ({
      ...subscription,
      options: { userVisibleOnly: true },
      getKey: () => null,
      toJSON: () => subscription,
      unsubscribe: async () => {
        localStorage.removeItem(KEY);
        return true;
      },
    });
    PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
      const key = options?.applicationServerKey as Uint8Array | undefined;
      localStorage.setItem("e2e-push-application-server-key", key ? btoa(String.fromCharCode(...key)) : "");
      localStorage.setItem(KEY, "1");
      return fake() as unknown as PushSubscription;
    };
    PushManager.prototype.getSubscription = async function () {
      return (localStorage.getItem(KEY) ? fake() : null) as unknown as PushSubscription | null;
    };
  }, json);
}

/** The service worker's registration id, from Chromium's DevTools protocol. */
async function registrationId(cdp: CDPSession): Promise<string> {
  const found = new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const live = registrations.find((r) => !r.isDeleted && r.scopeURL.endsWith("/"));
      if (live) resolve(live.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  return found;
}

test("a member allows notifications on this device and a push is shown by the service worker", async ({
  newMember,
  pageAs,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const pushService = await startPushService(Number(new URL(baseURL!).port) + 1000);
  try {
    const device = browserSubscription(`${pushService.origin}/push/e2e-device-${Date.now()}`);
    const member = await newMember("web-push");
    const page = await pageAs(member);
    await page.context().grantPermissions(["notifications"], { origin: baseURL! });
    await stubPushManager(page, device.json);
    const errors = watchConsole(page);

    await page.goto("/settings/account#push");
    await hydrated(page);
    const section = page.getByRole("region", { name: "Notifications on your devices" });
    await expect(section.getByText("No device shows your notifications yet.")).toBeVisible();
    await section.getByRole("button", { name: "Allow notifications on this device" }).click();
    await expect(section.getByText("Notifications are on for this device.").first()).toBeVisible(posted);
    const list = section.getByRole("list", { name: "Devices with notifications on" });
    await expect(list.getByRole("listitem")).toHaveCount(1);
    await expect(list.getByRole("listitem").first()).toContainText("This device");
    // The page subscribed with the server's VAPID public key (the one the pushes are signed with).
    const applicationServerKey = await page.evaluate(() => localStorage.getItem("e2e-push-application-server-key"));
    expect(applicationServerKey).toBeTruthy();

    await expectNoAxeViolations(page);
    await page.evaluate(() => {
      for (const header of document.querySelectorAll<HTMLElement>("header")) header.style.position = "static";
    });
    await section.screenshot({ path: `${SCREENS}/web-push-1440.png` });
    await page.setViewportSize(PHONE);
    await section.scrollIntoViewIfNeeded();
    await section.screenshot({ path: `${SCREENS}/web-push-375.png` });
    await expectNoAxeViolations(page);
    await page.setViewportSize(DESKTOP);

    // A real event: the member locks their card, which writes a notification to the bell.
    await page.goto("/dashboard/cards");
    await hydrated(page);
    const card = page.getByRole("region", { name: /^Debit card •••• \d{4}$/ }).first();
    await card.getByRole("button", { name: "Lock card" }).click();
    await expect(card.getByText(/is locked: purchases are declined until you unlock it\./)).toBeVisible(posted);

    // The push-delivery job (every minute) posts it to the device's push service.
    await expect.poll(() => pushService.received.length, { timeout: 100_000, intervals: [1_000] }).toBeGreaterThan(0);
    const [request] = pushService.received;
    const claims = verifyVapid(
      request!.headers.authorization,
      Buffer.from(applicationServerKey!, "base64").toString("base64url"),
    );
    expect(claims.aud).toBe(pushService.origin);
    const payload = decryptPush(request!.body, device);
    const message = JSON.parse(payload) as { title: string; body: string; tag: string; url: string };
    expect(message.url).toBe("/dashboard/notifications");
    // The push carries the bell's words, no more.
    await page.goto("/dashboard/notifications");
    await expect(page.getByText(message.title).first()).toBeVisible();

    // Chromium's service worker gets that payload and shows it.
    await page.goto("/settings/account#push");
    await hydrated(page);
    const cdp = await page.context().newCDPSession(page);
    const id = await registrationId(cdp);
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: new URL(baseURL!).origin,
      registrationId: id,
      data: payload,
    });
    await expect
      .poll(
        () =>
          page.evaluate(async () => {
            const registration = await navigator.serviceWorker.getRegistration("/");
            const shown = (await registration?.getNotifications()) ?? [];
            return shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag }));
          }),
        { timeout: 15_000 },
      )
      .toEqual([{ title: message.title, body: message.body, tag: message.tag }]);

    // Turned off on this device: removed from the member's devices.
    await section.getByRole("button", { name: "Turn off on this device" }).click();
    await expect(section.getByText("Notifications are off for this device.")).toBeVisible(posted);
    await expect(section.getByText("No device shows your notifications yet.")).toBeVisible();
    expect(errors).toEqual([]);
  } finally {
    await pushService.close();
  }
});
