import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AppProcess, buildDir, repository, serverDatabase } from "../app-server";
import { onPostgres } from "../test-database";
import { demoInstitution } from "~/config/demo-institution";
// @ts-expect-error: a plain JavaScript module of the build, without types
import { carryPreviousAssets, RELEASE_ASSETS_FILE } from "../../../scripts/build-server.mjs";

/**
 * An upgrade builds the new release while the old one serves (docs/operations.md#upgrades-and-migrations).
 * Building in place emptied the build folder first: during one upgrade the running processes
 * answered 1,318 requests for their own scripts and styles with 404. The build now goes beside
 * the running one, takes the previous release's assets along, and is swapped in whole.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mutual-release-"));
const release = path.join(repository, `build-release-test-${crypto.randomBytes(4).toString("hex")}`);
let app: AppProcess | undefined;
let closeDatabase: (() => Promise<void>) | undefined;
afterAll(async () => {
  await app?.stop("SIGKILL");
  await closeDatabase?.();
  for (const folder of [work, release, `${release}-next`, `${release}-previous`])
    fs.rmSync(folder, { recursive: true, force: true });
});

describe("the previous release's assets", () => {
  it("are carried one release only, and the record names a build's own files", () => {
    const [older, newer] = [path.join(work, "older"), path.join(work, "newer")];
    fs.mkdirSync(older);
    fs.mkdirSync(newer);
    for (const name of ["app-OLD1.js", "carried-OLDER.js", "same-SAME.css"])
      fs.writeFileSync(path.join(older, name), name);
    fs.writeFileSync(path.join(older, RELEASE_ASSETS_FILE), JSON.stringify(["app-OLD1.js", "same-SAME.css"]));
    for (const name of ["app-NEW1.js", "same-SAME.css"]) fs.writeFileSync(path.join(newer, name), name);
    expect(carryPreviousAssets(older, newer)).toEqual({ carried: 1 });
    expect(fs.readdirSync(newer).sort()).toEqual([RELEASE_ASSETS_FILE, "app-NEW1.js", "app-OLD1.js", "same-SAME.css"]);
    expect(JSON.parse(fs.readFileSync(path.join(newer, RELEASE_ASSETS_FILE), "utf8")).sort()).toEqual([
      "app-NEW1.js",
      "same-SAME.css",
    ]);
  });
});

// A build runs the same whatever the database: once per CI run (the PGlite pass), not twice.
describe.runIf(!onPostgres)("an upgrade's build while the old release serves", () => {
  it(
    "never leaves a page without its scripts and styles, and keeps the release before's",
    { timeout: 900_000 },
    async () => {
      fs.cpSync(buildDir, release, {
        recursive: true,
        filter: (source) => !source.includes(`${path.sep}compile-cache`),
      });
      // A script only the release before had, as its own build made it.
      const assets = path.join(release, "client/assets");
      fs.writeFileSync(path.join(assets, "release-before-Xy12Ab34.js"), "/* the release before */");
      fs.writeFileSync(
        path.join(assets, RELEASE_ASSETS_FILE),
        JSON.stringify(fs.readdirSync(assets).filter((name) => !name.startsWith("."))),
      );

      const institution_file = path.join(work, "institution.json");
      fs.writeFileSync(institution_file, JSON.stringify({ ...demoInstitution, demo: false }));
      const database = await serverDatabase(path.join(work, "data"));
      closeDatabase = database.close;
      app = new AppProcess({
        ...database.env,
        HOST: "127.0.0.1",
        INSTITUTION_CONFIG: institution_file,
        MUTUAL_BUILD_DIR: path.relative(repository, release),
      });
      await app.serving();
      const base = app.base;
      const page = await (await fetch(`${base}/`)).text();
      const urls = [
        ...new Set([...page.matchAll(/(\/assets\/[\w.-]+\.(?:js|css))/g)].map((m) => m[1]!)),
        "/assets/release-before-Xy12Ab34.js",
        "/",
      ];
      expect(urls.length).toBeGreaterThan(3);

      const build = spawn(process.execPath, ["scripts/build-server.mjs", "--force"], {
        cwd: repository,
        env: { ...process.env, MUTUAL_BUILD_DIR: path.relative(repository, release) },
        stdio: "ignore",
      });
      const built = new Promise<number | null>((resolve) => build.once("exit", resolve));
      let building = true;
      void built.then(() => (building = false));
      const failures: string[] = [];
      let requests = 0;
      while (building) {
        for (const url of urls) {
          const response = await fetch(`${base}${url}`);
          await response.arrayBuffer();
          requests++;
          if (response.status !== 200) failures.push(`${url} ${response.status}`);
        }
      }
      expect(await built).toBe(0);
      expect(failures).toEqual([]);
      expect(requests).toBeGreaterThan(urls.length * 5);
      // The release before's script stays one release, not as the new build's own.
      expect((await fetch(`${base}/assets/release-before-Xy12Ab34.js`)).status).toBe(200);
      expect(JSON.parse(fs.readFileSync(path.join(assets, RELEASE_ASSETS_FILE), "utf8"))).not.toContain(
        "release-before-Xy12Ab34.js",
      );
      expect((await fetch(`${base}/assets/${RELEASE_ASSETS_FILE}`)).status).toBe(404);
      expect(fs.existsSync(`${release}-next`) || fs.existsSync(`${release}-previous`)).toBe(false);
    },
  );
});
