import { expect, type Locator, type Page } from "@playwright/test";

/**
 * Keyboard helpers for the focus tests (keyboard-focus.spec.ts, focus-walk.spec.ts): reach a
 * control with Tab as a person does, measure the ring a focused control shows (pixels or computed
 * style), and say what the focused element is.
 */

/** Presses Tab (Shift+Tab with `back`) until `target` has focus; fails after `limit` presses. */
export async function tabTo(page: Page, target: Locator, { back = false, limit = 150 } = {}) {
  const handle = await target.elementHandle();
  if (!handle) throw new Error(`tabTo: ${target} is not on the page`);
  for (let presses = 0; presses < limit; presses++) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    if (await handle.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`tabTo: ${target} not reached in ${limit} presses (focus on ${await focusedName(page)})`);
}

/** A short description of the focused element: its tag, role and name (for failure messages). */
export async function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return "the page's body";
    const role = el.getAttribute("role");
    const name = (el.getAttribute("aria-label") ?? el.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 60);
    const field = el.getAttribute("name") ? `[name=${el.getAttribute("name")}]` : "";
    return `<${el.tagName.toLowerCase()}${role ? ` role=${role}` : ""}${field}> "${name}"`;
  });
}

/** Expects focus on the page's body (nothing focused): what the tests of lost focus must never see. */
export async function expectFocusNotLost(page: Page) {
  expect(await focusedName(page), "focus fell to the page's body").not.toBe("the page's body");
}

type Box = { x: number; y: number; width: number; height: number };

/** The element's box and 8 px around it (room for a ring drawn outside), within the viewport. */
async function ringClip(target: Locator): Promise<Box> {
  return target.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const x = Math.max(0, Math.floor(r.left - 8));
    const y = Math.max(0, Math.floor(r.top - 8));
    return {
      x,
      y,
      width: Math.min(window.innerWidth, Math.ceil(r.right + 8)) - x,
      height: Math.min(window.innerHeight, Math.ceil(r.bottom + 8)) - y,
    };
  });
}

/** A screenshot of `clip` (viewport coordinates) as base64 PNG, transitions finished, no caret. */
async function shot(page: Page, clip: Box): Promise<string> {
  return (await page.screenshot({ clip, animations: "disabled", caret: "hide" })).toString("base64");
}

/**
 * How many pixels of two same-size PNGs differ by at least 3:1 in contrast (WCAG 1.4.11: the
 * ring against what was there before). Decoded in the page's own canvas (no image library).
 */
async function contrastingPixels(page: Page, before: string, after: string): Promise<number> {
  return page.evaluate(
    async ([a, b]) => {
      const pixels = async (base64: string) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const context = canvas.getContext("2d")!;
        context.drawImage(bitmap, 0, 0);
        return context.getImageData(0, 0, bitmap.width, bitmap.height).data;
      };
      const luminance = (r: number, g: number, b: number) => {
        const lin = (v: number) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
      };
      const [p, q] = [await pixels(a), await pixels(b)];
      let count = 0;
      for (let i = 0; i < p.length && i < q.length; i += 4) {
        const l1 = luminance(p[i]!, p[i + 1]!, p[i + 2]!);
        const l2 = luminance(q[i]!, q[i + 1]!, q[i + 2]!);
        if ((Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05) >= 3) count++;
      }
      return count;
    },
    [before, after] as const,
  );
}

/**
 * The pixels around `target` before focus reaches it, for ringShown. Take it while the control is
 * in sight and not focused, in the state it will have when focused (selected or not).
 */
export async function unfocusedLook(page: Page, target: Locator): Promise<Look> {
  await target.scrollIntoViewIfNeeded();
  const clip = await ringClip(target);
  const scroll = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
  return { clip, scroll, png: await shot(page, clip) };
}
type Look = { clip: Box; scroll: { x: number; y: number }; png: string };

/**
 * Expects the focused `target` to look different from `before` (unfocusedLook) by a ring: at
 * least as many pixels changed by 3:1 or more as the element's width and height together (a 2 px
 * ring all round changes about four times that). A background tint, a colour change of the text
 * or nothing at all fails.
 */
export async function expectRingShown(page: Page, target: Locator, before: Look, what: string) {
  await expect(target).toBeFocused();
  // Tab may have scrolled the page on the way: back to where the unfocused look was taken.
  await page.evaluate(({ x, y }) => window.scrollTo(x, y), before.scroll);
  expect(await ringClip(target), `${what}: the control stayed where it was`).toEqual(before.clip);
  const after = await shot(page, before.clip);
  const changed = await contrastingPixels(page, before.png, after);
  const { width, height } = (await target.boundingBox())!;
  expect(changed, `${what}: pixels that change by 3:1 or more when focused`).toBeGreaterThanOrEqual(
    Math.round(width + height),
  );
}
