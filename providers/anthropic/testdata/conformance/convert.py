#!/usr/bin/env python3
"""Convert every Anthropic recording of ../../../../../shared/fixtures into JSON
the Go conformance test reads without a YAML library, so the test also runs
on a clone without ../shared.

Only Anthropic /v1/messages interactions are kept. Bodies are unchanged apart
from YAML decoding (pydantic stores JSON bodies as parsed YAML with sorted keys;
crmne stores strings, some !binary). Output: one <source>__<file>.json per
cassette: {"source", "interactions": [{"index", "request", "response":
{"status", "json" | "sse"}}]} where index is the position in the cassette
(other providers' interactions are counted but left out). vercel-ai captures
have no request; their JSON-per-line .chunks.txt files are split into one SSE
body per response (at each message_start).

Run from this directory: python3 convert.py
"""
import base64, glob, json, os, yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../../shared/fixtures"))

class Loader(yaml.SafeLoader):
    pass

Loader.add_constructor("!binary", lambda l, n: base64.b64decode(l.construct_scalar(n)).decode("utf-8"))

def body_of(part):
    if part.get("parsed_body") is not None:
        return part["parsed_body"]
    b = part.get("body")
    if isinstance(b, dict):
        b = b.get("string")
    return b

for path in sorted(glob.glob(ROOT + "/pydantic-ai/**/*.yaml", recursive=True) + glob.glob(ROOT + "/crmne-ruby_llm-pr745/*.yml")):
    d = yaml.load(open(path), Loader=Loader)
    its = d.get("interactions") or d.get("http_interactions") or []
    out = []
    for i, it in enumerate(its):
        rq, rs = it["request"], it["response"]
        if "api.anthropic.com/v1/messages" not in rq.get("uri", "") or "count_tokens" in rq.get("uri", ""):
            continue
        req = body_of(rq)
        if isinstance(req, str):
            req = json.loads(req)
        status = rs.get("status")
        if isinstance(status, dict):
            status = status.get("code")
        resp = {"status": status}
        b = body_of(rs)
        if isinstance(b, str) and b.lstrip().startswith(("event:", "data:")):
            resp["sse"] = b
        elif isinstance(b, str):
            resp["json"] = json.loads(b)
        else:
            resp["json"] = b
        out.append({"index": i, "request": req, "response": resp})
    if not out:
        continue
    rel = os.path.relpath(path, ROOT)
    name = rel.replace("/", "__").rsplit(".", 1)[0] + ".json"
    with open(name, "w") as f:
        json.dump({"source": rel, "interactions": out}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(name, len(out))


def write(rel, out):
    name = rel.replace("/", "__").rsplit(".", 1)[0] + ".json"
    with open(name, "w") as f:
        json.dump({"source": rel, "interactions": out}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(name, len(out))

# JSON conversions already made by the fixture curators (benjaminwood, crewai).
for path in sorted(glob.glob(ROOT + "/benjaminwood-ruby_llm/*.json") + glob.glob(ROOT + "/crewai/*.json")):
    d = json.load(open(path))
    out = []
    for i, it in enumerate(d["interactions"]):
        rs = it["response"]
        resp = {"status": rs.get("status", 200)}
        if rs.get("body_sse") is not None:
            resp["sse"] = rs["body_sse"]
        else:
            resp["json"] = rs["body"]
        out.append({"index": i, "request": it["request"], "response": resp})
    write(os.path.relpath(path, ROOT), out)

# vercel-ai: responses only.
for path in sorted(glob.glob(ROOT + "/vercel-ai/anthropic/*")):
    rel = os.path.relpath(path, ROOT)
    if path.endswith(".chunks.txt"):
        responses, cur = [], []
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            if json.loads(line).get("type") == "message_start" and cur:
                responses.append(cur)
                cur = []
            cur.append(line)
        if cur:
            responses.append(cur)
        out = []
        for i, r in enumerate(responses):
            sse = "".join("event: %s\ndata: %s\n\n" % (json.loads(l)["type"], l) for l in r)
            out.append({"index": i, "request": None, "response": {"status": 200, "sse": sse}})
        write(rel.replace(".chunks.txt", ".chunks.json"), out)
    elif path.endswith(".json"):
        body = json.load(open(path))
        status = 400 if body.get("type") == "error" else 200
        write(rel, [{"index": 0, "request": None, "response": {"status": status, "json": body}}])
