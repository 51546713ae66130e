#!/usr/bin/env python3
"""Converts the OpenAI pydantic-ai VCR cassettes of ../../../../../shared/fixtures
to JSON (Go has no YAML parser in go.mod). Run from this directory:
    python3 convert.py
Each output file is {"source": path, "interactions": [{"uri", "request", "status", "response" | "sse"}]}.
Nothing is edited: request and response bodies are the cassettes' parsed_body values."""
import glob, json, os, yaml

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../../../shared/fixtures/pydantic-ai'))
for f in sorted(glob.glob(os.path.join(root, '*/*.yaml'))):
    d = yaml.safe_load(open(f))
    ints = []
    for i in d['interactions']:
        r = i['request']
        resp = i['response']
        e = {'uri': r['uri'], 'request': r.get('parsed_body'), 'status': resp['status']['code']}
        if 'parsed_body' in resp:
            e['response'] = resp['parsed_body']
        else:
            e['sse'] = resp.get('body', {}).get('string', '')
        ints.append(e)
    if not any('openai.com' in e['uri'] for e in ints):
        continue
    rel = os.path.relpath(f, os.path.dirname(root))
    out = os.path.basename(f)[:-5] + '.json'
    json.dump({'source': rel, 'interactions': ints}, open(out, 'w'), indent=1, sort_keys=True)
    print(out)
