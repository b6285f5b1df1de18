import { expect, test, type Page } from "./fixtures";
import { ALEX, DESKTOP, PHONE, STAFF, hydrated, openMemberDetails } from "./support";

/**
 * Every member and back-office page walked with Tab, at 1440 and 375 px (issue 36,
 * docs/product.md#accessibility): at each stop the focused control (or, for a visually hidden
 * input, the label that stands for it) must show the app's focus ring: an outline of 2 px or more,
 * 3:1 or more against the background behind it, not cut off by a box that clips its content, and
 * the control not hidden under something else (a sticky header). An outline removed by a
 * component (`outline-none`), a focus shown only by a tint, or none at all fails here.
 */
const MEMBER_PAGES = [
  "/dashboard",
  "/dashboard/transactions",
  "/dashboard/notifications",
  "/dashboard/payments",
  "/dashboard/statements",
  "/dashboard/deposit",
  "/dashboard/bill-pay",
  "/dashboard/cards",
  "/settings/profile",
  "/settings/account",
];
/** `{member}` is Alex's id: his details pane, his Add Transactions and Post card transaction pages. */
const BACK_OFFICE_PAGES = [
  "/admin",
  "/admin?member={member}",
  "/admin/members/{member}/transactions",
  "/admin/members/{member}/cards",
  "/admin/audit",
  "/admin/outbox",
  "/admin/messages",
  "/admin/jobs",
  "/admin/payments",
  "/admin/queues",
  "/admin/reset-transfers",
];
/**
 * A page with more stops than this is cut short: past it are more rows of a long list (the
 * dashboard's, the member detail's transactions), the same controls again, and each stop costs
 * two round trips to the browser.
 */
const MAX_STOPS = 100;

type Stop = { done: true } | { done: false; key: string; name: string; problem: string | null };

/** Runs in the page: what is focused and, if its ring cannot be seen, why. */
function inspectFocus(): Stop {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body || el === document.documentElement) return { done: true };
  const role = el.getAttribute("role");
  const label = (el.getAttribute("aria-label") ?? el.textContent ?? (el as HTMLInputElement).name ?? "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 50);
  const name = `<${el.tagName.toLowerCase()}${role ? ` role=${role}` : ""}> "${label}"`;
  const path: string[] = [];
  for (let n: Element | null = el; n && n !== document.body; n = n.parentElement)
    path.unshift(`${n.tagName}${n.parentElement ? [...n.parentElement.children].indexOf(n) : 0}`);
  const key = path.join("/");

  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 1;
  const context = canvas.getContext("2d", { willReadFrequently: true })!;
  const rgba = (color: string): [number, number, number, number] => {
    context.clearRect(0, 0, 1, 1);
    context.fillStyle = "#000";
    context.fillStyle = color;
    context.fillRect(0, 0, 1, 1);
    const d = context.getImageData(0, 0, 1, 1).data;
    return [d[0]!, d[1]!, d[2]!, d[3]! / 255];
  };
  const luminance = ([r, g, b]: number[]) => {
    const lin = (v: number) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
  };
  const contrast = (a: number[], b: number[]) => {
    const [l1, l2] = [luminance(a), luminance(b)];
    return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
  };
  /** The colours behind `from` (its first opaque background, or each colour of a gradient), over white. */
  const backgroundsBehind = (from: Element | null): number[][] => {
    for (let n = from; n; n = n.parentElement) {
      const style = getComputedStyle(n);
      const gradient = style.backgroundImage.match(/(?:rgba?|oklab|oklch|color|lab|lch)\([^()]*\)/g);
      if (gradient) return gradient.map((c) => rgba(c).slice(0, 3));
      const [r, g, b, a] = rgba(style.backgroundColor);
      if (a > 0.5) return [[r, g, b]];
    }
    return [[255, 255, 255]];
  };

  // The ring's look once its transition (a button's colours fade in 150 ms) has run.
  for (const animation of document.getAnimations()) if (animation instanceof CSSTransition) animation.finish();
  // A visually hidden input (checkbox, radio, switch: itself or its wrapper 1 px and clipped)
  // shows focus on the label that stands for it.
  const hidden = (n: HTMLElement) => {
    for (let p: HTMLElement | null = n, level = 0; p && level < 2; p = p.parentElement, level++) {
      const r = p.getBoundingClientRect();
      if (r.width <= 2 || r.height <= 2 || getComputedStyle(p).clipPath !== "none") return true;
    }
    return false;
  };
  let ring: HTMLElement = el;
  if (hidden(el)) {
    const stand = el.closest<HTMLElement>("label, [data-focus-visible]");
    if (!stand) return { done: false, key, name, problem: "focused but has no size and no label to show focus" };
    ring = stand;
  }
  // The ring may be drawn by the element or by a box drawn inside it for it (a switch's track).
  // (A hidden input's own outline, clipped to nothing, is not one.)
  const drawers = ring === el ? [el] : [ring, ...ring.querySelectorAll<HTMLElement>("*")].filter((n) => n !== el);
  const drawer = drawers.find((n) => {
    const s = getComputedStyle(n);
    return s.outlineStyle !== "none" && Number.parseFloat(s.outlineWidth) >= 2 && rgba(s.outlineColor)[3] > 0.5;
  });
  if (!drawer) {
    const s = getComputedStyle(ring);
    return {
      done: false,
      key,
      name,
      problem: `no focus ring (outline ${s.outlineStyle} ${s.outlineWidth}, box-shadow ${s.boxShadow})`,
    };
  }
  const style = getComputedStyle(drawer);
  const offset = Number.parseFloat(style.outlineOffset);
  const width = Number.parseFloat(style.outlineWidth);
  const outline = rgba(style.outlineColor).slice(0, 3);
  // An outline drawn outside lies on the parent's background; one drawn inside on the element's own.
  const behind = backgroundsBehind(offset + width > 0 ? drawer.parentElement : drawer);
  const worst = Math.min(...behind.map((b) => contrast(outline, b)));
  if (worst < 3) return { done: false, key, name, problem: `ring contrast ${worst.toFixed(2)}:1 (under 3:1)` };

  const box = drawer.getBoundingClientRect();
  const out = Math.max(0, offset + width);
  const ringBox = { left: box.left - out, top: box.top - out, right: box.right + out, bottom: box.bottom + out };
  for (let n = drawer.parentElement; n && n !== document.body; n = n.parentElement) {
    const s = getComputedStyle(n);
    if (s.overflowX === "visible" && s.overflowY === "visible") continue;
    const r = n.getBoundingClientRect();
    const inner = {
      left: r.left + n.clientLeft,
      top: r.top + n.clientTop,
      right: r.left + n.clientLeft + n.clientWidth,
      bottom: r.top + n.clientTop + n.clientHeight,
    };
    const cut =
      (s.overflowX !== "visible" && (ringBox.left < inner.left - 0.5 || ringBox.right > inner.right + 0.5)) ||
      (s.overflowY !== "visible" && (ringBox.top < inner.top - 0.5 || ringBox.bottom > inner.bottom + 0.5));
    if (cut)
      return { done: false, key, name, problem: `ring cut off by <${n.tagName.toLowerCase()} class="${n.className}">` };
  }
  const x = Math.min(Math.max(box.left + box.width / 2, 0), window.innerWidth - 1);
  const y = Math.min(Math.max(box.top + box.height / 2, 0), window.innerHeight - 1);
  const top = document.elementFromPoint(x, y);
  if (top && !drawer.contains(top) && !top.contains(drawer) && !ring.contains(top))
    return { done: false, key, name, problem: `hidden under <${top.tagName.toLowerCase()} class="${top.className}">` };
  return { done: false, key, name, problem: null };
}

