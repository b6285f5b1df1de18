import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import { AppProcess, Browser, serverDatabase } from "../app-server";
import { fakeSmtpServer } from "../smtp-support";
import { DEMO_SIGNINS } from "~/server/auth/demo-signins.server";

/**
 * A restore drill starts a copy of the bank on real members' data (docs/operations.md#the-restore-drill).
 * With MUTUAL_DRILL=1 the copy sends no email (even with the live SMTP_URL in its environment),
 * runs no scheduled job, and says on every page that it is a drill copy. Before, nothing could
 * stop a drill emailing real members.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-drill-"));
const smtp = fakeSmtpServer({});
let app: AppProcess | undefined;
let closeDatabase: (() => Promise<void>) | undefined;
afterAll(async () => {
  await app?.stop("SIGKILL");
  await closeDatabase?.();
  smtp.server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

it("a drill copy sends no email, runs no job and says what it is on every page", { timeout: 600_000 }, async () => {
  await new Promise<void>((resolve) => smtp.server.listen(0, "127.0.0.1", resolve));
  const smtp_port = (smtp.server.address() as AddressInfo).port;
  const database = await serverDatabase(path.join(work, "data"));
  closeDatabase = database.close;
  app = new AppProcess({
    ...database.env,
    HOST: "127.0.0.1",
    SMTP_URL: `smtp://127.0.0.1:${smtp_port}`,
    MUTUAL_DRILL: "1",
  });
  await app.serving();
  await app.waitForLine(
    /restore drill \(MUTUAL_DRILL=1\): scheduled jobs are off and no email is sent/,
    "the drill's log line",
  );

  const home = await fetch(`${app.base}/`);
  expect(await home.text()).toContain(
    "Restore drill copy — not the live bank. No email is sent and no scheduled job runs.",
  );

  // A sign-in code is written to the outbox (staff can read it there) but never reaches the relay.
  const member = DEMO_SIGNINS.find((p) => p.kind === "member")!;
  const browser = new Browser(app.base);
  const password_step = await browser.request("/login", {
    intent: "password",
    email: member.email,
    password: member.password,
  });
  expect(password_step.status).toBeLessThan(400);
  // The code step tells the truth: nothing was emailed (it said "We sent a 6-digit code").
  const code_step = (await browser.request("/login")).body;
  expect(code_step).toContain("no email is sent from this");
  expect(code_step).not.toContain("We sent");
  await vi.waitFor(
    async () => {
      const inbox = await fetch(`${app!.base}/demo/inbox.data?to=${encodeURIComponent(member.email)}`);
      expect(await inbox.text(), "the sign-in code is in the outbox").toContain("sign_in_code");
    },
    { timeout: 15_000, interval: 250 },
  );
  // Delivery starts as the message is written: a second is far more than the fake relay needs.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(smtp.received).toEqual([]);
  // The runner logs "job runner started" as it starts (beside the server, not awaited): by now it
  // would have.
  expect(
    app.lines.filter((line) => line.includes("job runner started") || line.includes('"component":"jobs"')),
  ).toEqual([]);
});
