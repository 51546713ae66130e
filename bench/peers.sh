#!/usr/bin/env bash
# Paired ratios against the peers, each pair run in turn (A B A B ...) so
# the machine's drift hits both alike; each pair's ratio of wall time and of
# peak RSS, then their medians:
#   - `agent --version` against `claude --version` (Claude Code) and
#     `codex --version` (Codex CLI);
#   - a real cold `-p` turn with the catalog's deferred tools (282, and the
#     sizes in $SIZES), each client searching with its own search tool
#     against a strict fake of its API, calling the echo tool, answering:
#     `go run ./bench peers` (bench/peerbench) against Claude Code on the
#     Anthropic route and Codex on Responses.
#
#   bash bench/peers.sh [RUNS]          (default 15 pairs; SIZES=282,5000)
#
# Needs Node and npm: the peers are installed under $PEERS_DIR (default
# /tmp/agent-peers) from npm (@anthropic-ai/claude-code, @openai/codex),
# asked for @latest: without it, npm here installed Claude Code 2.1.197
# while the registry's latest was 2.1.332. The report names the versions.
# agent is built as a release is, its version through ldflags.
set -euo pipefail
runs=${1:-15}
root=$(cd "$(dirname "$0")/.." && pwd)
peers=${PEERS_DIR:-/tmp/agent-peers}
mkdir -p "$peers"
if [ ! -x "$peers/node_modules/.bin/codex" ] || [ ! -d "$peers/node_modules/@anthropic-ai/claude-code" ]; then
	(cd "$peers" && npm install --no-audit --no-fund @anthropic-ai/claude-code@latest @openai/codex@latest >/dev/null)
fi
# Claude Code's native binary, as its postinstall would copy it over its
# placeholder (npm may not run install scripts); else its node wrapper.
claude=("$peers/node_modules/@anthropic-ai/claude-code-linux-x64/claude")
[ -x "${claude[0]}" ] || claude=(node "$peers/node_modules/@anthropic-ai/claude-code/cli-wrapper.cjs")
codex=("$peers/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
[ -x "${codex[0]}" ] || codex=("$peers/node_modules/.bin/codex")
agent="$peers/agent"
(cd "$root" && go build -ldflags "-X github.com/agent-dev/agent/internal/early.Version=peers" -o "$agent" .)

# one CMD...: prints "wall_seconds peak_rss_kb" of one run.
one() {
	/usr/bin/time -f '%e %M' -o "$peers/time.out" "$@" >/dev/null 2>&1
	cat "$peers/time.out"
}

pair() { # NAME CMD... -- prints the medians of agent/peer ratios
	local name=$1
	shift
	local wr=() mr=()
	one "$agent" --version >/dev/null
	one "$@" >/dev/null # warm-up
	for _ in $(seq "$runs"); do
		read -r aw am < <(one "$agent" --version)
		read -r pw pm < <(one "$@")
		wr+=("$(awk -v a="$aw" -v b="$pw" 'BEGIN{ if (b > 0) printf "%.3f", a/b; else print "nan" }')")
		mr+=("$(awk -v a="$am" -v b="$pm" 'BEGIN{ printf "%.3f", a/b }')")
		echo "$name pair: agent ${aw}s ${am}KB, peer ${pw}s ${pm}KB" >&2
	done
	med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
	echo "| $name --version | $(med "${wr[@]}") | $(med "${mr[@]}") |"
}

echo "| pair (agent / peer), $runs runs each | wall ratio (median) | peak RSS ratio (median) |"
echo "|---|---|---|"
pair "claude" "${claude[@]}" --version
pair "codex" "${codex[@]}" --version
echo
# The -p turns need the native binaries (the fake answers what they send).
[ -x "${claude[0]}" ] || { echo "no native claude binary under $peers: -p pairs skipped" >&2; exit 0; }
[ -x "${codex[0]}" ] || { echo "no native codex binary under $peers: -p pairs skipped" >&2; exit 0; }
(cd "$root" && go run ./bench peers --runs "$runs" --sizes "${SIZES:-282,5000}" --claude "${claude[0]}" --codex "${codex[0]}")
