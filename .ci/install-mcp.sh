#!/usr/bin/env bash
# Installs the real MCP servers the tools/mcp integration tests and the
# start-time benchmark run against, into a project-local prefix so nothing
# global is touched. Versions are pinned so CI results are reproducible; they
# match the catalogs captured in ../shared/catalogs (SERVERS.md).
#
#   .ci/install-mcp.sh          # test servers (everything, filesystem, memory)
#   .ci/install-mcp.sh --bench  # also the other npm servers of SERVERS.md
#
# The prefix defaults to .ci/node_modules/mcp (inside an ignored directory, so
# npm's package.json stays out of git; binaries in PREFIX/node_modules/.bin);
# override with AGENT_MCP_NODE_PREFIX, which the tests read too.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${AGENT_MCP_NODE_PREFIX:-$root/.ci/node_modules/mcp}"

pkgs=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
)
if [[ "${1:-}" == "--bench" ]]; then
  pkgs+=(
    "@modelcontextprotocol/server-sequential-thinking@2026.8.31"
    "@modelcontextprotocol/server-github@2025.4.8"
    "@playwright/mcp@0.0.83"
    "@notionhq/notion-mcp-server@2.5.2"
    "@wonderwhy-er/desktop-commander@0.2.52"
    "chrome-devtools-mcp@1.11.0"
    "@modelcontextprotocol/server-puppeteer@2025.5.12"
  )
fi

mkdir -p "$prefix"
# Browsers are not needed to list tools; skip their downloads.
export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
npm install --no-audit --no-fund --loglevel=error --prefix "$prefix" "${pkgs[@]}"
echo "MCP servers installed in $prefix/node_modules/.bin:"
ls "$prefix/node_modules/.bin" | grep -E 'mcp|notion' || true
