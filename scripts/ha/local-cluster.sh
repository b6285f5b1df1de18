#!/usr/bin/env bash
# A pg_auto_failover formation on one machine, for the failover test and for trying failover by
# hand: a monitor and two PostgreSQL nodes (a primary and its synchronous standby) in a folder of
# their own, on loopback ports. Production runs each on a machine of its own (deploy/pg_auto_failover/,
# docs/operations.md "High availability").
#
#   scripts/ha/local-cluster.sh start DIR [MONITOR_PORT]   monitor on MONITOR_PORT (default 56100),
#                                                           node1 and node2 on the next two ports;
#                                                           prints DATABASE_URL= (and the standby-first URL
#                                                           for reading by hand: STANDBY_FIRST_URL=)
#   scripts/ha/local-cluster.sh state DIR [--json]          pg_autoctl show state
#   scripts/ha/local-cluster.sh run DIR NODE                starts NODE's pg_autoctl again (monitor, node1, node2)
#   scripts/ha/local-cluster.sh stop-node DIR NODE          stops NODE's pg_autoctl and its PostgreSQL
#   scripts/ha/local-cluster.sh stop DIR                    stops everything (DIR is kept)
#
# Needs Debian's postgresql-15-auto-failover (pg_autoctl). As root, everything runs as the
# `postgres` user (initdb refuses root). Every node trusts loopback connections: a test set-up only.
set -euo pipefail

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
command -v pg_autoctl >/dev/null || { echo "pg_autoctl is not installed (apt-get install postgresql-15-auto-failover)" >&2; exit 3; }

as_pg() { if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# pg_autoctl keeps its configuration and state under XDG folders: one set per node, in DIR.
node_env() {
  local dir=$1 node=$2
  echo "PGDATA=$dir/$node/pgdata XDG_CONFIG_HOME=$dir/$node/config XDG_DATA_HOME=$dir/$node/share XDG_RUNTIME_DIR=$dir/$node/run PATH=$PG_BIN:/usr/bin:/bin"
}
autoctl() { local dir=$1 node=$2; shift 2; as_pg env $(node_env "$dir" "$node") pg_autoctl "$@"; }

# Starts NODE's pg_autoctl (the keeper, which starts and supervises PostgreSQL) in the background.
run_node() {
  local dir=$1 node=$2
  # setsid: the keeper outlives this script and a test's process group.
  setsid bash -c "$(declare -f as_pg); as_pg env $(node_env "$dir" "$node") pg_autoctl run >>'$dir/$node/autoctl.log' 2>&1" </dev/null >/dev/null 2>&1 &
}

# Stops NODE's pg_autoctl and waits until it has exited (pg_autoctl stop only signals it; a new
# `run` while the old one finishes refuses to start: "An instance of pg_autoctl is already running").
stop_node() {
  local dir=$1 node=$2 pidfile pid
  pidfile=$(autoctl "$dir" "$node" show file --pid 2>/dev/null || true)
  pid=$(head -n 1 "$pidfile" 2>/dev/null || true)
  autoctl "$dir" "$node" stop --fast >/dev/null 2>&1 || true
  [ -n "$pid" ] || return 0
  for _ in $(seq 1 120); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.5
  done
  echo "$node's pg_autoctl did not stop" >&2
  return 1
}

# Waits until the monitor reports every node in the wanted state (up to 120 s).
wait_states() {
  local dir=$1 want=$2
  for _ in $(seq 1 240); do
    local now
    now=$(autoctl "$dir" monitor show state --json 2>/dev/null |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).map(n=>n.nodename+":"+n.current_group_state).sort().join(" "))}catch{console.log("")}})' || true)
    [ "$now" = "$want" ] && return 0
    sleep 0.5
  done
  echo "the formation did not reach \"$want\" (now \"${now:-}\")" >&2
  return 1
}

psql_at() { as_pg "$PG_BIN/psql" -X -Atq "postgresql://postgres@127.0.0.1:$1/mutual" -c "$2"; }

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { sed -n 2,18p "$0" >&2; exit 2; }

