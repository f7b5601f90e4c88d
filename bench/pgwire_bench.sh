#!/usr/bin/env bash
# The PostgreSQL wire server under load, with pgbench (postgresql-contrib's client, in
# Debian's postgresql package) as the client, in one run:
#   1. the same SELECT 1 loops, simple and prepared protocol, against hop serve --pg-port and a
#      PostgreSQL 15 started here on a temporary directory: throughput, p99 latency, the ratio;
#   2. load: 200 connections running a mix of queries and DDL (CREATE OR REPLACE VIEW, a query
#      of it, DROP VIEW) against hop for LOAD_SECONDS, which must end with no failed transaction.
# Usage: bench/pgwire_bench.sh [BUILD_DIR]   (make bench-pgwire). Everything it starts listens on
# 127.0.0.1 and is stopped by its pid at the end.
set -euo pipefail

BUILD="${1:-build}"
HOP="$(cd "$BUILD" && pwd)/hop"
SECONDS_EACH="${SECONDS_EACH:-10}"
LOAD_SECONDS="${LOAD_SECONDS:-60}"
CLIENTS="${CLIENTS:-4}"
PGBIN=/usr/lib/postgresql/15/bin
WORK="$(mktemp -d /tmp/hop-pgwire-bench.XXXXXX)"
chmod 0711 "$WORK"  # the postgres user must reach its directory inside
HOP_PORT=$((20000 + RANDOM % 10000))
PG_PORT=$((HOP_PORT + 1))
HOP_PID=""
cleanup() {
  if [ -n "$HOP_PID" ]; then kill -TERM "$HOP_PID" 2>/dev/null || true; wait "$HOP_PID" 2>/dev/null || true; fi
  if [ -f "$WORK/pg/data/postmaster.pid" ]; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"$HOP" --state "$WORK/state" serve --pg-port "$HOP_PORT" --pg-max-connections 300 \
  >"$WORK/serve.log" 2>&1 &
HOP_PID=$!
mkdir -p "$WORK/pg"
chown postgres:postgres "$WORK/pg"
runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/pg/data" -A trust -U postgres -E UTF8 \
  --locale=C.UTF-8 --no-sync >/dev/null
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/server.log" -w -t 30 \
  -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off" \
  start >/dev/null
for _ in $(seq 100); do
  psql "host=127.0.0.1 port=$HOP_PORT user=bench dbname=hop" -Atc 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.1
done

echo 'SELECT 1;' >"$WORK/select1.sql"

# Runs pgbench; prints "tps p99_ms failed".
run() {
  local port=$1 user=$2 mode=$3 clients=$4 seconds=$5 script=$6
  local dir="$WORK/log-$port-$mode-$clients"
  mkdir -p "$dir"
  local out
  out=$(cd "$dir" && pgbench -n -h 127.0.0.1 -p "$port" -U "$user" -c "$clients" -j 2 -T "$seconds" \
    -M "$mode" -f "$script" -l --log-prefix=tx "$user" 2>&1 || true)
  local tps failed p99
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")
  failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<<"$out")
  # Per-transaction log lines: client, tx, latency in microseconds, ...
  p99=$(cat "$dir"/tx* | awk '{print $3}' | sort -n | awk '{a[NR]=$1} END {if (NR==0) {print "nan"} else {i=int(NR*0.99); if (i<1) i=1; printf "%.3f", a[i]/1000}}')
  if [ -z "$tps" ]; then echo "$out" >&2; fi
  echo "${tps:-0} $p99 ${failed:-?}"
}

printf '%-10s %-9s %12s %10s %12s %10s %8s\n' mode clients hop_tps hop_p99ms pg_tps pg_p99ms ratio
for mode in simple prepared; do
  read -r htps hp99 _ < <(run "$HOP_PORT" bench "$mode" "$CLIENTS" "$SECONDS_EACH" "$WORK/select1.sql")
  read -r ptps pp99 _ < <(run "$PG_PORT" postgres "$mode" "$CLIENTS" "$SECONDS_EACH" "$WORK/select1.sql")
  ratio=$(awk -v a="$htps" -v b="$ptps" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "nan"}')
  printf '%-10s %-9s %12s %10s %12s %10s %8s\n' "$mode" "$CLIENTS" "$htps" "$hp99" "$ptps" "$pp99" "$ratio"
done

# The load: a local database, then per transaction one client's own view made, read, dropped,
# and queries of a system table and a constant.
psql "host=127.0.0.1 port=$HOP_PORT user=bench dbname=hop" -q -c \
  "CREATE DATABASE benchdb WITH (url 'jdbc:local:bench', schema 'B')" >/dev/null
cat >"$WORK/mix.sql" <<'SQL'
\set n random(1, 1000000)
SELECT :n + 1;
CREATE OR REPLACE VIEW b.v:client_id AS SELECT :n AS x;
SELECT x FROM b.v:client_id;
SELECT COUNT(*) FROM "k8s".DATABASES;
DROP VIEW b.v:client_id;
SQL
read -r ltps lp99 lfailed < <(run "$HOP_PORT" bench simple 200 "$LOAD_SECONDS" "$WORK/mix.sql")
echo "load: 200 connections, ${LOAD_SECONDS} s, mix of queries and DDL: ${ltps} tps, p99 ${lp99} ms, ${lfailed} failed"
if [ "$lfailed" != "0" ]; then
  echo "load: failed transactions" >&2
  exit 1
fi
