package anthropictest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

func readAll(r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}

func (s *Server) write(w http.ResponseWriter, req *Request, rep Reply) {
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("request-id", "req_fake_ok")
	content := rep.Content
	if content == nil {
		content = []json.RawMessage{}
	}
	stop := stopReason(rep)
	usage := s.usage(req, rep)
	id := s.ids()
	if !req.parsed.Stream {
		w.Header().Set("content-type", "application/json")
		usage["output_tokens"] = 1 + len(mustJSON(content))/4
		_, _ = w.Write(mustJSON(struct {
			ID           string            `json:"id"`
			Type         string            `json:"type"`
			Role         string            `json:"role"`
			Model        string            `json:"model"`
			Content      []json.RawMessage `json:"content"`
			StopReason   string            `json:"stop_reason"`
			StopSequence *string           `json:"stop_sequence"`
			Usage        map[string]any    `json:"usage"`
			Container    any               `json:"container"`
		}{id, "message", "assistant", req.parsed.Model, content, stop, nil, usage, container(rep)}))
		return
	}
	w.Header().Set("content-type", "text/event-stream; charset=utf-8")
	w.Header().Set("cache-control", "no-cache")
	flusher, _ := w.(http.Flusher)
	sent := 0
	// emit writes one event; it reports false once the reply says to stop.
	emit := func(name string, v any) bool {
		if rep.CutAfter > 0 && sent >= rep.CutAfter {
			return false
		}
		data := mustJSON(v)
		if s.Padding && bytes.HasSuffix(data, []byte("}")) {
			data = append(data[:len(data)-1], []byte("    }")...)
		}
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		if flusher != nil {
			flusher.Flush()
		}
		sent++
		return true
	}
	defer func() {
		if rep.StreamError != "" {
			fmt.Fprintf(w, "event: error\ndata: %s\n\n", mustJSON(map[string]any{"type": "error",
				"error": map[string]string{"type": rep.StreamError, "message": "Overloaded"}}))
		}
	}()
	startUsage := map[string]any{}
	for k, v := range usage {
		startUsage[k] = v
	}
	startUsage["output_tokens"] = 1
	if !emit("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.parsed.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": startUsage}}) {
		return
	}
	out := 0
	for i, b := range content {
		if rep.Hold != nil && i > 0 && i == rep.HoldBefore {
			<-rep.Hold
		}
		cut := rep.CutLastInput && i == len(content)-1
		if !s.emitBlock(emit, i, b, &out, cut) {
			return
		}
		if i == 0 && !emit("ping", map[string]string{"type": "ping"}) {
			return
		}
	}
	endUsage := map[string]any{"output_tokens": out + 1, "server_tool_use": usage["server_tool_use"]}
	if !emit("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil, "container": container(rep)}, "usage": endUsage}) {
		return
	}
	emit("message_stop", map[string]string{"type": "message_stop"})
}

// container is the response's container object, or null.
func container(rep Reply) any {
	if rep.Container == "" {
		return nil
	}
	return map[string]string{"id": rep.Container, "expires_at": "2099-01-01T00:00:00Z"}
}

// emitBlock streams one block the way the API does: text and inputs in
// pieces (input_json_delta split anywhere, the first piece often empty),
// result blocks whole in content_block_start.
func (s *Server) emitBlock(emit func(string, any) bool, i int, b json.RawMessage, out *int, cut bool) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	var typ string
	_ = json.Unmarshal(m["type"], &typ)
	start := func(block any) bool {
		return emit("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": block})
	}
	delta := func(d any) bool {
		return emit("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
	}
	stop := func() bool {
		return emit("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	switch typ {
	case "text":
		var text string
		_ = json.Unmarshal(m["text"], &text)
		var cites []json.RawMessage
		_ = json.Unmarshal(m["citations"], &cites)
		if !start(textBlock{Type: "text"}) {
			return false
		}
		for _, c := range cites {
			if !delta(map[string]any{"type": "citations_delta", "citation": c}) {
				return false
			}
		}
		for _, piece := range s.split(text) {
			*out++
			if !delta(map[string]any{"type": "text_delta", "text": piece}) {
				return false
			}
		}
		return stop()
	case "tool_use", "server_tool_use", "mcp_tool_use":
		// The start block keeps the block's own key order, input emptied.
		var whole bytes.Buffer
		_ = json.Compact(&whole, b)
		var compact bytes.Buffer
		_ = json.Compact(&compact, m["input"])
		text := compact.String()
		startBlock := json.RawMessage(bytes.Replace(whole.Bytes(), []byte(`"input":`+text), []byte(`"input":{}`), 1))
		if !start(startBlock) {
			return false
		}
		if cut {
			text = text[:len(text)/2]
		}
		pieces := append([]string{""}, s.split(text)...)
		for _, p := range pieces {
			*out++
			if !delta(map[string]any{"type": "input_json_delta", "partial_json": p}) {
				return false
			}
		}
		return stop()
	case "thinking":
		var text, sig string
		_ = json.Unmarshal(m["thinking"], &text)
		_ = json.Unmarshal(m["signature"], &sig)
		if !start(map[string]string{"type": "thinking", "thinking": "", "signature": ""}) {
			return false
		}
		for _, piece := range s.split(text) {
			*out++
			if !delta(map[string]any{"type": "thinking_delta", "thinking": piece}) {
				return false
			}
		}
		if !delta(map[string]any{"type": "signature_delta", "signature": sig}) {
			return false
		}
		return stop()
	default:
		if !start(b) {
			return false
		}
		return stop()
	}
}

// split cuts s into pieces of 1 to 7 bytes, anywhere (even inside a
// UTF-8 sequence is avoided: the API cuts on characters).
func (s *Server) split(text string) []string {
	var out []string
	r := []rune(text)
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(r) > 0 {
		n := 1 + s.rng.IntN(7)
		if n > len(r) {
			n = len(r)
		}
		out = append(out, string(r[:n]))
		r = r[n:]
	}
	return out
}
