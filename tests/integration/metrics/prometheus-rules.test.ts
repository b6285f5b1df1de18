import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repository } from "../app-server";

/**
 * deploy/prometheus/mutual-alerts.yml, the alerts of docs/operations.md as a rules file an operator
 * installs: read by Prometheus's own checker (promtool, from Debian's prometheus package, which
 * .ci/run installs), and every metric it names is one the app exports.
 */
const rules_file = path.join(repository, "deploy/prometheus/mutual-alerts.yml");
const promtool = process.env.PROMTOOL_BIN ?? "/usr/bin/promtool";

describe("the shipped Prometheus alerting rules", () => {
  it.runIf(fs.existsSync(promtool) || process.env.CI)("pass promtool check rules", () => {
    const result = spawnSync(promtool, ["check", "rules", rules_file], { encoding: "utf8" });
    expect(`${result.stdout}${result.stderr}`).toMatch(/SUCCESS: 13 rules found/);
    expect(result.status).toBe(0);
  });

  it("name only metrics the app exports, and every alert of the guide's table", () => {
    const rules = fs.readFileSync(rules_file, "utf8");
    const metrics_source = fs.readFileSync(path.join(repository, "app/server/metrics/metrics.server.ts"), "utf8");
    const named = new Set([...rules.matchAll(/\b(mutual_[a-z_]+)/g)].map((m) => m[1]!.replace(/_bucket$/, "")));
    expect(named.size).toBeGreaterThan(8);
    for (const metric of named) expect(metrics_source, metric).toContain(`name: "${metric}"`);
    const guide = fs.readFileSync(path.join(repository, "docs/operations.md"), "utf8");
    const table = /### Alerts to set\n([\s\S]*?)\n### /.exec(guide)![1]!;
    const alerts = [...table.matchAll(/^\| ([A-Z][^|]+?) \| /gm)].map((m) => m[1]!).filter((name) => name !== "Alert");
    expect(alerts).toHaveLength(13);
    expect(rules.match(/- alert: /g)).toHaveLength(alerts.length);
  });
});
