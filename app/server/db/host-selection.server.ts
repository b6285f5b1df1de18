import pg from "pg";
import { hostText, type DatabaseAddress, type DatabaseHost, type SessionAttrs } from "~/config/database-url";
import { logger } from "../logger.server";
import { DatabaseUnavailableError, describeDatabaseError } from "./unavailable.server";

/**
 * What a server is now, as it reports itself at connection (PostgreSQL 14+ reports both to every
 * new session, and again whenever they change: a standby promoted says in_hot_standby=off).
 */
export interface ServerRole {
  in_hot_standby: boolean;
  default_read_only: boolean;
}

/** libpq's rule for each target_session_attrs (prefer-standby's second pass takes any). */
export function roleAccepted(attrs: SessionAttrs, role: ServerRole, pass: "first" | "fallback" = "first"): boolean {
  switch (attrs) {
    case "any":
      return true;
    case "read-write":
      return !role.in_hot_standby && !role.default_read_only;
    case "read-only":
      return role.in_hot_standby || role.default_read_only;
    case "primary":
      return !role.in_hot_standby;
    case "standby":
      return role.in_hot_standby;
    case "prefer-standby":
      return pass === "fallback" || role.in_hot_standby;
  }
}

/**
 * Records the role a connection's server reports (ParameterStatus messages) on `role`; the
 * fields stay undefined on a server that does not report them (before PostgreSQL 14).
 */
export function watchRole(client: pg.Client): Partial<ServerRole> {
  const role: Partial<ServerRole> = {};
  const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
  connection.on("parameterStatus", (message: { parameterName: string; parameterValue: string }) => {
    if (message.parameterName === "in_hot_standby") role.in_hot_standby = message.parameterValue === "on";
    if (message.parameterName === "default_transaction_read_only")
      role.default_read_only = message.parameterValue === "on";
  });
  return role;
}

/** The role from what the server reported, asking it when it did not (PostgreSQL before 14). */
export async function roleOf(client: pg.Client, reported: Partial<ServerRole>): Promise<ServerRole> {
  if (reported.in_hot_standby !== undefined && reported.default_read_only !== undefined) return reported as ServerRole;
  const result = await client.query<{ in_recovery: boolean; read_only: string }>(
    "select pg_is_in_recovery() as in_recovery, current_setting('default_transaction_read_only') as read_only",
  );
  return { in_hot_standby: result.rows[0]!.in_recovery, default_read_only: result.rows[0]!.read_only === "on" };
}

/**
 * Which of a URL's servers the app's connections go to: libpq's multi-host connection with
 * target_session_attrs, for node-postgres, which has neither (docs/decisions/0017-reaching-the-primary.md).
 *
 * libpq tries the servers in order on every connection. Here the server found is remembered and
 * every new connection goes straight to it; the servers are tried again, in the URL's order, once
 * a connection to it fails, is lost or finds it in the wrong role (the standby promoted, the old
 * primary back as a standby). Trying is one short connection per server (a probe), shared by
 * every connection waiting meanwhile. While no server is in the wanted role (a failover under
 * way) each attempt fails with DatabaseUnavailableError: the request is answered 503.
 */
export class HostSelection {
  private chosen: DatabaseHost | null = null;
  private choosing: Promise<DatabaseHost> | null = null;

  constructor(
    readonly address: DatabaseAddress,
    private readonly probeConfig: pg.ClientConfig,
    private readonly name: string,
  ) {}

  get attrs(): SessionAttrs {
    return this.address.target_session_attrs;
  }

  /** The server the next connection goes to. */
  host(): Promise<DatabaseHost> {
    if (this.chosen) return Promise.resolve(this.chosen);
    this.choosing ??= this.choose().finally(() => (this.choosing = null));
    return this.choosing;
  }

  /** Whether a connection to a server of this role is one to keep. */
  accepts(role: ServerRole): boolean {
    return roleAccepted(this.attrs, role, this.attrs === "prefer-standby" ? "fallback" : "first");
  }

  /** The connection to `host` failed or found it in the wrong role: try the servers again next time. */
  forget(host: DatabaseHost): void {
    if (this.chosen && this.chosen.host === host.host && this.chosen.port === host.port) {
      this.chosen = null;
      logger.warn({ database: this.name, host: hostText(host) }, "database server left its role; looking again");
    }
  }

  private async choose(): Promise<DatabaseHost> {
    const found: { host: DatabaseHost; role: ServerRole }[] = [];
    const reasons: string[] = [];
    for (const host of this.address.hosts) {
      try {
        const role = await this.probe(host);
        found.push({ host, role });
        if (roleAccepted(this.attrs, role)) return this.choice(host);
        reasons.push(`${hostText(host)} is ${role.in_hot_standby ? "a standby" : "read-only"}`);
      } catch (error) {
        reasons.push(`${hostText(host)}: ${describeDatabaseError(error).message}`);
      }
    }
    // prefer-standby: no standby answered, so any server that answered.
    const fallback = found.find((f) => roleAccepted(this.attrs, f.role, "fallback"));
    if (fallback) return this.choice(fallback.host);
    throw new DatabaseUnavailableError(
      new Error(`no server of ${this.name} is ${this.attrs} now (${reasons.join("; ")})`),
      "no_server_in_role",
    );
  }

  private choice(host: DatabaseHost): DatabaseHost {
    this.chosen = host;
    logger.info(
      { database: this.name, host: hostText(host), target_session_attrs: this.attrs },
      "database server chosen",
    );
    return host;
  }

  private async probe(host: DatabaseHost): Promise<ServerRole> {
    const client = new pg.Client(this.probeConfig);
    // After the constructor: the URL (connectionString) would override a host given beside it.
    placeOn(client, host);
    client.on("error", () => undefined); // a probe's loss is its failure, reported by connect or query
    const reported = watchRole(client);
    try {
      await client.connect();
      return await roleOf(client, reported);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** Points a client not yet connected at `host` (node-postgres connects to client.host and client.port). */
export function placeOn(client: pg.Client, host: DatabaseHost): void {
  const target = client as unknown as {
    host: string;
    port: number;
    connectionParameters: { host: string; port: number };
  };
  target.host = host.host;
  target.port = host.port;
  target.connectionParameters.host = host.host;
  target.connectionParameters.port = host.port;
}
