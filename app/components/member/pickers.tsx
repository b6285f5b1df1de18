import { useMemo, useState } from "react";
import {
  ComboBox,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Button as AriaButton,
  FieldError,
  Text,
} from "react-aria-components";
import { ChevronsUpDown } from "lucide-react";
import { COUNTRIES, searchCountries } from "~/domain/countries";
import { CURRENCIES, searchCurrencies } from "~/domain/currencies";
import { formatCents } from "~/domain/money";
import { useHydrated } from "~/components/ui/use-hydrated";
import { controlClass, cx, descriptionClass, errorClass, labelClass } from "~/components/ui/field-styles";
import { useFieldError } from "~/components/ui";

/** An account a transfer can come from or go to, as the transfer forms get it. */
export interface AccountChoice {
  id: number;
  type_label: string;
  account_number: string;
  available_cents: number;
}

/**
 * The From / To choices of the transfer forms: "Checking ••1040 · $23,692.84", the kind, the last
 * four digits and the available balance (what a transfer can spend). A closed native <select>
 * shows its choice on one line that cannot wrap, so the text is kept short enough to show whole
 * in a phone's full-width field (about 250 px of text at 375 px) and in the two-column form at
 * desktop width: "Personal" (every member account here is personal) and the word "available"
 * cost the balance its last digits ("($23,22").
 */
export function accountChoices(accounts: readonly AccountChoice[]): { value: string; label: string }[] {
  return accounts.map((a) => ({
    value: String(a.id),
    label: `${a.type_label.replace(/^Personal /, "")} ••${a.account_number.slice(-4)} · ${formatCents(a.available_cents)}`,
  }));
}

interface Option {
  code: string;
  name: string;
  disabled?: boolean;
}

interface PickerProps {
  name: string;
  label: string;
  defaultValue?: string;
  description?: string;
  error?: string;
  onChange?: (code: string) => void;
}

/**
 * A searchable picker (ISO 3166 countries, ISO 4217 currencies): a React Aria ComboBox once
 * JavaScript runs (type a name or a code), a native <select> before, so the form works either way.
 * Both post the code under `name`.
 */
function SearchablePicker({
  name,
  label,
  defaultValue,
  description,
  error,
  onChange,
  options,
  search,
}: PickerProps & { options: Option[]; search: (query: string) => Option[] }) {
  const hydrated = useHydrated();
  const fieldError = useFieldError(name);
  const message = error ?? fieldError.message;
  const [query, setQuery] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(defaultValue ?? null);
  const items = useMemo(() => {
    const selectedOption = options.find((o) => o.code === selected);
    if (query === null || (selectedOption && query === optionText(selectedOption))) return options;
    const codes = new Set(search(query).map((o) => o.code));
    return options.filter((o) => codes.has(o.code));
  }, [query, selected, options, search]);
  const disabledKeys = options.filter((o) => o.disabled).map((o) => o.code);
  if (!hydrated) {
    return (
      <div className="flex flex-col">
        <label htmlFor={`${name}-native`} className={labelClass}>
          {label}
        </label>
        {description ? <span className={descriptionClass}>{description}</span> : null}
        <select
          id={`${name}-native`}
          name={name}
          defaultValue={defaultValue ?? ""}
          className={cx(controlClass, "mt-1.5")}
          aria-invalid={message ? true : undefined}
        >
          <option value="">Choose…</option>
          {options.map((o) => (
            <option key={o.code} value={o.code} disabled={o.disabled}>
              {optionText(o)}
            </option>
          ))}
        </select>
        {message ? <p className={errorClass}>{message}</p> : null}
      </div>
    );
  }
  return (
    <ComboBox
      name={name}
      formValue="key"
      selectedKey={selected}
      onSelectionChange={(key) => {
        const code = key === null ? null : String(key);
        setSelected(code);
        setQuery(null);
        fieldError.clear();
        if (code) onChange?.(code);
      }}
      onInputChange={setQuery}
      items={items}
      disabledKeys={disabledKeys}
      menuTrigger="focus"
      isInvalid={Boolean(message)}
      validationBehavior="aria"
      className="flex flex-col"
    >
      <Label className={labelClass}>{label}</Label>
      {description ? (
        <Text slot="description" className={descriptionClass}>
          {description}
        </Text>
      ) : null}
      <div className="relative mt-1.5">
        <Input className={cx(controlClass, "pr-10")} placeholder="Type to search" />
        <AriaButton
          aria-label={`Show ${label.toLowerCase()} list`}
          className="absolute inset-y-0 right-0 flex items-center px-3 text-slate-600"
        >
          <ChevronsUpDown className="size-4" aria-hidden="true" />
        </AriaButton>
      </div>
      {message ? <FieldError className={errorClass}>{message}</FieldError> : null}
      <Popover className="max-h-72 w-(--trigger-width) overflow-auto rounded-xl border border-slate-200 bg-white p-1 shadow-xl outline-none">
        <ListBox<Option>
          className="outline-none"
          renderEmptyState={() => <p className="px-3 py-2 text-sm text-slate-600">No match</p>}
        >
          {(o) => (
            <ListBoxItem
              id={o.code}
              textValue={optionText(o)}
              className="flex cursor-pointer items-center justify-between gap-3 rounded-lg px-3 py-2 text-sm text-slate-800 focus-inset data-[disabled]:cursor-not-allowed data-[disabled]:text-slate-500 data-[focused]:bg-slate-100 data-[selected]:font-semibold"
            >
              <span>{o.name}</span>
              <span className="text-xs text-slate-600">{o.disabled ? `${o.code} · no rate` : o.code}</span>
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  );
}

function optionText(o: Option): string {
  return `${o.name} (${o.code})`;
}

const COUNTRY_OPTIONS: Option[] = COUNTRIES.map((c) => ({ code: c.code, name: c.name }));

export function CountryPicker(props: PickerProps) {
  return (
    <SearchablePicker
      {...props}
      options={COUNTRY_OPTIONS}
      search={(q) => searchCountries(q).map((c) => ({ code: c.code, name: c.name }))}
    />
  );
}

/**
 * Currencies; those without a staff-set rate are listed but cannot be chosen
 * (docs/product.md#international).
 */
export function CurrencyPicker({ rated, ...props }: PickerProps & { rated: readonly string[] }) {
  const options = useMemo(() => {
    const set = new Set(rated);
    const list = CURRENCIES.map((c) => ({ code: c.code, name: c.name, disabled: !set.has(c.code) }));
    // Available first, then the rest alphabetically.
    return [...list.filter((o) => !o.disabled), ...list.filter((o) => o.disabled)];
  }, [rated]);
  return (
    <SearchablePicker
      {...props}
      options={options}
      search={(q) => searchCurrencies(q).map((c) => ({ code: c.code, name: c.name }))}
    />
  );
}
