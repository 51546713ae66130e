#!/usr/bin/env bash
# Installs the official MCP conformance suite for clients and the Node it
# runs on (Node 22 from the npm registry, whatever node the machine has) into
# a project-local prefix, for conformance/conformance_test.go.
#
# The prefix defaults to .ci/node_modules/conformance (ignored by git); the
# test reads AGENT_CONFORMANCE_PREFIX too.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${AGENT_CONFORMANCE_PREFIX:-$root/.ci/node_modules/conformance}"

mkdir -p "$prefix"
npm install --no-audit --no-fund --loglevel=error --prefix "$prefix" \
  "node@22" "@modelcontextprotocol/conformance@0.1.16"
"$prefix/node_modules/.bin/node" --version
