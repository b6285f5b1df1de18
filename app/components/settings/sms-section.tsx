import { useFetcher } from "react-router";
import { MessageSquareText } from "lucide-react";
import { Button, SchemaForm, TextField, useSchemaForm } from "~/components/ui";
import { smsCodeSchema, smsNumberSchema } from "~/domain/sms";
import { ChannelChoices } from "./channel-choices";
import { SettingsSection } from "./settings-section";
import { StatusMessage } from "./status-message";
import type { AccountActionData, SmsData } from "./types";

const ACTION = "/settings/account";

/**
 * Text messages (docs/product.md#text-messages), shown only with an SMS provider configured: add a
 * mobile number, confirm it with the 6-digit code texted to it, then choose which notifications are
 * texted. The number is shown masked; to change it, add another (it replaces this one).
 */
export function SmsSection({ sms, pageResult }: { sms: SmsData; pageResult?: AccountActionData }) {
  const fetcher = useFetcher<AccountActionData>({ key: "settings-account-sms" });
  const result = fetcher.data ?? (pageResult?.intent !== "channel-choices" ? pageResult : undefined);
  const pending = fetcher.state !== "idle";
  const number = sms.number;
  return (
    <SettingsSection
      id="sms"
      title="Text messages"
      icon={MessageSquareText}
      description="The notifications you choose, texted to your mobile phone: the same words as in the bell. Your carrier's message rates may apply."
    >
      <div className="space-y-4">
        {number?.verified ? (
          <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
            <p className="text-sm text-slate-800">
              Texts go to <span className="font-medium">{number.masked}</span>.
            </p>
            <fetcher.Form method="post" action={ACTION}>
              <input type="hidden" name="intent" value="sms-remove" />
              <Button type="submit" variant="secondary" isPending={pending} pendingLabel="Removing…">
                Remove number
              </Button>
            </fetcher.Form>
          </div>
        ) : number ? (
          <VerifyForm fetcher={fetcher} masked={number.masked} expires={number.code_expires_label} result={result} />
        ) : null}
        <StatusMessage result={result} />
        {!number?.verified ? (
          // A new form once a code was sent (key), so the number typed is not left in "Another mobile number".
          <AddNumberForm
            key={number ? "another" : "first"}
            fetcher={fetcher}
            result={result}
            replacing={Boolean(number)}
          />
        ) : null}
        {number?.verified ? (
          <ChannelChoices
            channel="sms"
            choices={sms.choices}
            title="Text me about"
            pageResult={pageResult?.intent === "channel-choices" ? pageResult : undefined}
          />
        ) : null}
      </div>
    </SettingsSection>
  );
}

type SmsFetcher = ReturnType<typeof useFetcher<AccountActionData>>;

function AddNumberForm({
  fetcher,
  result,
  replacing,
}: {
  fetcher: SmsFetcher;
  result?: AccountActionData;
  replacing: boolean;
}) {
  const form = useSchemaForm(smsNumberSchema, { lastResult: result?.intent === "sms-add" ? result.reply : undefined });
  return (
    <SchemaForm
      form={form}
      fetcher={fetcher}
      method="post"
      action={ACTION}
      className="space-y-3"
      aria-label={replacing ? "Use another mobile number" : "Add a mobile number"}
    >
      <input type="hidden" name="intent" value="sms-add" />
      <TextField
        name="number"
        label={replacing ? "Another mobile number" : "Mobile number"}
        type="tel"
        autoComplete="tel"
        inputMode="tel"
        description="With + and the country code, such as +1 202 555 0143. We text it a code to confirm it is yours."
        isRequired={!replacing}
        inputClassName="max-w-64"
      />
      <Button
        type="submit"
        variant={replacing ? "secondary" : "primary"}
        isPending={fetcher.state !== "idle"}
        pendingLabel="Sending…"
      >
        Send code
      </Button>
    </SchemaForm>
  );
}

function VerifyForm({
  fetcher,
  masked,
  expires,
  result,
}: {
  fetcher: SmsFetcher;
  masked: string;
  expires: string | null;
  result?: AccountActionData;
}) {
  const form = useSchemaForm(smsCodeSchema, { lastResult: result?.intent === "sms-verify" ? result.reply : undefined });
  return (
    <SchemaForm
      form={form}
      fetcher={fetcher}
      method="post"
      action={ACTION}
      className="space-y-3 rounded-lg bg-slate-50 p-4"
      aria-label="Confirm your mobile number"
    >
      <input type="hidden" name="intent" value="sms-verify" />
      <p className="text-sm text-slate-700">
        We texted a 6-digit code to <span className="font-medium">{masked}</span>
        {expires ? `; it works until ${expires}` : ""}.
      </p>
      <TextField
        name="code"
        label="6-digit code from the text"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        pattern="\d{6}"
        isRequired
        inputClassName="max-w-40 font-mono tracking-widest"
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" isPending={fetcher.state !== "idle"} pendingLabel="Checking…">
          Confirm number
        </Button>
        <Button type="submit" variant="secondary" name="intent" value="sms-resend" formNoValidate>
          Send a new code
        </Button>
      </div>
    </SchemaForm>
  );
}
