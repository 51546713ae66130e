package geminitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// Script is a tiny deterministic model: each Turn is one step of the
// conversation. A turn with Search calls the tool_search function and waits
// for its functionResponse; it then calls Call ("$found": the first tool
// found) directly when that function is declared, else through tool_call.
type Script struct {
	Turns []Turn

	mu       sync.Mutex
	next     int
	searched bool
}

// Turn is one model step.
type Turn struct {
	Text   string
	Search string
	Call   string
	Input  any
}

// NewScript returns a script.
func NewScript(turns ...Turn) *Script { return &Script{Turns: turns} }

// Done reports whether every turn was used.
func (sc *Script) Done() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.next >= len(sc.Turns)
}

type outPart = map[string]any

func (s *Server) reply(b *body_, model string) []outPart {
	sc := s.Script
	if sc == nil {
		return []outPart{{"text": "(no script)"}}
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.next >= len(sc.Turns) {
		return []outPart{{"text": "(script finished)"}}
	}
	t := sc.Turns[sc.next]
	declared := map[string]bool{}
	for _, tl := range b.Tools {
		for _, d := range tl.FunctionDeclarations {
			declared[d.Name] = true
		}
	}
	var out []outPart
	found := ""
	if sc.searched {
		found = lastFound(b)
		sc.searched = false
	} else {
		if t.Text != "" {
			out = append(out, outPart{"text": t.Text})
		}
		if t.Search != "" && declared["tool_search"] {
			out = append(out, outPart{"functionCall": map[string]any{"name": "tool_search", "args": map[string]any{"query": t.Search}}})
			sc.searched = true
			return out
		}
	}
	sc.next++
	call := t.Call
	if call == "$found" {
		call = found
	}
	input := t.Input
	if input == nil {
		input = map[string]any{}
	}
	switch {
	case call == "":
	case declared[call]:
		out = append(out, outPart{"functionCall": map[string]any{"name": call, "args": input}})
	case declared["tool_call"]:
		args, _ := json.Marshal(input)
		out = append(out, outPart{"functionCall": map[string]any{"name": "tool_call", "args": map[string]any{"name": call, "arguments": string(args)}}})
	default:
		out = append(out, outPart{"text": "(cannot call " + call + ")"})
	}
	if len(out) == 0 {
		out = append(out, outPart{"text": "(nothing to say)"})
	}
	if b.GenerationConfig.ThinkingConfig.IncludeThoughts {
		// A thought summary comes first, as the API sends it.
		out = append([]outPart{{"text": "**Planning** the next step.", "thought": true}}, out...)
	}
	return out
}

// lastFound reads the first tool name of the last tool_search response.
func lastFound(b *body_) string {
	for i := len(b.parts) - 1; i >= 0; i-- {
		for _, p := range b.parts[i] {
			if p.FunctionResponse == nil || p.FunctionResponse.Name != "tool_search" {
				continue
			}
			var r struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			_ = json.Unmarshal(p.FunctionResponse.Response, &r)
			if len(r.Tools) > 0 {
				return r.Tools[0].Name
			}
		}
	}
	return ""
}

// write answers with parts: the first function call of the step carries a
// new signature, or, without calls, the last text does (on Gemini 2.5 and
// 3 alike, as thinking models do). Streams split text across chunks and
// send a text answer's signature on an empty final text part.
func (s *Server) write(w http.ResponseWriter, req *Request, b *body_, parts []outPart) {
	hasCall := false
	n := 0
	for _, p := range parts {
		if fc, ok := p["functionCall"].(map[string]any); ok {
			n++
			if id := s.callID(req.Model, n); id != "" {
				fc["id"] = id
			}
			if !hasCall {
				p["thoughtSignature"] = s.sig()
			}
			hasCall = true
		}
	}
	textSig := ""
	if !hasCall {
		textSig = s.sig()
	}
	usage := map[string]any{"promptTokenCount": len(req.Body) / 4, "candidatesTokenCount": 7, "thoughtsTokenCount": 5,
		"totalTokenCount": len(req.Body)/4 + 12}
	chunk := func(ps []outPart, finish bool) map[string]any {
		c := map[string]any{"content": map[string]any{"role": "model", "parts": ps}, "index": 0}
		if finish {
			c["finishReason"] = "STOP"
		}
		return map[string]any{"candidates": []any{c}, "usageMetadata": usage, "modelVersion": req.Model, "responseId": fmt.Sprintf("resp-%d", len(req.Body))}
	}
	if !req.Stream {
		if textSig != "" {
			parts[len(parts)-1]["thoughtSignature"] = textSig
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_ = json.NewEncoder(w).Encode(chunk(parts, true))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	for _, p := range parts {
		if t, ok := p["text"].(string); ok && len(t) > 1 {
			half := len(t) / 2
			for _, piece := range []string{t[:half], t[half:]} {
				q := outPart{}
				for k, v := range p {
					q[k] = v
				}
				q["text"] = piece
				send(chunk([]outPart{q}, false))
			}
			continue
		}
		send(chunk([]outPart{p}, false))
	}
	final := []outPart{{"text": ""}}
	if textSig != "" {
		final[0]["thoughtSignature"] = textSig
	}
	send(chunk(final, true))
}
