#!/usr/bin/env node
// The conformance suite's client command: it translates the suite's
// conventions into the agent's and runs the agent. It never speaks MCP.
//
//   node adapter.mjs SERVER_URL
//
// In: MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_CONTEXT (credentials the
// scenario hands the client), AGENT_CONFORMANCE_BIN (the built agent) and
// AGENT_CONFORMANCE_MODEL_URL (a fake Anthropic API that calls every tool it
// is offered; see conformance_test.go).
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const url = process.argv[2];
// The prefix of the prompt's line of tool arguments (conformance_test.go's
// toolCallsMarker).
const toolCallsMarker = "conformance-tool-calls: ";
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const bin = process.env.AGENT_CONFORMANCE_BIN;
const model = process.env.AGENT_CONFORMANCE_MODEL_URL;
if (!url || !bin || !model) {
  console.error("usage: AGENT_CONFORMANCE_BIN=... AGENT_CONFORMANCE_MODEL_URL=... node adapter.mjs SERVER_URL");
  process.exit(2);
}

// The scenario's credentials become the server's "oauth" entry.
const oauth = {};
if (ctx.client_id) oauth.client_id = ctx.client_id;
if (ctx.client_secret) oauth.client_secret = ctx.client_secret;
if (ctx.private_key_pem) oauth.private_key = ctx.private_key_pem;
if (ctx.signing_algorithm) oauth.signing_alg = ctx.signing_algorithm;
if (scenario.startsWith("auth/client-credentials")) oauth.grant = "client_credentials";
// Cross-app access: the enterprise IdP and the user's ID token from it.
if (ctx.idp_issuer) {
  oauth.grant = "cross_app";
  oauth.idp = { issuer: ctx.idp_issuer, client_id: ctx.idp_client_id, id_token: ctx.idp_id_token };
}

// Workload identity federation: the workload's identity token, in a file
// as a platform mounts one (a Kubernetes projected service account token).
const dir = mkdtempSync(join(tmpdir(), "agent-conformance-"));
if (scenario.startsWith("auth/wif") && ctx.valid_jwt) {
  const tokenFile = join(dir, "workload-token");
  writeFileSync(tokenFile, ctx.valid_jwt, { mode: 0o600 });
  oauth.grant = "workload_identity";
  oauth.workload_token = `@${tokenFile}`;
}

const server = { type: "http", url };
if (Object.keys(oauth).length > 0) server.oauth = oauth;

const config = join(dir, "mcp.json");
writeFileSync(config, JSON.stringify({ mcpServers: { conformance: server } }, null, 2), { mode: 0o600 });
// The suite's authorization servers that accept Client ID Metadata
// Documents expect this URL as the client_id (its own clients use it).
const settings = join(dir, "config.json");
writeFileSync(settings, JSON.stringify({ oauth_client_metadata_url: "https://conformance-test.local/client-metadata.json" }));

const here = dirname(fileURLToPath(import.meta.url));
const env = {
  ...process.env,
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, "config"),
  XDG_DATA_HOME: join(dir, "data"),
  ANTHROPIC_API_KEY: "test-key",
  // Sign-ins go to files under the temporary HOME, never the keychain of
  // the machine the suite runs on.
  AGENT_TOKEN_STORE: "file",
  // The authorization URL's only argument; browser.mjs follows its redirects
  // to the agent's 127.0.0.1 listener, as a user's browser would.
  BROWSER: join(here, "browser.mjs"),
  // browser.mjs runs under the node that runs this script.
  PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
};
// Some scenarios name the arguments each tool is to be called with (the
// context's toolCalls: http-custom-headers' values to encode): the prompt
// carries them, on a line of their own, for the fake model to use.
let prompt = "Call each of the conformance server's tools once.";
if (Array.isArray(ctx.toolCalls)) prompt += `\n${toolCallsMarker}${JSON.stringify(ctx.toolCalls)}`;
const args = [
  "-p", prompt, "--config", settings,
  "--mcp-config", config, "--mcp", "conformance",
  "--provider", "anthropic", "--base-url", model,
  "--db", join(dir, "agent.db"), "--output-format", "json",
];
// The elicitation scenarios ask the client to accept with the form's
// defaults: that is what --yes answers for the user (accept-defaults).
if (scenario.startsWith("elicitation")) args.push("--yes");
const r = spawnSync(bin, args, { env, stdio: "inherit" });
rmSync(dir, { recursive: true, force: true });
if (r.error) {
  console.error(`adapter: ${bin}: ${r.error.message}`);
  process.exit(1);
}
process.exit(r.status ?? 1);
