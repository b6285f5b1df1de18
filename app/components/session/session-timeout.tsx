import { useCallback, useEffect, useRef, useState } from "react";
import { useSubmit } from "react-router";
import { Dialog, Heading, Modal, ModalOverlay } from "react-aria-components";
import { Clock } from "lucide-react";
import { Button } from "~/components/ui";

/** A minute's warning before the 15-minute idle sign-out (docs/product.md#sessions). */
const WARNING_MS = 60 * 1000;

interface SessionStatus {
  signed_in: boolean;
  expires_in_ms: number;
}

/** GET: time left, not counted as activity. POST ("Stay signed in"): counts as activity. */
async function sessionStatus(method: "GET" | "POST"): Promise<SessionStatus | null> {
  try {
    const response = await fetch("/session", {
      method,
      credentials: "same-origin",
      headers: method === "POST" ? { "Content-Type": "application/x-www-form-urlencoded" } : undefined,
      body: method === "POST" ? "" : undefined,
    });
    if (response.status === 401) return { signed_in: false, expires_in_ms: 0 };
    if (!response.ok) return null;
    return (await response.json()) as SessionStatus;
  } catch {
    return null;
  }
}

/**
 * The idle warning for signed-in pages. Give it the loader's `expires_in_ms` and `ends_absolutely`
 * (from the session helpers): a minute before the end it asks "Are you still there?"; "Stay
 * signed in" posts to /session, which counts as activity; at the end it signs out (POST /logout).
 * Before warning, it asks the server how much time is really left, so activity in another tab
 * counts. New loader data (a navigation) starts the clock again.
 */
export function SessionTimeout({
  expiresInMs,
  endsAbsolutely = false,
}: {
  expiresInMs: number;
  endsAbsolutely?: boolean;
}) {
  return (
    <SessionClock key={`${expiresInMs}:${endsAbsolutely}`} expiresInMs={expiresInMs} endsAbsolutely={endsAbsolutely} />
  );
}

function SessionClock({ expiresInMs, endsAbsolutely }: { expiresInMs: number; endsAbsolutely: boolean }) {
  const [warning, setWarning] = useState<{ deadline: number; absolute: boolean } | null>(null);
  const [now, setNow] = useState(0);
  const [extending, setExtending] = useState(false);
  const submit = useSubmit();
  const signedOut = useRef(false);
  const reschedule = useRef<(deadline: number, absolute: boolean) => void>(() => undefined);

  const signOut = useCallback(
    (reason: "idle" | "absolute" | "user") => {
      if (signedOut.current) return;
      signedOut.current = true;
      submit(reason === "user" ? {} : { reason }, { method: "post", action: "/logout" });
    },
    [submit],
  );

  useEffect(() => {
    const timers: ReturnType<typeof setTimeout>[] = [];
    const schedule = (deadline: number, absolute: boolean) => {
      timers.splice(0).forEach(clearTimeout);
      timers.push(
        setTimeout(
          async () => {
            const status = await sessionStatus("GET");
            if (!status) return; // Unreachable server: the sign-out at the deadline still happens.
            if (!status.signed_in) return signOut(absolute ? "absolute" : "idle");
            const serverDeadline = Date.now() + status.expires_in_ms;
            if (status.expires_in_ms > WARNING_MS + 5000) return schedule(serverDeadline, absolute);
            setNow(Date.now());
            setWarning({ deadline: serverDeadline, absolute });
          },
          Math.max(0, deadline - WARNING_MS - 2000 - Date.now()),
        ),
        setTimeout(() => signOut(absolute ? "absolute" : "idle"), Math.max(0, deadline - Date.now())),
      );
    };
    reschedule.current = schedule;
    schedule(Date.now() + expiresInMs, endsAbsolutely);
    return () => timers.splice(0).forEach(clearTimeout);
  }, [expiresInMs, endsAbsolutely, signOut]);

  useEffect(() => {
    if (!warning) return;
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, [warning]);

  const staySignedIn = async () => {
    setExtending(true);
    const status = await sessionStatus("POST");
    setExtending(false);
    if (!status?.signed_in) return signOut("idle");
    const absolute = status.expires_in_ms < WARNING_MS * 2;
    setWarning(null);
    reschedule.current(Date.now() + status.expires_in_ms, absolute);
  };

  if (!warning) return null;
  const seconds = Math.max(0, Math.ceil((warning.deadline - now) / 1000));
  return (
    <ModalOverlay
      isOpen
      isDismissable={false}
      isKeyboardDismissDisabled
      className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/50 p-4 backdrop-blur-sm"
    >
      <Modal className="w-full max-w-md rounded-2xl bg-white p-6 shadow-2xl outline-none sm:p-8">
        <Dialog role="alertdialog" className="outline-none">
          <span className="flex size-12 items-center justify-center rounded-xl bg-amber-100 text-amber-900">
            <Clock className="size-6" aria-hidden="true" />
          </span>
          <Heading slot="title" className="mt-4 text-2xl font-semibold tracking-tight text-brand-800">
            {warning.absolute ? "Your session is about to end" : "Are you still there?"}
          </Heading>
          <p className="mt-3 text-slate-700">
            {warning.absolute
              ? `For your security, sessions last at most 12 hours. You will be signed out in ${seconds} seconds; sign in again to continue.`
              : `For your security, you will be signed out in ${seconds} seconds because there has been no activity for a while.`}
          </p>
          <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
            <Button variant="secondary" onPress={() => signOut("user")}>
              Sign out now
            </Button>
            {warning.absolute ? null : (
              <Button autoFocus isPending={extending} pendingLabel="One moment…" onPress={() => void staySignedIn()}>
                Stay signed in
              </Button>
            )}
          </div>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
