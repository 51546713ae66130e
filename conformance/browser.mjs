#!/usr/bin/env node
// A stand-in browser for the conformance runs: it opens the authorization URL
// (its only argument) and follows the redirects, which for the suite's
// authorization server end at the agent's 127.0.0.1 callback. The user's
// consent is implied, as the suite's own clients do.
const url = process.argv[2];
if (!url || process.argv.length !== 3) {
  console.error("usage: browser.mjs URL");
  process.exit(2);
}
try {
  const res = await fetch(url, { redirect: "follow" });
  await res.text();
  if (!res.ok) {
    console.error(`browser.mjs: ${res.status} from ${res.url}`);
    process.exit(1);
  }
} catch (e) {
  console.error(`browser.mjs: ${e.message}`);
  process.exit(1);
}
