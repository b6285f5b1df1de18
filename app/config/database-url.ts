/**
 * A PostgreSQL URL as libpq reads it, with what node-postgres does not read: several servers
 * (`postgresql://user@db-1:5432,db-2:5432/mutual`, or `?host=db-1,db-2&port=5432`) and which of
 * them a session wants (`target_session_attrs`, libpq's names and meanings). pg_auto_failover
 * prints such a URL for its formation (`pg_autoctl show uri --formation default`), and the app
 * takes it as it is (docs/decisions/0017-reaching-the-primary.md).
 */

/** libpq's target_session_attrs (PostgreSQL 14+), the default "any". */
export const SESSION_ATTRS = ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"] as const;
export type SessionAttrs = (typeof SESSION_ATTRS)[number];

export interface DatabaseHost {
  host: string;
  port: number;
}

export interface DatabaseAddress {
  /** The servers to try, in the URL's order. */
  hosts: DatabaseHost[];
  target_session_attrs: SessionAttrs;
  /**
   * The URL with only the first server and without target_session_attrs, for node-postgres,
   * which reads everything else from it (user, password, database, TLS settings).
   */
  first_host_url: string;
}

const DEFAULT_PORT = 5432;

/** Parses `url`; throws an Error whose message says what is wrong (without the URL: it may hold a password). */
export function parseDatabaseUrl(url: string): DatabaseAddress {
  const parts = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/.exec(url);
  if (!parts) throw new Error("is not a postgres:// or postgresql:// URL");
  const [, scheme, userinfo = "", authority_hosts = "", pathname = "", query = "", fragment = ""] = parts;
  const params = new URLSearchParams(query.slice(1));

  const attrs = params.get("target_session_attrs") ?? "any";
  if (!(SESSION_ATTRS as readonly string[]).includes(attrs))
    throw new Error(`has target_session_attrs=${attrs}: use one of ${SESSION_ATTRS.join(", ")}`);

  // The servers are in the authority or in host= (and port=) parameters, as libpq allows.
  const query_hosts = params.get("host");
  const query_ports = params.get("port");
  let hosts: DatabaseHost[];
  if (query_hosts?.includes(",") || query_ports?.includes(",")) {
    if (authority_hosts) throw new Error("names servers both before the path and in host=: use one of the two");
    const names = (query_hosts ?? "").split(",");
    const ports = (query_ports ?? "").split(",");
    if (ports.length !== 1 && ports.length !== names.length)
      throw new Error(
        `has ${names.length} hosts and ${ports.length} ports in host= and port=: give one port, or one per host`,
      );
    hosts = names.map((host, i) => ({ host, port: portNumber(ports.length === 1 ? ports[0]! : ports[i]!) }));
  } else {
    hosts = authority_hosts.split(",").map(authorityHost);
  }
  if (hosts.length > 1 && hosts.some((h) => h.host === ""))
    throw new Error("has an empty server name in its list of servers");

  const first_authority = authority_hosts.includes(",") ? authorityText(hosts[0]!) : authority_hosts;
  // The query as written (its encoding kept), less target_session_attrs, and with the first
  // server only in host= and port= when they list several.
  const listed = query_hosts?.includes(",") || query_ports?.includes(",");
  const rest = query
    .slice(1)
    .split("&")
    .filter((part) => part !== "" && !part.startsWith("target_session_attrs="))
    .map((part) => {
      if (!listed) return part;
      if (part.startsWith("host=")) return `host=${encodeURIComponent(hosts[0]!.host)}`;
      if (part.startsWith("port=")) return `port=${hosts[0]!.port}`;
      return part;
    })
    .join("&");
  return {
    hosts,
    target_session_attrs: attrs as SessionAttrs,
    first_host_url: `${scheme}${userinfo}${first_authority}${pathname}${rest ? `?${rest}` : ""}${fragment}`,
  };
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`. */
function authorityHost(text: string): DatabaseHost {
  const v6 = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  if (v6) return { host: v6[1]!, port: portNumber(v6[2] ?? "") };
  const colon = text.lastIndexOf(":");
  if (colon === -1) return { host: decodeURIComponent(text), port: portNumber("") };
  return { host: decodeURIComponent(text.slice(0, colon)), port: portNumber(text.slice(colon + 1)) };
}

function authorityText(host: DatabaseHost): string {
  return `${host.host.includes(":") ? `[${host.host}]` : encodeURIComponent(host.host)}:${host.port}`;
}

function portNumber(text: string): number {
  if (text === "") return DEFAULT_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) throw new Error(`has the port "${text}": ports are 1 to 65535`);
  return port;
}

/** "127.0.0.1:5432" or "[::1]:5432", for log lines and error messages (never the user or password). */
export function hostText(host: DatabaseHost): string {
  return `${host.host.includes(":") ? `[${host.host}]` : host.host}:${host.port}`;
}
