import { describe, expect, it } from "vitest";
import { hostText, parseDatabaseUrl } from "~/config/database-url";
import { parseEnv } from "~/config/env.server";
import { roleAccepted } from "~/server/db/host-selection.server";

/** libpq's multi-host URLs and target_session_attrs, read for node-postgres (decision 0016). */
describe("parseDatabaseUrl", () => {
  it("reads pg_auto_failover's formation URL: two servers in the authority, read-write", () => {
    const address = parseDatabaseUrl(
      "postgres://app:s%2Fecret@10.0.0.11:5432,10.0.0.12:5433/mutual?target_session_attrs=read-write&sslmode=require",
    );
    expect(address.hosts).toEqual([
      { host: "10.0.0.11", port: 5432 },
      { host: "10.0.0.12", port: 5433 },
    ]);
    expect(address.target_session_attrs).toBe("read-write");
    // node-postgres gets the first server, the password as written, and no target_session_attrs.
    expect(address.first_host_url).toBe("postgres://app:s%2Fecret@10.0.0.11:5432/mutual?sslmode=require");
  });

  it("takes a missing port as 5432, IPv6 in brackets, and host= / port= lists", () => {
    expect(parseDatabaseUrl("postgresql://db-a,db-b:6000/x").hosts).toEqual([
      { host: "db-a", port: 5432 },
      { host: "db-b", port: 6000 },
    ]);
    expect(parseDatabaseUrl("postgresql://u@[::1]:5433,[fd00::2]/x").hosts.map(hostText)).toEqual([
      "[::1]:5433",
      "[fd00::2]:5432",
    ]);
    const listed = parseDatabaseUrl("postgresql://u@/x?host=db-a,db-b&port=5433&target_session_attrs=primary");
    expect(listed.hosts).toEqual([
      { host: "db-a", port: 5433 },
      { host: "db-b", port: 5433 },
    ]);
    expect(listed.first_host_url).toBe("postgresql://u@/x?host=db-a&port=5433");
  });

  it("leaves a one-server URL as it is (a Unix socket folder included)", () => {
    for (const url of [
      "postgresql://postgres@127.0.0.1:55432/postgres",
      "postgresql://postgres@/postgres?host=/run/postgresql&port=5432",
    ]) {
      const address = parseDatabaseUrl(url);
      expect(address.first_host_url).toBe(url);
      expect(address.hosts).toHaveLength(1);
      expect(address.target_session_attrs).toBe("any");
    }
  });

  it("refuses what libpq would refuse, naming the problem and never the password", () => {
    expect(() => parseDatabaseUrl("postgresql://u:pw@a,b/x?target_session_attrs=master")).toThrow(
      /target_session_attrs=master: use one of any, read-write/,
    );
    expect(() => parseDatabaseUrl("postgresql://u:pw@a:99999,b/x")).toThrow(/port "99999"/);
    expect(() => parseDatabaseUrl("postgresql://u:pw@a,,b/x")).toThrow(/empty server name/);
    expect(() => parseDatabaseUrl("postgresql://u:pw@/x?host=a,b,c&port=1,2")).toThrow(/3 hosts and 2 ports/);
    try {
      parseDatabaseUrl("postgresql://u:hunter2@a:x,b/x");
    } catch (error) {
      expect((error as Error).message).not.toContain("hunter2");
    }
  });

  it("is what DATABASE_URL accepts", () => {
    const env = parseEnv({ DATABASE_URL: "postgresql://u@a:5432,b:5432/mutual?target_session_attrs=read-write" });
    expect(env.DATABASE_URL).toContain("a:5432,b:5432");
    expect(() => parseEnv({ DATABASE_URL: "postgresql://u@a,b/x?target_session_attrs=writable" })).toThrow(
      /DATABASE_URL: has target_session_attrs=writable/,
    );
  });
});

describe("roleAccepted (libpq's target_session_attrs rules)", () => {
  const primary = { in_hot_standby: false, default_read_only: false };
  const standby = { in_hot_standby: true, default_read_only: false };
  const readOnlyPrimary = { in_hot_standby: false, default_read_only: true };
  it.each([
    ["any", [true, true, true]],
    ["read-write", [true, false, false]],
    ["read-only", [false, true, true]],
    ["primary", [true, false, true]],
    ["standby", [false, true, false]],
    ["prefer-standby", [false, true, false]],
  ] as const)("%s: primary, standby, read-only primary", (attrs, expected) => {
    expect([primary, standby, readOnlyPrimary].map((role) => roleAccepted(attrs, role))).toEqual(expected);
  });
  it("prefer-standby takes any server on its second pass", () => {
    expect(roleAccepted("prefer-standby", primary, "fallback")).toBe(true);
  });
});
