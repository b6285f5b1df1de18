import { useEffect, useMemo, useRef, useState } from "react";
import type { z } from "zod";
import { focusFirstInvalid, type FieldMessages } from "~/components/ui";

/** How long typing must pause before a field's message appears. */
const MESSAGE_DELAY_MS = 600;

/** What the server made of the entry the page was drawn with (the same schema, in the loader). */
export interface CalculatorEntry<K extends string, T> {
  values: Record<K, string>;
  /** Messages by field; none when the entry is valid. */
  errors: FieldMessages;
  /** The entry as figures to compute from, or null when a field is wrong. */
  input: T | null;
}

type Check<T> = (values: Record<string, string>) => { value: T | null; messages: FieldMessages };

/**
 * State for a calculator form that works both ways: without JavaScript it is a GET form whose
 * query the server validates and computes; with JavaScript the same schema runs as the person
 * types, so results follow live.
 *
 * The schema (with Zod) is loaded once the page is up (`loadSchema`), so that the page draws and
 * computes without it: until it arrives, the results are those of the entry the server checked.
 *
 * A field's message appears once typing in it pauses (or at once on submit, or when the server
 * flagged it), never on blur: a message appearing as focus leaves would move the button being
 * clicked. While the fields are wrong, the results of the last valid entry stay on screen,
 * marked as such, so the page does not jump about mid-typing.
 */
export function useCalculatorForm<S extends z.ZodType, K extends string>(
  loadSchema: () => Promise<S>,
  entry: CalculatorEntry<K, z.output<S>>,
) {
  const { values: initial, errors: serverErrors, input: serverInput } = entry;
  const [values, setValues] = useState(initial);
  const [check, setCheck] = useState<Check<z.output<S>> | null>(null);
  const [shown, setShown] = useState<Partial<Record<string, boolean>>>(() =>
    Object.fromEntries(Object.keys(serverErrors).map((k) => [k, true])),
  );
  const [focusRequest, setFocusRequest] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  useEffect(() => {
    let mounted = true;
    Promise.all([import("~/components/ui/form-check"), loadSchema()])
      .then(([checks, schema]) => {
        if (mounted) setCheck(() => (entered: Record<string, string>) => checks.checkValues(schema, entered));
      })
      // Not loaded (offline): the form stays a GET form that the server checks and computes.
      .catch(() => undefined);
    return () => {
      mounted = false;
    };
  }, [loadSchema]);

  // Before the checks arrive, only the entry the server checked has a result.
  const checked = useMemo(
    () => (check ? check(values) : values === initial ? { value: serverInput, messages: serverErrors } : null),
    [check, values, initial, serverInput, serverErrors],
  );
  const current = checked?.value ?? null;
  const [lastValid, setLastValid] = useState<z.output<S> | null>(current);
  if (current !== null && current !== lastValid) setLastValid(current);
  const liveErrors = checked?.messages ?? {};

  useEffect(() => {
    if (focusRequest > 0) focusFirstInvalid(formRef.current);
  }, [focusRequest]);
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach((t) => clearTimeout(t));
  }, []);

  const field = (name: K) => ({
    name,
    value: values[name],
    onChange: (value: string) => {
      setValues((v) => ({ ...v, [name]: value }));
      setShown((s) => (s[name] ? { ...s, [name]: false } : s));
      clearTimeout(timers.current.get(name));
      timers.current.set(
        name,
        setTimeout(() => setShown((s) => ({ ...s, [name]: true })), MESSAGE_DELAY_MS),
      );
    },
    error: shown[name] ? liveErrors[name] : undefined,
  });

  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    // A valid entry, or checks not here yet: the GET form goes to the server, which computes it.
    if (current !== null || !check) return;
    event.preventDefault();
    timers.current.forEach((t) => clearTimeout(t));
    setShown(Object.fromEntries(Object.keys(values).map((k) => [k, true])));
    setFocusRequest((n) => n + 1);
  };

  return {
    formRef,
    field,
    onSubmit,
    /** The entry to show results for: the current one, or the last valid one while typing. */
    input: current ?? lastValid,
    /** True when the results shown are for an earlier entry than what the fields say. */
    stale: current === null && lastValid !== null,
  };
}
