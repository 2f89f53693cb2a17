#!/usr/bin/env bash
# The moto server, an engine that accepts DynamoDB client request tokens
# and ignores them: the engine probe's test runs against it.
#
#   moto.sh install          a virtualenv with moto[server] (cached)
#   moto.sh run <command...> install, start on a free port on 127.0.0.1,
#                            wait until it answers, run the command with
#                            ENTITY_MOTO_ENDPOINT set, always stop; exits
#                            with the command's status
#
# Environment:
#   MOTO_HOME   the virtualenv and logs (default: target/moto)
#   PYTHON      the python to make the virtualenv with (default: python3)
set -euo pipefail

readonly PACKAGE="moto[server]==5.1.*"
SERVER_PID=
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOME_DIR="${MOTO_HOME:-$ROOT/target/moto}"
VENV="$HOME_DIR/venv"

say() { echo "moto: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

install() {
  if [[ -x "$VENV/bin/moto_server" && "$(cat "$VENV/.package" 2>/dev/null)" == "$PACKAGE" ]]; then
    return
  fi
  local python="${PYTHON:-python3}"
  command -v "$python" >/dev/null || die "python3 is needed (set PYTHON)"
  say "installing $PACKAGE"
  mkdir -p "$HOME_DIR"
  "$python" -m venv "$VENV" || die "cannot make a virtualenv (Debian: apt-get install python3-venv)"
  "$VENV/bin/pip" install -q --disable-pip-version-check "$PACKAGE"
  echo "$PACKAGE" >"$VENV/.package"
}

free_port() {
  "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

run() {
  install
  local port status=0
  port="$(free_port)"
  "$VENV/bin/moto_server" -H 127.0.0.1 -p "$port" >"$HOME_DIR/server-$port.log" 2>&1 &
  SERVER_PID=$!
  trap 'kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 1 120); do
    if "$VENV/bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/moto-api/')" 2>/dev/null; then
      break
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || die "moto_server exited: $(tail -5 "$HOME_DIR/server-$port.log")"
    sleep 0.5
  done
  say "listening on 127.0.0.1:$port"
  ENTITY_MOTO_ENDPOINT="http://127.0.0.1:$port" "$@" || status=$?
  return "$status"
}

case "${1:-}" in
  install) install ;;
  run)
    shift
    (($# > 0)) || die "run needs a command"
    run "$@"
    ;;
  *) die "usage: moto.sh install | run <command...>" ;;
esac
