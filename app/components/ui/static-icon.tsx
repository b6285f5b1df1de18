import { createElement, type FunctionComponent, type ReactElement } from "react";
import type { LucideIcon } from "lucide-react";

/**
 * Decorative lucide icons, rendered cheaply (the public site's shell and home page, the member app).
 *
 * A lucide-react icon rebuilds its whole SVG description (attribute names, class merging, one
 * element per path) on every render; the home page draws about 40 of them, which was a sixth of
 * its server render time (bench/README.md, "Home page"). These icons draw the same, but the SVG
 * element for a given class is built once and reused, and its content is one prepared string.
 * React writes every attribute of an element as five pieces of output, so the attributes every
 * lucide icon shares (fill, stroke and the stroke's width, caps and joins) are on a <g> inside
 * that string, from which the paths inherit them exactly as they would from the <svg>; the
 * `xmlns` that React would write is not needed in HTML. Only for decorative use (`aria-hidden`),
 * which is how these pages use them; anything else (a size, a title, a role, a fill or
 * stroke class, which the <g> would override) uses lucide-react directly.
 */
export type StaticIcon = FunctionComponent<{ className?: string; "aria-hidden"?: boolean | "true" }>;

interface IconData {
  name: string;
  aliases?: string[];
  node: [string, Record<string, unknown>][];
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** lucide's data for an icon (name, aliases, paths), from the component it made; null if it is not the shape we know. */
function iconData(icon: LucideIcon): IconData | null {
  const render = (icon as unknown as { render?: (props: object, ref: null) => { props?: { icon?: unknown } } }).render;
  const data = typeof render === "function" ? (render({}, null)?.props?.icon as IconData | undefined) : undefined;
  const plain = (attributes: Record<string, unknown>) =>
    Object.entries(attributes).every(
      ([name, value]) =>
        name === "key" || (/^[a-z][a-z0-9]*$/.test(name) && (typeof value === "string" || typeof value === "number")),
    );
  if (!data || typeof data.name !== "string" || !Array.isArray(data.node)) return null;
  // Only flat elements with lower-case attribute names: exactly what React would write for them.
  if (
    !data.node.every(
      (child) => Array.isArray(child) && child.length === 2 && typeof child[0] === "string" && plain(child[1]),
    )
  )
    return null;
  return data;
}

export function staticIcon(icon: LucideIcon): StaticIcon {
  const data = iconData(icon);
  if (!data) {
    const Fallback = ({
      className,
      "aria-hidden": hidden = true,
    }: {
      className?: string;
      "aria-hidden"?: boolean | "true";
    }) => createElement(icon, { className, "aria-hidden": hidden });
    return Fallback;
  }
  const paths = data.node
    .map(([tag, attributes]) => {
      const written = Object.entries(attributes)
        .filter(([name]) => name !== "key")
        .map(([name, value]) => ` ${name}="${escapeAttribute(String(value))}"`)
        .join("");
      return `<${tag}${written}></${tag}>`;
    })
    .join("");
  // The attributes lucide gives every icon, on a group that all its paths inherit them from.
  const inner = {
    __html: `<g fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${paths}</g>`,
  };
  const baseClasses = [
    "lucide",
    `lucide-${data.name}`,
    ...(data.aliases ?? []).filter((alias) => alias.trim() !== "").map((alias) => `lucide-${alias}`),
  ];
  const elements = new Map<string, ReactElement>();
  const Icon: StaticIcon = ({ className = "" }) => {
    let element = elements.get(className);
    if (!element) {
      // lucide's class list: its own classes, then the given ones, each once.
      const classes = [...new Set([...baseClasses, ...className.split(/\s+/).filter(Boolean)])].join(" ");
      element = createElement("svg", {
        width: 24,
        height: 24,
        viewBox: "0 0 24 24",
        className: classes,
        "aria-hidden": "true",
        dangerouslySetInnerHTML: inner,
      });
      // Class names are written in the source, so this stays small; never grow without bound.
      if (elements.size < 64) elements.set(className, element);
    }
    return element;
  };
  Icon.displayName = `StaticIcon(${data.name})`;
  return Icon;
}
