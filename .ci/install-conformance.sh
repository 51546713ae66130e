#!/usr/bin/env bash
# Installs the official MCP conformance suite for clients, each version
# conformance/conformance_test.go runs (its suiteVersions), with the Node it
# runs on (Node 22 from the npm registry, whatever node the machine has),
# into a project-local prefix per version:
# .ci/node_modules/conformance-VERSION (ignored by git).
#
# 0.1.16 is the suite of protocol 2025-11-25, which every client scenario
# passes; the newest adds the next revision's (2026-07-28) scenarios, which
# conformance/testdata/expected-failures-VERSION.yml says are not all
# passed yet. The test runs one other install instead when
# AGENT_CONFORMANCE_PREFIX names it.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  versions=(0.1.16 0.2.0-alpha.12)
fi

for v in "${versions[@]}"; do
  prefix="$root/.ci/node_modules/conformance-$v"
  mkdir -p "$prefix"
  npm install --no-audit --no-fund --loglevel=error --prefix "$prefix" \
    "node@22" "@modelcontextprotocol/conformance@$v"
  echo "conformance $v: node $("$prefix/node_modules/.bin/node" --version)"
done
