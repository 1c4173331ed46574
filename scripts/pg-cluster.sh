#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a temporary directory and a loopback port, for tests, benches
# and local trials of `--store postgres://…`. Nothing here touches a system cluster.
#
#   scripts/pg-cluster.sh start DIR [PORT]   init DIR if empty, start on 127.0.0.1:PORT (default 54329),
#                                            print the URL (postgres://tern@127.0.0.1:PORT/tern)
#   scripts/pg-cluster.sh stop DIR           fast shutdown
#   scripts/pg-cluster.sh restart DIR        stop then start on the same port (tests: "database restarted")
#   scripts/pg-cluster.sh url DIR            print the URL of a started cluster
#
# DIR should sit under a world-traversable parent such as /tmp (os.tmpdir()): as root the server
# runs as `postgres`, which must reach it. initdb refuses to run as root, so as root the cluster belongs to the `postgres` system user
# (Debian's postgresql package creates it). Trust auth on loopback only: the cluster is local and
# short-lived by design; never point it at a shared or routable address.
set -euo pipefail

bindir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    pg_config --bindir
    return
  fi
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$found" ]; then
    echo "pg-cluster: PostgreSQL server binaries not found (apt-get install postgresql)" >&2
    exit 2
  fi
  echo "$found"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || {
  echo "usage: pg-cluster.sh start|stop|restart|url DIR [PORT]" >&2
  exit 2
}
bin=$(bindir)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
data="$dir/data"

url() { echo "postgres://tern@127.0.0.1:$(cat "$dir/port")/tern"; }

start() {
  local port=${1:-$(cat "$dir/port" 2>/dev/null || echo 54329)}
  echo "$port" >"$dir/port"
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir"; fi
  if [ ! -f "$data/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$data" -U tern --auth=trust --encoding=UTF8 --no-sync >"$dir/initdb.log" 2>&1 || {
      cat "$dir/initdb.log" >&2
      exit 1
    }
  fi
  # The socket lives in DIR (not /var/run/postgresql, which may not exist or belong to another cluster).
  as_owner "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null || {
    cat "$dir/server.log" >&2
    exit 1
  }
  as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U tern -d postgres -qtAc \
    "SELECT 1 FROM pg_database WHERE datname='tern'" | grep -q 1 ||
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U tern tern
  url
}

stop() { as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true; }

case "$cmd" in
start) start "${3:-}" ;;
stop) stop ;;
restart) stop && start ;;
url) url ;;
*)
  echo "pg-cluster: unknown command $cmd" >&2
  exit 2
  ;;
esac
