import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { Browser, buildDir, freePort, repository, type Inbox } from "../app-server";
import { NGINX, NginxProcess } from "../nginx-process";
import { fakeSmtpServer } from "../smtp-support";
import { onPostgres } from "../test-database";
import { demoInstitution } from "~/config/demo-institution";

/**
 * docs/operations.md followed as an operations engineer follows it on day one, with PostgreSQL and
 * nginx: install, first admin, sign in with the code from a mail catcher, back up, restore into a
 * new database, start a drill copy on it, and upgrade with requests running. The commands are read
 * out of the guide's own code blocks, so a command changed in the guide fails here until this test
 * follows it (each block's commands are listed below, verbatim, with what the test does for each).
 *
 * What the test cannot do as the guide does, and does instead (every such line says why):
 * - root's part: `adduser`, ownership (`-o mutual -g mutual`), `runuser -u mutual` and systemd.
 *   Commands run as the test's own user; an app process runs as the unit runs it (its
 *   EnvironmentFile read by scripts/with-env.mjs, its Environment= lines and ExecStart).
 * - paths: /etc/mutual, /var/lib/mutual and /srv/backups are folders of the test's own; the role and
 *   databases get names of their own, on the CI's PostgreSQL (TEST_DATABASE_URL).
 * - the clone, checkout and build: the repository under test and its build are the release.
 * - nginx: the shipped site's proxy part (tests/integration/nginx-process.ts), without TLS.
 * - the upgrade "from the previous tag": v0.1.0 is the first release, so there is no earlier tag to
 *   upgrade from; the upgrade's migrate and one-at-a-time restarts run with requests going on, and
 *   build-release.test.ts covers the build beside a serving release.
 */
const guide = fs.readFileSync(path.join(repository, "docs/operations.md"), "utf8");
const unit = fs.readFileSync(path.join(repository, "deploy/systemd/mutual@.service"), "utf8");

