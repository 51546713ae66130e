package responsestest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"
)

// Turn is what the model answers to one request: its output items in order.
type Turn []Step

// Step is one output item of a scripted turn. Build steps with the helpers.
type Step struct {
	kind      string
	text      string
	name      string
	args      string
	label     string
	output    string
	citations []Source
	// need cuts a call step at the output limit while the request's
	// max_output_tokens is below it.
	need int
}

// CutCall is a function call cut off by the output limit (status
// incomplete, half its arguments, the response incomplete with reason
// max_output_tokens) while the request's max_output_tokens is below need,
// and a plain call once it is not.
func CutCall(name, args string, need int) Step {
	return Step{kind: "call", name: name, args: args, need: need}
}

// cut reports whether the turn is cut at req's output limit.
func (t Turn) cut(req *parsed) bool {
	for _, st := range t {
		if st.need > 0 && req.MaxOutputTokens < st.need {
			return true
		}
	}
	return false
}

// Source is a web page for web search steps and citations.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Text answers text; citations become url_citation annotations.
func Text(s string, citations ...Source) Step {
	return Step{kind: "text", text: s, citations: citations}
}

// Call calls a function with JSON arguments. The namespace is the one the
// real API would set: the function's own name for a deferred function, the
// group's name inside a namespace, none in the default namespace.
func Call(name, args string) Step { return Step{kind: "call", name: name, args: args} }

// HostedSearch runs the built-in hosted tool search over the deferred tools
// (tool_search_call with paths + tool_search_output with the definitions).
func HostedSearch(query string) Step { return Step{kind: "hosted", text: query} }

// ClientSearch asks the client to search: a tool_search_call with
// execution "client" and arguments {"query": query}.
func ClientSearch(query string) Step { return Step{kind: "client", text: query} }

// WebSearch runs a hosted web search that found sources.
func WebSearch(query string, sources ...Source) Step {
	return Step{kind: "web", text: query, citations: sources}
}

// Reasoning emits a reasoning item with encrypted content.
func Reasoning() Step { return Step{kind: "reasoning"} }

// MCPApproval asks for approval of a remote MCP call.
func MCPApproval(label, name, args string) Step {
	return Step{kind: "approval", label: label, name: name, args: args}
}

// MCPCall runs a remote MCP call if the input approved the request for
// that tool, and answers that it was denied otherwise.
func MCPCall(label, name, args, output string) Step {
	return Step{kind: "mcpcall", label: label, name: name, args: args, output: output}
}

func (s *Server) id(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s_fake%04d", prefix, s.ids)
}

type obj = map[string]any

