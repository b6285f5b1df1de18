import { Switch } from "react-aria-components";
import { cx } from "~/components/ui/field-styles";

/**
 * An on/off setting: a native checkbox with role="switch" (React Aria), so a server-rendered form
 * carries it without JavaScript; the track's look follows `:checked`, so it is right before
 * hydration too. The track draws the focus ring, from the hidden input's `:focus-visible` (so
 * before hydration too).
 */
export function SettingSwitch({
  name,
  label,
  description,
  defaultSelected,
  isSelected,
  onChange,
  isDisabled,
}: {
  name?: string;
  label: string;
  description?: string;
  defaultSelected?: boolean;
  isSelected?: boolean;
  onChange?: (selected: boolean) => void;
  isDisabled?: boolean;
}) {
  return (
    <Switch
      name={name}
      defaultSelected={defaultSelected}
      isSelected={isSelected}
      onChange={onChange}
      isDisabled={isDisabled}
      className="group flex w-full cursor-pointer items-center justify-between gap-4 py-3 data-[disabled]:cursor-not-allowed data-[disabled]:opacity-60"
    >
      <span className="flex flex-col">
        <span className="text-sm font-medium text-slate-900">{label}</span>
        {description ? <span className="text-sm text-slate-600">{description}</span> : null}
      </span>
      <span
        aria-hidden="true"
        className={cx(
          "relative inline-flex h-6 w-11 shrink-0 items-center rounded-full bg-slate-400 transition-colors motion-reduce:transition-none",
          "group-has-[:checked]:bg-accent-600",
          "group-has-[:focus-visible]:outline-2 group-has-[:focus-visible]:outline-offset-2 group-has-[:focus-visible]:outline-accent-600",
        )}
      >
        <span className="ml-0.5 size-5 rounded-full bg-white shadow transition-transform motion-reduce:transition-none group-has-[:checked]:translate-x-5" />
      </span>
    </Switch>
  );
}