/** The commands of the first ```sh block after `anchor`: comments and blank lines dropped, `\` lines joined. */
function guideBlock(anchor: string): string[] {
  const at = guide.indexOf(anchor);
  if (at < 0) throw new Error(`docs/operations.md no longer has "${anchor}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(guide.slice(at))?.[1];
  if (!block) throw new Error(`no sh block after "${anchor}"`);
  return block
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.replace(/\s+#\s.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

const tag = crypto.randomBytes(3).toString("hex");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-guide-"));
const role = `mutual_guide_${tag}`;
const database = `mutual_guide_${tag}`;
// A password with the characters the guide says to percent-encode in DATABASE_URL.
const role_password = `Guide&pass/${tag}#1`;
const admin = { email: `ops-${tag}@lakesidetcu.org`, password: "Guide-Admin-Pass-1" };

/** The CI's PostgreSQL as its superuser, for createuser, createdb and dropdb (the guide's `runuser -u postgres`). */
function superuserEnvironment(): Record<string, string> {
  const url = new URL(process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  return {
    PGHOST: url.hostname,
    PGPORT: url.port || "5432",
    PGUSER: decodeURIComponent(url.username || "postgres"),
    ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}),
  };
}
const superuser = superuserEnvironment();

/** The guide's machine, mapped onto the test's: each replacement says what stands for what. */
function onThisMachine(command: string, extra: [string | RegExp, string][] = []): string {
  const replacements: [string | RegExp, string][] = [
    ["runuser -u postgres -- ", ""], // the CI's PostgreSQL superuser (PGHOST, PGUSER)
    ["runuser -u mutual -- ", ""], // the test's own user stands for `mutual`
    [/ -o mutual -g mutual| -g mutual/g, ""], // ownership needs root and the user
    [/\/etc\/mutual\b/g, `${work}/etc/mutual`],
    [/\/var\/lib\/mutual/g, `${work}/var/lib/mutual`],
    [/\/srv\/backups/g, `${work}/srv/backups`],
    ["--owner=mutual mutual_restored", `--owner=${role} ${database}_restored`],
    ["--owner=mutual mutual", `--owner=${role} ${database}`],
    [/(^| )build\/bin\//g, `$1${path.relative(repository, buildDir)}/bin/`],
    ...extra,
  ];
  return replacements.reduce<string>(
    (text, [from, to]) => (typeof from === "string" ? text.replace(from, to) : text.replace(from, to)),
    command,
  );
}

/** Runs one command of the guide with sh, from the repository (the guide's /opt/mutual); fails on a non-zero exit. */
function run(command: string, input?: string): string {
  const result = spawnSync("sh", ["-c", command], {
    cwd: repository,
    env: { ...process.env, ...superuser },
    input,
    encoding: "utf8",
    timeout: 300_000,
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`\`${command}\` exited ${result.status}:\n${output}`);
  return output;
}

/** A long-running command of the guide (an app process), its output read line by line. */
class Running {
  readonly lines: string[] = [];
  readonly child: ChildProcess;
  constructor(command: string) {
    this.child = spawn("sh", ["-c", `exec ${command}`], { cwd: repository, stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [this.child.stdout!, this.child.stderr!])
      readline.createInterface({ input: stream }).on("line", (line) => this.lines.push(line));
  }
  async serving(): Promise<void> {
    for (let waited = 0; waited < 120_000; waited += 100) {
      if (this.lines.some((line) => line.includes("Mutual is serving"))) return;
      if (this.child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the app did not start:\n${this.lines.slice(-20).join("\n")}`);
  }
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill("SIGTERM");
    await exited;
  }
}

/** The systemd unit's process for `port`: its EnvironmentFile through with-env, its Environment= lines, its ExecStart. */
function unitCommand(port: number): string {
  const settings = [...unit.matchAll(/^Environment=(\S+)$/gm)].map((m) => m[1]!.replace("%i", String(port)));
  const exec = /^ExecStart=\/usr\/bin\/node (.*)$/m.exec(unit)?.[1];
  const file = /^EnvironmentFile=(\S+)$/m.exec(unit)?.[1];
  if (!exec || file !== "/etc/mutual/mutual.env") throw new Error("the unit lost its ExecStart or EnvironmentFile");
  return onThisMachine(`node scripts/with-env.mjs ${file} ${settings.join(" ")} ${process.execPath} ${exec}`);
}

const smtp = fakeSmtpServer({});
const running: Running[] = [];
let nginx: NginxProcess | undefined;
afterAll(async () => {
  for (const app of running) await app.stop();
  await nginx?.stop();
  smtp.server.close();
  if (onPostgres) {
    for (const name of [database, `${database}_restored`])
      spawnSync("dropdb", ["--if-exists", "--force", name], { env: { ...process.env, ...superuser } });
    spawnSync("dropuser", ["--if-exists", role], { env: { ...process.env, ...superuser } });
  }
  fs.rmSync(work, { recursive: true, force: true });
});

describe("the guide's code blocks", () => {
  it("are the commands this test follows", () => {
    expect(guideBlock("### The steps\n")).toEqual([
      "adduser --system --group --home /var/lib/mutual mutual", // root: the test's own user instead
      "git clone https://github.com/<your-fork>/mutual /opt/mutual && cd /opt/mutual", // the repository under test
      "git checkout <release tag>",
      "npm ci", // done before the tests
      "npm run build", // the integration tests' global set-up builds it
      "install -d -o mutual -g mutual -m 0700 /var/lib/mutual", // run
      "install -d -m 0750 -g mutual /etc/mutual", // run
      "install -m 0640 -g mutual deploy/systemd/mutual.env.example /etc/mutual/mutual.env", // run, then filled in
      "install -m 0640 -g mutual institution.json /etc/mutual/institution.json", // run, with a profile of our own
      "runuser -u postgres -- createuser --pwprompt mutual", // instead: it prompts
      "runuser -u postgres -- createdb --owner=mutual mutual", // run
      "runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/mutual.env NODE_ENV=production node --enable-source-maps build/bin/migrate.js", // run
      "runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/mutual.env NODE_ENV=production node --enable-source-maps build/bin/staff-create.js", // run, with the flags a script gives
      "cp deploy/systemd/mutual@.service /etc/systemd/system/", // systemd: the unit's command instead
      "systemctl daemon-reload && systemctl enable --now mutual@3001 mutual@3002",
      "cp deploy/nginx/mutual.conf /etc/nginx/sites-available/mutual.conf", // the shipped proxy part instead
      "ln -s ../sites-available/mutual.conf /etc/nginx/sites-enabled/mutual.conf",
      "rm /etc/nginx/sites-enabled/default",
      "nginx -t && systemctl reload nginx",
    ]);
    expect(guideBlock("### PostgreSQL (DATABASE_URL)\n")).toEqual([
      "install -d -o mutual -g mutual -m 0700 /srv/backups", // run
      "runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/mutual.env sh -c 'umask 077; pg_dump --format=custom --file=/srv/backups/mutual-$(date +%Y%m%d-%H%M).dump \"$DATABASE_URL\"'", // run
      "runuser -u mutual -- rsync -a /var/lib/mutual/uploads/ /srv/backups/uploads/", // run, or the cp the guide gives without rsync
    ]);
    expect(guideBlock("## Upgrades and migrations\n")).toEqual([
      "cd /opt/mutual",
      "git fetch --tags && git checkout v0.1.0", // the repository under test is the release
      "npm ci && npm run build",
      "runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/mutual.env NODE_ENV=production node --enable-source-maps build/bin/migrate.js", // run
      "systemctl restart mutual@3001 && curl -fsS --retry 10 --retry-all-errors --retry-delay 2 http://127.0.0.1:3001/readyz && sleep 10", // the process restarted, then the curl and the wait run
      "systemctl restart mutual@3002 && curl -fsS --retry 10 --retry-all-errors --retry-delay 2 http://127.0.0.1:3002/readyz",
    ]);
    expect(guideBlock("### The restore drill\n")).toEqual([
      "runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/restored.env NODE_ENV=production PORT=3101 HOST=127.0.0.1 node --enable-source-maps build/bin/server.js", // run
    ]);
    expect(guideBlock("Restore into a new, empty database")).toEqual([
      "install -m 0640 -g mutual /etc/mutual/mutual.env /etc/mutual/restored.env", // run
      "editor /etc/mutual/restored.env", // the edit the comment says: the database's name, MUTUAL_DRILL=1
      "runuser -u postgres -- createdb --owner=mutual mutual_restored", // run
      "runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/restored.env sh -c 'pg_restore --dbname=\"$DATABASE_URL\" --no-owner --exit-on-error /srv/backups/mutual-20260124-1015.dump'", // run, with the dump made
      "runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/restored.env NODE_ENV=production node build/bin/ledger-verify.js", // run
    ]);
  });
});

/** The credit union's own profile (the demo's refused in production), as step 4 installs it. */
const profile = {
  ...demoInstitution,
  demo: false,
  name: "Lakeside Teachers Credit Union",
  short_name: "Lakeside TCU",
  routing_number: "011000015",
  support_email: "help@lakesidetcu.org",
  testimonials: [],
  intuit_bank_id: undefined,
  ach: { ...demoInstitution.ach, company_identification: "1234567890" },
};

/** Fills in the environment file as the guide says (every CHANGE-ME, and the paths of this machine). */
function fillIn(file: string, settings: Record<string, string>): void {
  let text = fs.readFileSync(file, "utf8");
  for (const [name, value] of Object.entries(settings)) {
    const line = new RegExp(`^${name}=.*$`, "m");
    if (!line.test(text)) throw new Error(`${file} has no ${name}= line`);
    text = text.replace(line, () => `${name}=${value}`);
  }
  fs.writeFileSync(file, text);
}

/** The sign-in codes the mail catcher received for `email` (quoted-printable soft breaks undone). */
const caught = (email: string): string[] =>
  smtp.received
    .filter((message) => message.to.some((to) => to.includes(email)))
    .flatMap((message) => [...message.data.replace(/=\n/g, "").matchAll(/code is: (\d{6})/g)].map((m) => m[1]!));

/**
 * The mail catcher as an inbox for Browser.signIn: a code leaves through the outbox a moment after
 * the password step, so the inbox waits (up to 30 s) for one more code than it showed last time.
 */
function caughtInbox(): Inbox {
  const shown = new Map<string, number>();
  return async (email) => {
    const before = shown.get(email);
    for (let waited = 0; before !== undefined && waited < 30_000; waited += 100) {
      if (caught(email).length > before) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const codes = caught(email);
    shown.set(email, codes.length);
    return codes;
  };
}

/** Asks nginx for pages and one of their scripts until stopped; every answer's status. */
function keepAsking(base: string, asset: string) {
  const statuses: number[] = [];
  let going = true;
  const done = (async () => {
    while (going) {
      for (const pathname of ["/", "/login", asset]) {
        const response = await fetch(`${base}${pathname}`).catch(() => null);
        statuses.push(response?.status ?? 0);
        await response?.body?.cancel();
      }
    }
  })();
  return {
    statuses,
    stop: async () => {
      going = false;
      await done;
    },
  };
}

describe.runIf(onPostgres && fs.existsSync(NGINX))("an operations engineer following the guide", () => {
  const env_file = `${work}/etc/mutual/mutual.env`;
  const restored_env = `${work}/etc/mutual/restored.env`;

  it(
    "installs, makes the first admin (who signs in with the emailed code), backs up, restores, starts a drill copy and upgrades with requests going on",
    { timeout: 900_000 },
    async () => {
      await new Promise<void>((resolve) => smtp.server.listen(0, "127.0.0.1", resolve));
      const smtp_port = (smtp.server.address() as AddressInfo).port;
      for (const folder of ["etc", "var/lib", "srv"]) fs.mkdirSync(path.join(work, folder), { recursive: true });
      fs.writeFileSync(path.join(work, "institution.json"), JSON.stringify(profile, null, 2));

      // Install, steps 3 to 6.
      const steps = guideBlock("### The steps\n");
      const step = (start: string) => steps.find((line) => line.startsWith(start)) ?? `missing: ${start}`;
      run(onThisMachine(step("install -d -o mutual -g mutual -m 0700 /var/lib/mutual")));
      run(onThisMachine(step("install -d -m 0750 -g mutual /etc/mutual")));
      run(onThisMachine(step("install -m 0640 -g mutual deploy/systemd/mutual.env.example")));
      run(
        onThisMachine(step("install -m 0640 -g mutual institution.json"), [
          ["institution.json ", `${work}/institution.json `],
        ]),
      );
      const url = `postgresql://${role}:${encodeURIComponent(role_password)}@${superuser.PGHOST}:${superuser.PGPORT}`;
      fillIn(env_file, {
        DATABASE_URL: `${url}/${database}`,
        SESSION_SECRET: crypto.randomBytes(32).toString("hex"),
        DATA_ENCRYPTION_KEY: crypto.randomBytes(32).toString("hex"),
        DATA_DIR: `${work}/var/lib/mutual`,
        INSTITUTION_CONFIG: `${work}/etc/mutual/institution.json`,
        SMTP_URL: `smtp://127.0.0.1:${smtp_port}`,
      });
      const settings = fs
        .readFileSync(env_file, "utf8")
        .split("\n")
        .filter((line) => !line.startsWith("#"));
      expect(settings.filter((line) => line.includes("CHANGE-ME"))).toEqual([]);
      // createuser --pwprompt asks for the password on the terminal: the same role and password, given.
      run(`createuser ${role} && psql -d postgres -c "ALTER ROLE ${role} PASSWORD '${role_password}'"`);
      run(onThisMachine(step("runuser -u postgres -- createdb")));
      expect(
        run(
          onThisMachine(
            step(
              "runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/mutual.env NODE_ENV=production node --enable-source-maps build/bin/migrate.js",
            ),
          ),
        ),
      ).toContain("Migrations applied (postgres)");
      // The first admin, with the flags the guide gives for a script (First admin).
      const created = run(
        `${onThisMachine(step("runuser -u mutual -- node scripts/with-env.mjs /etc/mutual/mutual.env NODE_ENV=production node --enable-source-maps build/bin/staff-create.js"))} --email ${admin.email} --first-name Ada --last-name Byron`,
      );
      const link = /https:\/\/bank\.example\.org\/reset-password\?token=[A-Za-z0-9_-]+/.exec(created)?.[0];
      expect(link, created).toBeDefined();

      // Step 7: two instances as the unit runs them; step 8: nginx in front.
      const ports = [await freePort(), await freePort()];
      const apps = ports.map((port) => new Running(unitCommand(port)));
      running.push(...apps);
      await Promise.all(apps.map((app) => app.serving()));
      const nginx_dir = path.join(work, "nginx");
      fs.mkdirSync(nginx_dir);
      nginx = new NginxProcess(nginx_dir, await freePort(), ports);
      await nginx.ready();

      // The first admin chooses a password from the link, then signs in with the emailed code.
      const browser = new Browser(nginx.base);
      const set = await browser.request("/reset-password", {
        token: new URL(link!).searchParams.get("token")!,
        password: admin.password,
        confirm_password: admin.password,
      });
      expect(set.status, set.body.slice(0, 400)).toBe(302);
      await browser.signIn(admin.email, admin.password, caughtInbox());
      const back_office = await browser.request("/admin");
      expect(back_office.status).toBe(200);
      expect(back_office.body).toContain("Lakeside TCU");

      // Back up: the dump and the uploads, as written.
      const backup = guideBlock("### PostgreSQL (DATABASE_URL)\n");
      run(onThisMachine(backup[0]!));
      run(onThisMachine(backup[1]!));
      const dumps = fs.readdirSync(`${work}/srv/backups`).filter((name) => name.endsWith(".dump"));
      expect(dumps).toHaveLength(1);
      const without_rsync = /without it: (cp -a \S+ \S+)/.exec(guide)?.[1];
      expect(without_rsync).toBeDefined();
      run(onThisMachine(spawnSync("sh", ["-c", "command -v rsync"]).status === 0 ? backup[2]! : without_rsync!));

      // Restore into a new database owned by the app's role, verify, start a drill copy on it.
      const restore = guideBlock("Restore into a new, empty database");
      run(onThisMachine(restore[0]!));
      // What the comment says to edit: only the database's name after the last /, and MUTUAL_DRILL=1.
      fillIn(restored_env, { DATABASE_URL: `${url}/${database}_restored` });
      fs.appendFileSync(restored_env, "MUTUAL_DRILL=1\n");
      // The drill's DATA_DIR: a copy of the backed-up uploads, never the live folder (The restore drill).
      const drill_uploads = /\(`(cp -a \/srv\/backups\/uploads\/\. (\/var\/lib\/[\w-]+)\/uploads\/)`/.exec(guide);
      expect(drill_uploads).not.toBeNull();
      run(onThisMachine(`install -d -m 0700 ${drill_uploads![2]} && ${drill_uploads![1]}`));
      fillIn(restored_env, { DATA_DIR: onThisMachine(drill_uploads![2]!) });
      run(onThisMachine(restore[2]!));
      run(onThisMachine(restore[3]!, [["mutual-20260124-1015.dump", dumps[0]!]]));
      expect(run(onThisMachine(restore[4]!))).toContain("Ledger OK");
      const drill_port = await freePort();
      const drill = new Running(
        onThisMachine(guideBlock("### The restore drill\n")[0]!, [["PORT=3101", `PORT=${drill_port}`]]),
      );
      running.push(drill);
      await drill.serving();
      const mails = smtp.received.length;
      const drill_browser = new Browser(`http://127.0.0.1:${drill_port}`);
      expect((await drill_browser.request("/")).body).toContain("Restore drill copy — not the live bank.");
      // The admin made before the backup is in the copy; the code step sends nothing.
      expect((await drill_browser.request("/login", { intent: "password", ...admin })).status).toBe(302);
      expect(smtp.received.length).toBe(mails);
      await drill.stop();

      // Upgrade: the migrations, then the instances one at a time, while members keep asking.
      const upgrade = guideBlock("## Upgrades and migrations\n");
      expect(run(onThisMachine(upgrade[3]!))).toContain("Migrations applied (postgres)");
      const script = /\/assets\/[\w.-]+\.js/.exec(await (await fetch(`${nginx.base}/`)).text())?.[0];
      expect(script).toBeDefined();
      const load = keepAsking(nginx.base, script!);
      for (const [i, port] of ports.entries()) {
        await apps[i]!.stop();
        apps[i] = new Running(unitCommand(port));
        running.push(apps[i]!);
        // Everything after `systemctl restart`: the readiness check, and after the first the wait for
        // nginx's fail_timeout (without it, a slow machine saw only 502s once the second stopped).
        const readyz = upgrade[4 + i]!.split(" && ").slice(1).join(" && ");
        expect(run(readyz.replace(`127.0.0.1:${3001 + i}`, `127.0.0.1:${port}`))).toContain("ready");
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      await load.stop();
      // Requests went on through both restarts (a busy CI machine makes few; every one must be a 200).
      expect(load.statuses.length).toBeGreaterThanOrEqual(3);
      expect(load.statuses.filter((status) => status !== 200)).toEqual([]);
    },
  );
});