/** Walks `path` with Tab from the top; returns each stop whose ring cannot be seen, and how many stops there were. */
async function walk(page: Page, path: string): Promise<{ problems: string[]; stops: number }> {
  await page.goto(path);
  await hydrated(page);
  const problems: string[] = [];
  const seen = new Set<string>();
  let stops = 0;
  for (; stops < MAX_STOPS; stops++) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(inspectFocus);
    if (stop.done || seen.has(stop.key)) break;
    seen.add(stop.key);
    if (stop.problem) problems.push(`${path} stop ${stops + 1} ${stop.name}: ${stop.problem}`);
  }
  return { problems, stops };
}

for (const [area, person, pages] of [
  ["member", ALEX, MEMBER_PAGES],
  ["back-office", STAFF, BACK_OFFICE_PAGES],
] as const) {
  test.describe(`Tab through every ${area} page`, () => {
    test.use({ signedInAs: person });
    /** Alex's id, for the back-office pages about him (read once per worker). */
    let member = "";

    for (const path of pages) {
      test(`${path}: every stop shows a ring at 1440 and 375 px`, async ({ page }) => {
        test.setTimeout(120_000);
        if (path.includes("{member}") && !member) {
          await openMemberDetails(page, ALEX.email, { listedAs: ALEX.name });
          member = new URL(page.url()).searchParams.get("member") ?? "";
          expect(member).not.toBe("");
        }
        const address = path.replaceAll("{member}", encodeURIComponent(member));
        const problems: string[] = [];
        for (const [label, viewport] of [
          ["1440", DESKTOP],
          ["375", PHONE],
        ] as const) {
          await page.setViewportSize(viewport);
          const result = await walk(page, address);
          expect(result.stops, `${label} px: stops walked`).toBeGreaterThan(3);
          problems.push(...result.problems.map((p) => `${label} px: ${p}`));
        }
        expect(problems).toEqual([]);
      });
    }
  });
}
