#!/usr/bin/env bash
# Open a kperf Chrome trace in speedscope (headless Chromium) and save a
# screenshot, to check that the trace loads in a real viewer.
#
#   bash scripts/trace-screenshot.sh [TRACE.json] [OUT.png] [VIEW]
#
# TRACE defaults to out/trace.json, OUT to docs/trace-speedscope.png, VIEW to
# time-ordered (also: left-heavy, sandwich). speedscope shows the first
# track (pid/tid) of the file.
#
# Installs what is missing: speedscope from npm into $KPERF_VIEWER_DIR
# (default /tmp/kperf-viewer) and Debian's chromium with apt-get. Serves the
# viewer and the trace from a python3 http.server bound to 127.0.0.1 on a
# free port, and stops it on exit.
#
# speedscope's console is captured: the script prints how many nesting
# warnings the importer logged ("Tried to end ...", "... was still open at end
# of profile"), which mean the X events did not nest exactly as the importer
# sees them. STRICT=1 makes the script fail when there are any.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
trace=${1:-$root/out/trace.json}
png=${2:-$root/docs/trace-speedscope.png}
view=${3:-time-ordered}
viewer_dir=${KPERF_VIEWER_DIR:-/tmp/kperf-viewer}
width=${WIDTH:-1600}
height=${HEIGHT:-1000}

[[ -f $trace ]] || { echo "trace not found: $trace" >&2; exit 1; }
case $view in time-ordered|left-heavy|sandwich) ;; *) echo "bad view: $view" >&2; exit 1 ;; esac

# 1. Viewer and browser.
release=$viewer_dir/node_modules/speedscope/dist/release
if [[ ! -f $release/index.html ]]; then
    mkdir -p "$viewer_dir"
    (cd "$viewer_dir" && npm install --no-audit --no-fund speedscope >/dev/null)
fi
[[ -f $release/index.html ]] || { echo "speedscope release not found under $release" >&2; exit 1; }
if ! command -v chromium >/dev/null; then
    apt-get install -y chromium >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
fi
echo "speedscope $(node -p "require('$viewer_dir/node_modules/speedscope/package.json').version"), $(chromium --version 2>/dev/null)"

# 2. Serve viewer + trace from a scratch directory, on 127.0.0.1 only.
work=$(mktemp -d)
server_pid=
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www" "$work/profile"
cp -r "$release/." "$work/www/"
cp "$trace" "$work/www/trace.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/www" >"$work/http.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/index.html" 2>/dev/null && break
    sleep 0.1
done
curl -fsS -o /dev/null "http://127.0.0.1:$port/trace.json" || { echo "http server did not come up" >&2; cat "$work/http.log" >&2; exit 1; }

# 3. Screenshot. speedscope hash params: profileURL, title, view.
url="http://127.0.0.1:$port/index.html#profileURL=http%3A%2F%2F127.0.0.1%3A$port%2Ftrace.json&view=$view"
echo "url: $url"
mkdir -p "$(dirname "$png")"
rm -f "$png"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --window-size="$width,$height" \
    --virtual-time-budget=10000 --enable-logging=stderr --v=0 \
    --screenshot="$png" "$url" >"$work/console.log" 2>&1 || true
[[ -s $png ]] || { echo "no screenshot written" >&2; tail -20 "$work/console.log" >&2; exit 1; }

# 4. What speedscope said about the file.
if grep -q 'Importing as Trace Event Format' "$work/console.log"; then
    echo "speedscope: imported as Trace Event Format"
else
    echo "speedscope: did not report a Trace Event Format import; console:" >&2
    grep 'CONSOLE' "$work/console.log" | sed 's/^.*CONSOLE:[0-9]*\] //' | cut -c1-300 | tail -10 >&2
fi
mismatched=$(grep -c 'Tried to end' "$work/console.log" || true)
left_open=$(grep -c 'was still open at end of profile' "$work/console.log" || true)
echo "speedscope nesting warnings: $mismatched mismatched ends, $left_open frames left open"
if ((mismatched + left_open > 0)); then
    grep -m3 'Tried to end\|still open' "$work/console.log" | sed 's/^.*CONSOLE:[0-9]*\] //; s/", source: .*//' | cut -c1-300
fi
echo "wrote $png ($(stat -c %s "$png") bytes)"
if [[ ${STRICT:-0} == 1 ]] && ((mismatched + left_open > 0)); then exit 2; fi
