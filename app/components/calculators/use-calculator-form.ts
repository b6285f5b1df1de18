import { useEffect, useMemo, useRef, useState } from "react";
import type { z } from "zod";
import { checkValues, focusFirstInvalid, type FieldMessages } from "~/components/ui";

/** How long typing must pause before a field's message appears. */
const MESSAGE_DELAY_MS = 600;

/**
 * State for a calculator form that works both ways: without JavaScript it is a GET form whose
 * query the server validates and computes; with JavaScript the same schema runs as the person
 * types, so results follow live.
 *
 * A field's message appears once typing in it pauses (or at once on submit, or when the server
 * flagged it), never on blur: a message appearing as focus leaves would move the button being
 * clicked. While the fields are wrong, the results of the last valid entry stay on screen,
 * marked as such, so the page does not jump about mid-typing.
 */
export function useCalculatorForm<S extends z.ZodType, K extends string>(schema: S, initial: Record<K, string>, serverErrors: FieldMessages) {
  const [values, setValues] = useState(initial);
  const [shown, setShown] = useState<Partial<Record<string, boolean>>>(() => Object.fromEntries(Object.keys(serverErrors).map((k) => [k, true])));
  const [focusRequest, setFocusRequest] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const checked = useMemo(() => checkValues(schema, values), [schema, values]);
  const current = checked.value;
  const [lastValid, setLastValid] = useState<z.output<S> | null>(current);
  if (current !== null && current !== lastValid) setLastValid(current);
  const liveErrors = checked.messages;

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
    if (current !== null) return;
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
