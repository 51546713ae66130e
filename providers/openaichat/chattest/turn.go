package chattest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
)

// Turn is what the scripted model answers to one request.
type Turn struct {
	Text      string
	Reasoning string
	Calls     []Call
	// Finish overrides the finish reason ("length": the output limit cut
	// the turn, its last call's arguments half sent).
	Finish string
}

// Call is one tool call the model makes. Arguments is the JSON text the
// model streams (split anywhere on the wire).
type Call struct {
	ID        string
	Name      string
	Arguments string
}

// Text answers with text only.
func Text(s string) Turn { return Turn{Text: s} }

// Calls answers with tool calls only.
func Calls(cs ...Call) Turn { return Turn{Calls: cs} }

// SearchCall calls tool_search; limit 0 leaves it out.
func SearchCall(id, query string, limit int) Call {
	a := map[string]any{"query": query}
	if limit > 0 {
		a["limit"] = limit
	}
	return Call{ID: id, Name: "tool_search", Arguments: mustJSON(a)}
}

// WrappedCall calls a deferred tool through tool_call with an object.
func WrappedCall(id, name string, args any) Call {
	return Call{ID: id, Name: "tool_call", Arguments: mustJSON(map[string]any{"name": name, "arguments": args})}
}

// WrappedCallString calls through tool_call with the arguments as a JSON
// string, as many models do.
func WrappedCallString(id, name string, args any) Call {
	return Call{ID: id, Name: "tool_call", Arguments: mustJSON(map[string]any{"name": name, "arguments": mustJSON(args)})}
}

// DirectCall calls a function of the tools array.
func DirectCall(id, name string, args any) Call {
	return Call{ID: id, Name: name, Arguments: mustJSON(args)}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("chattest: encode %v: %v", v, err))
	}
	return string(b)
}

func (t Turn) finish() string {
	if t.Finish != "" {
		return t.Finish
	}
	if len(t.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (t Turn) completionTokens() int {
	n := len(t.Text) + len(t.Reasoning)
	for _, c := range t.Calls {
		n += len(c.Name) + len(c.Arguments)
	}
	return n/4 + 1
}

func usage(prompt, cached, completion int) map[string]any {
	return map[string]any{
		"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
		"prompt_tokens_details":     map[string]any{"cached_tokens": cached, "audio_tokens": 0},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
	}
}

// pieces cuts s at rune boundaries into pieces of 1..max runes, sizes drawn
// from a fixed-seed generator so a run is reproducible.
func pieces(s string, max int, rng *rand.Rand) []string {
	if max < 1 {
		max = 1
	}
	rs := []rune(s)
	var out []string
	for len(rs) > 0 {
		n := 1 + rng.IntN(max)
		if n > len(rs) {
			n = len(rs)
		}
		out = append(out, string(rs[:n]))
		rs = rs[n:]
	}
	return out
}

func (s *Server) stream(w http.ResponseWriter, req ChatRequest, t Turn, prompt, cached, cutAfter int) {
	s.mu.Lock()
	id := fmt.Sprintf("chatcmpl-fake%d", s.seq)
	split := s.Split
	s.mu.Unlock()
	rng := rand.New(rand.NewPCG(uint64(len(req.Messages)), 7))
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	sent := 0
	send := func(choices []any, u any) {
		c := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model,
			"system_fingerprint": "fp_fake", "choices": choices,
		}
		if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
			c["usage"] = u
		}
		fmt.Fprintf(w, "data: %s\n\n", mustJSON(c))
		if fl != nil {
			fl.Flush()
		}
		sent++
		if cutAfter > 0 && sent >= cutAfter {
			// Drop the connection mid-stream, as a crashed server or a
			// broken proxy does.
			panic(http.ErrAbortHandler)
		}
	}
	delta := func(d map[string]any) {
		send([]any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": nil}}, nil)
	}
	delta(map[string]any{"role": "assistant", "content": "", "refusal": nil})
	for _, p := range pieces(t.Reasoning, split, rng) {
		delta(map[string]any{"reasoning_content": p})
	}
	for _, p := range pieces(t.Text, split, rng) {
		delta(map[string]any{"content": p})
	}
	sig := gemini3(s.caps(req.Model))
	for i, c := range t.Calls {
		first := map[string]any{
			"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""},
		}
		if sig && i == 0 {
			// Gemini 3 signs the first call of a step.
			first["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": ThoughtSignature(c.ID)}}
		}
		delta(map[string]any{"tool_calls": []any{first}})
		args := c.Arguments
		if t.Finish == "length" && i == len(t.Calls)-1 {
			args = args[:len(args)/2]
		}
		for _, p := range pieces(args, split, rng) {
			delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}})
		}
	}
	send([]any{map[string]any{"index": 0, "delta": map[string]any{}, "logprobs": nil, "finish_reason": t.finish()}}, nil)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		send([]any{}, usage(prompt, cached, t.completionTokens()))
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

func (s *Server) whole(w http.ResponseWriter, req ChatRequest, t Turn, prompt, cached int) {
	s.mu.Lock()
	id := fmt.Sprintf("chatcmpl-fake%d", s.seq)
	s.mu.Unlock()
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if t.Text != "" || len(t.Calls) == 0 {
		msg["content"] = t.Text
	}
	if t.Reasoning != "" {
		msg["reasoning_content"] = t.Reasoning
	}
	if len(t.Calls) > 0 {
		var calls []any
		for i, c := range t.Calls {
			call := map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
			if i == 0 && gemini3(s.caps(req.Model)) {
				call["extra_content"] = map[string]any{"google": map[string]any{"thought_signature": ThoughtSignature(c.ID)}}
			}
			calls = append(calls, call)
		}
		msg["tool_calls"] = calls
	}
	out := map[string]any{
		"id": id, "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": t.finish()}},
		"usage":   usage(prompt, cached, t.completionTokens()),
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, mustJSON(out))
}