// generate turns the scripted steps into completed output items.
func (s *Server) generate(turn Turn, req *parsed) ([]obj, error) {
	var out []obj
	for _, st := range turn {
		switch st.kind {
		case "text":
			ann := []obj{}
			for _, c := range st.citations {
				ann = append(ann, obj{"type": "url_citation", "start_index": 0, "end_index": len(st.text), "url": c.URL, "title": c.Title})
			}
			out = append(out, obj{"id": s.id("msg"), "type": "message", "status": "completed", "role": "assistant",
				"content": []obj{{"type": "output_text", "annotations": ann, "logprobs": []any{}, "text": st.text}}})
		case "call":
			if !req.callable(st.name) && req.ClientSearch {
				return nil, fmt.Errorf("Call step of %s, which this request neither defines nor loaded by a tool_search_output", st.name)
			}
			it := obj{"id": s.id("fc"), "type": "function_call", "status": "completed", "arguments": st.args,
				"call_id": s.id("call"), "name": st.name}
			if st.need > 0 && req.MaxOutputTokens < st.need {
				it["status"], it["arguments"] = "incomplete", st.args[:len(st.args)/2]
			}
			if ns := req.namespaceOf(st.name); ns != "" {
				it["namespace"] = ns
			}
			out = append(out, it)
		case "hosted":
			if !req.Hosted {
				return nil, fmt.Errorf("HostedSearch step but the request has no hosted tool_search")
			}
			paths, defs := req.search(st.text)
			out = append(out,
				obj{"id": s.id("tsc"), "type": "tool_search_call", "status": "completed", "arguments": obj{"paths": paths}, "call_id": nil, "execution": "server"},
				obj{"id": s.id("tso"), "type": "tool_search_output", "status": "completed", "call_id": nil, "execution": "server", "tools": defs})
		case "client":
			if !req.ClientSearch {
				return nil, fmt.Errorf("ClientSearch step but the request has no client tool_search")
			}
			out = append(out, obj{"id": s.id("tsc"), "type": "tool_search_call", "status": "completed",
				"arguments": obj{"query": st.text}, "call_id": s.id("call"), "execution": "client"})
		case "web":
			if !req.WebSearch {
				return nil, fmt.Errorf("WebSearch step but the request has no web_search tool")
			}
			srcs := []obj{}
			for _, c := range st.citations {
				srcs = append(srcs, obj{"type": "url", "url": c.URL})
			}
			out = append(out, obj{"id": s.id("ws"), "type": "web_search_call", "status": "completed",
				"action": obj{"type": "search", "query": st.text, "sources": srcs}})
		case "reasoning":
			id := s.id("rs")
			it := obj{"id": id, "type": "reasoning", "summary": []any{}, "encrypted_content": nil}
			if req.Encrypted {
				it["encrypted_content"] = seal(req.Org, id)
			}
			if req.Summary {
				it["summary"] = []obj{{"type": "summary_text", "text": "**Planning** I should look this up first."}}
			}
			out = append(out, it)
		case "approval":
			if !req.MCP[st.label] {
				return nil, fmt.Errorf("MCPApproval step but the request has no mcp tool %q", st.label)
			}
			out = append(out, obj{"id": s.id("mcpr"), "type": "mcp_approval_request", "server_label": st.label, "name": st.name, "arguments": st.args})
		case "mcpcall":
			rid, approved := "", false
			for id, ok := range req.Approvals {
				if str(req.Requests[id]["name"]) == st.name {
					rid, approved = id, ok
				}
			}
			if !approved {
				out = append(out, obj{"id": s.id("msg"), "type": "message", "status": "completed", "role": "assistant",
					"content": []obj{{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": "The call to " + st.name + " was not approved."}}})
				continue
			}
			out = append(out, obj{"id": s.id("mcp"), "type": "mcp_call", "status": "completed", "approval_request_id": rid,
				"server_label": st.label, "name": st.name, "arguments": st.args, "output": st.output, "error": nil})
		default:
			return nil, fmt.Errorf("unknown step %q", st.kind)
		}
	}
	return out, nil
}

// search is the hosted search: every deferred function or namespace sharing
// a word with the query, best first, at most 5. A namespace is loaded with
// the deferred members that match the query themselves, or with all of its
// deferred members when only its name or description matched (as in the
// recorded answer to a search for a whole namespace); the output holds the
// namespace with just those members, and paths name the namespace.
func (p *parsed) search(query string) ([]string, []json.RawMessage) {
	words := strings.Fields(strings.ToLower(query))
	score := func(text string) int {
		text = strings.ToLower(strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(text))
		n := 0
		for _, w := range words {
			if strings.Contains(text, w) {
				n++
			}
		}
		return n
	}
	type hit struct {
		s     searchable
		score int
	}
	var hits []hit
	for _, d := range p.DeferredOrder {
		if n := score(d.Text); n > 0 {
			hits = append(hits, hit{d, n})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	paths, defs := []string{}, []json.RawMessage{}
	for i, h := range hits {
		if i == 5 {
			break
		}
		paths = append(paths, h.s.Path)
		if h.s.Members == nil {
			defs = append(defs, h.s.Def)
			continue
		}
		var loaded []json.RawMessage
		for _, m := range h.s.Members {
			if score(m.Text) > 0 {
				loaded = append(loaded, m.Def)
			}
		}
		if loaded == nil {
			for _, m := range h.s.Members {
				loaded = append(loaded, m.Def)
			}
		}
		def, _ := json.Marshal(obj{"type": "namespace", "name": h.s.Path, "description": h.s.Description, "tools": loaded})
		defs = append(defs, def)
	}
	return paths, defs
}

func (s *Server) response(req *parsed, out []obj, in, cached int) obj {
	outTok := 1
	for _, o := range out {
		b, _ := json.Marshal(o)
		outTok += len(b) / 16
	}
	return obj{"id": s.id("resp"), "object": "response", "status": "completed", "model": req.Model, "output": out,
		"store": req.Store, "error": nil, "incomplete_details": nil,
		"usage": obj{"input_tokens": in, "input_tokens_details": obj{"cached_tokens": cached},
			"output_tokens": outTok, "output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": in + outTok}}
}

// stream writes the real event sequence. cut > 0 ends the body after that
// many events, without response.completed.
func (s *Server) stream(w http.ResponseWriter, resp obj, out []obj, cut int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("x-request-id", "req_fake")
	fl, _ := w.(http.Flusher)
	seq := 0
	send := func(typ string, ev obj) bool {
		if cut > 0 && seq >= cut {
			return false
		}
		ev["type"] = typ
		ev["sequence_number"] = seq
		seq++
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	start := obj{}
	for k, v := range resp {
		start[k] = v
	}
	start["status"], start["output"], start["usage"] = "in_progress", []any{}, nil
	if !send("response.created", obj{"response": start}) || !send("response.in_progress", obj{"response": start}) {
		return
	}
	for i, it := range out {
		if !s.streamItem(send, i, it) {
			return
		}
	}
	if resp["status"] == "incomplete" {
		send("response.incomplete", obj{"response": resp})
		return
	}
	send("response.completed", obj{"response": resp})
}

func (s *Server) streamItem(send func(string, obj) bool, i int, it obj) bool {
	added := obj{}
	for k, v := range it {
		added[k] = v
	}
	if _, ok := it["status"]; ok {
		added["status"] = "in_progress"
	}
	id, _ := it["id"].(string)
	switch it["type"] {
	case "message":
		added["content"] = []any{}
	case "function_call":
		added["arguments"] = ""
	case "tool_search_call":
		added["arguments"] = obj{}
		if it["execution"] == "client" {
			// The real API streams a different call_id in .added.
			added["call_id"] = s.id("call_added")
		}
	}
	if !send("response.output_item.added", obj{"output_index": i, "item": added}) {
		return false
	}
	switch it["type"] {
	case "message":
		c := it["content"].([]obj)[0]
		text := c["text"].(string)
		part := obj{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": ""}
		if !send("response.content_part.added", obj{"item_id": id, "output_index": i, "content_index": 0, "part": part}) {
			return false
		}
		for _, d := range pieces(text, 4) {
			if !send("response.output_text.delta", obj{"item_id": id, "output_index": i, "content_index": 0, "delta": d, "logprobs": []any{}}) {
				return false
			}
		}
		if !send("response.output_text.done", obj{"item_id": id, "output_index": i, "content_index": 0, "text": text, "logprobs": []any{}}) ||
			!send("response.content_part.done", obj{"item_id": id, "output_index": i, "content_index": 0, "part": c}) {
			return false
		}
	case "function_call":
		args := it["arguments"].(string)
		for _, d := range pieces(args, 3) {
			if !send("response.function_call_arguments.delta", obj{"item_id": id, "output_index": i, "delta": d, "obfuscation": "xx"}) {
				return false
			}
		}
		if !send("response.function_call_arguments.done", obj{"item_id": id, "output_index": i, "arguments": args}) {
			return false
		}
	case "reasoning":
		sums, _ := it["summary"].([]obj)
		for k, sm := range sums {
			text, _ := sm["text"].(string)
			if !send("response.reasoning_summary_part.added", obj{"item_id": id, "output_index": i, "summary_index": k, "part": obj{"type": "summary_text", "text": ""}}) {
				return false
			}
			for _, d := range pieces(text, 5) {
				if !send("response.reasoning_summary_text.delta", obj{"item_id": id, "output_index": i, "summary_index": k, "delta": d}) {
					return false
				}
			}
			if !send("response.reasoning_summary_text.done", obj{"item_id": id, "output_index": i, "summary_index": k, "text": text}) ||
				!send("response.reasoning_summary_part.done", obj{"item_id": id, "output_index": i, "summary_index": k, "part": sm}) {
				return false
			}
		}
	case "web_search_call":
		for _, ev := range []string{"in_progress", "searching", "completed"} {
			if !send("response.web_search_call."+ev, obj{"item_id": id, "output_index": i}) {
				return false
			}
		}
	}
	return send("response.output_item.done", obj{"output_index": i, "item": it})
}

// pieces splits s into chunks of n runes, so deltas break words and JSON
// tokens anywhere.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i, k := 0, 0
		for i < len(s) && k < n {
			_, sz := utf8.DecodeRuneInString(s[i:])
			i += sz
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
