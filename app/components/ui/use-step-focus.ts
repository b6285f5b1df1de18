import { useEffect, useRef, useState } from "react";

/**
 * Focus for a step that replaces the control that opened it (docs/product.md#accessibility,
 * WCAG 2.4.3): a confirm step in place of Reverse, the code step in place of "Email me a code".
 * Without it the focused control is removed from the page and focus falls to the page's body: a
 * keyboard user starts again from the top.
 *
 *   const step = useStepFocus<HTMLFormElement>(confirming, { reverse: `tx-${id}-reverse` });
 *   <Link id={`tx-${id}-reverse`} …>Reverse</Link>            // while closed
 *   <Form ref={step} …>…<Link>Cancel</Link></Form>             // while open
 *
 * `open` names the open step (null when none; a name, so one hook serves a row with two steps,
 * Post and Reverse), `openers` the id of the control that opens each. When a step opens, focus
 * moves into it: to its element marked `data-step-focus` (a question or heading, given
 * tabIndex={-1}), else its first field, else the step itself. When it closes (Cancel, or done),
 * focus goes back to the control that opened it, if that is on the page again. Either move
 * happens only when focus was lost (on the body, or on an element no longer in the page): a step
 * whose button has autoFocus keeps it, and focus the person has moved elsewhere is never taken.
 */
export function useStepFocus<Step extends HTMLElement = HTMLElement>(
  open: string | null,
  openers: Record<string, string>,
) {
  const step = useRef<Step>(null);
  const previous = useRef(open);
  useEffect(() => {
    const closed = previous.current;
    previous.current = open;
    if (closed === open || !focusLost()) return;
    if (open !== null) focusInto(step.current);
    else if (closed !== null && openers[closed]) document.getElementById(openers[closed])?.focus();
  }, [open, openers]);
  return step;
}

/**
 * The same rule for a dialog that is on the page only while it is open (UrlDialog: its open state
 * is in the URL, so closing it is a navigation that unmounts it): the element focused when it
 * opened (read as it first renders, before the dialog moves focus in) gets focus back when it
 * closes, if focus was lost meanwhile. Opened by the page's address itself, there is none.
 */
export function useReturnFocus() {
  const [opener] = useState(() =>
    typeof document === "undefined" || focusLost() ? null : (document.activeElement as HTMLElement),
  );
  useEffect(
    () => () => {
      // After the dialog's own clean-up (React Aria restores focus in the next frame too).
      if (opener) requestAnimationFrame(() => opener.isConnected && focusLost() && opener.focus());
    },
    [opener],
  );
}

function focusLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body || !active.isConnected;
}

const FIELDS =
  'input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled]), [role="textbox"]';

function focusInto(step: HTMLElement | null) {
  if (!step) return;
  const target = step.querySelector<HTMLElement>("[data-step-focus]") ?? step.querySelector<HTMLElement>(FIELDS);
  if (target) return target.focus();
  if (!step.hasAttribute("tabindex")) step.tabIndex = -1;
  step.focus();
}