case "$command" in
  start)
    monitor_port=${3:-56100}
    node1_port=$((monitor_port + 1))
    node2_port=$((monitor_port + 2))
    # run/: pg_autoctl's pid files (XDG_RUNTIME_DIR; it falls back to /tmp/pg_autoctl without it).
    mkdir -p "$dir"/{monitor,node1,node2}/run
    chmod 700 "$dir"/{monitor,node1,node2}/run
    if [ "$(id -u)" = "0" ]; then chown -R postgres "$dir"; fi
    monitor_uri="postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable"

    autoctl "$dir" monitor create monitor --pgctl "$PG_BIN/pg_ctl" --pgport "$monitor_port" \
      --hostname 127.0.0.1 --auth trust --no-ssl >>"$dir/monitor/autoctl.log" 2>&1
    autoctl "$dir" monitor config set postgresql.listen_addresses 127.0.0.1 >/dev/null
    run_node "$dir" monitor
    for _ in $(seq 1 120); do as_pg "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$monitor_port" && break; sleep 0.5; done

    # node1 first: it becomes the primary; node2 is cloned from it and becomes its standby.
    for node in node1 node2; do
      port=$node1_port; [ "$node" = node2 ] && port=$node2_port
      autoctl "$dir" "$node" create postgres --pgctl "$PG_BIN/pg_ctl" --pgport "$port" --listen 127.0.0.1 \
        --hostname 127.0.0.1 --name "$node" --dbname mutual --auth trust --no-ssl --monitor "$monitor_uri" \
        >>"$dir/$node/autoctl.log" 2>&1
      # pg_autoctl sizes shared_buffers for a machine of its own (a quarter of its memory); three
      # servers share this one. postgresql.auto.conf is read last, so this wins.
      echo "shared_buffers = '128MB'" >>"$dir/$node/pgdata/postgresql.auto.conf"
      run_node "$dir" "$node"
      if [ "$node" = node1 ]; then wait_states "$dir" "node1:single"; fi
    done
    wait_states "$dir" "node1:primary node2:secondary"
    # Commits wait for the standby: pg_auto_failover sets synchronous_commit = on and names the
    # standby in synchronous_standby_names once it is a secondary.
    for _ in $(seq 1 60); do
      [ "$(psql_at "$node1_port" "select count(*) from pg_stat_replication where sync_state in ('sync','quorum')")" = 1 ] && break
      sleep 0.5
    done
    echo "synchronous_commit=$(psql_at "$node1_port" "show synchronous_commit")"
    echo "synchronous_standby_names=$(psql_at "$node1_port" "show synchronous_standby_names")"
    echo "sync_state=$(psql_at "$node1_port" "select string_agg(application_name || ':' || sync_state, ',') from pg_stat_replication")"
    echo "DATABASE_URL=postgresql://postgres@127.0.0.1:$node1_port,127.0.0.1:$node2_port/mutual?target_session_attrs=read-write"
    echo "STANDBY_FIRST_URL=postgresql://postgres@127.0.0.1:$node1_port,127.0.0.1:$node2_port/mutual?target_session_attrs=prefer-standby"
    ;;
  state)
    autoctl "$dir" monitor show state "${@:3}"
    ;;
  run)
    run_node "$dir" "${3:?node name}"
    ;;
  stop-node)
    stop_node "$dir" "${3:?node name}"
    ;;
  stop)
    for node in node1 node2 monitor; do
      if [ -d "$dir/$node/config" ]; then stop_node "$dir" "$node" || true; fi
    done
    # pg_autoctl stop returns before its PostgreSQL is down: wait for every postmaster to go.
    for node in node1 node2 monitor; do
      for _ in $(seq 1 60); do
        [ -f "$dir/$node/pgdata/postmaster.pid" ] || break
        pid=$(head -n 1 "$dir/$node/pgdata/postmaster.pid" 2>/dev/null || true)
        [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
      done
    done
    ;;
  *)
    sed -n 2,18p "$0" >&2
    exit 2
    ;;
esac
