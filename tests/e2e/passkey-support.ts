import type { CDPSession, Page } from "@playwright/test";

/**
 * What the passkey specs share (passkeys.spec.ts for a member, passkeys-staff.spec.ts for staff):
 * Chromium's virtual authenticator, and a section's screenshot without the sticky top bar over it.
 */

/**
 * A platform authenticator with user verification, as a phone's fingerprint or a laptop's Touch ID
 * is (CDP WebAuthn domain); it answers every prompt of the page's context at once.
 */
export async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/**
 * The sticky top bar would cover a section scrolled under it in an element screenshot. Set through
 * the CSSOM (the page's CSP refuses an injected style sheet).
 */
export async function unstickHeader(page: Page) {
  await page.evaluate(() => {
    for (const header of document.querySelectorAll<HTMLElement>("header")) header.style.position = "static";
  });
}
