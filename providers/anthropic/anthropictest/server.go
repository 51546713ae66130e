// Package anthropictest is a strict fake of the Anthropic Messages API for
// tests: a loopback server that speaks the real SSE format and JSON bodies,
// answers from a queue of scripted replies, a handler or a small scripted
// "model" (with server-side tool search over the deferred tools), and
// rejects with the API's own 400s the requests the real API rejects.
package anthropictest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agent-dev/agent/models"
)

// DefaultAPIKey is the key the server expects unless Server.APIKey is changed.
const DefaultAPIKey = "test-key"

// Server is a running fake. Configure it before the first request.
type Server struct {
	URL string
	// APIKey is the x-api-key the server accepts; empty accepts any non-empty key.
	APIKey string
	// Handler, when set, answers every request the queue does not.
	Handler func(r *Request) Reply
	// Script, when set, answers every request the queue and Handler do not.
	Script *Script
	// NoNativeSearch lists models that reject the tool search tool.
	NoNativeSearch map[string]bool
	// Models is the capability table the server judges models by (nil:
	// the built-in one): deferral, thinking and output limits per model.
	Models *models.Table
	// Deferral lists models accepted with tool search and defer_loading
	// whatever the table says (ids the table does not know).
	Deferral map[string]bool
	// Padding adds trailing spaces inside SSE data lines, as some recordings show.
	Padding bool
	// ListedModels is what GET /v1/models lists, in order (nil:
	// DefaultListedModels); ModelPage, when > 0, caps a page below the
	// requested limit so tests can exercise has_more/after_id.
	ListedModels []string
	ModelPage    int

	srv    *httptest.Server
	mu     sync.Mutex
	queue  []Reply
	reqs   []*Request
	rng    *rand.Rand
	cached int
	msgSeq int
}

// NewServer starts a fake closed with the test.
func NewServer(t testing.TB) *Server {
	s := &Server{APIKey: DefaultAPIKey, rng: rand.New(rand.NewPCG(1, 2))}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Close stops the server early.
func (s *Server) Close() { s.srv.Close() }

// SetScript replaces the Script while requests may be arriving (from
// another process, say), where assigning the field would race.
func (s *Server) SetScript(sc *Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Script = sc
}

// SetHandler replaces the Handler while requests may be arriving (from
// another process, say), where assigning the field would race.
func (s *Server) SetHandler(h func(*Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Handler = h
}

// Enqueue adds replies answered in order, before Handler and Script.
func (s *Server) Enqueue(rs ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, rs...)
}

// Requests returns every request received so far, rejected ones included.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Request is one received request.
type Request struct {
	Header http.Header
	Path   string
	// Body is exactly what the client sent.
	Body []byte
	// Status is what the server answered.
	Status int
	// Rejection is the error message of a rejected request.
	Rejection string

	parsed wireRequest
}

// Tools returns the tools array exactly as sent.
func (r *Request) Tools() json.RawMessage { return r.parsed.Tools }

// Messages returns the messages exactly as sent.
func (r *Request) Messages() []json.RawMessage {
	out := make([]json.RawMessage, len(r.parsed.Messages))
	for i, m := range r.parsed.Messages {
		out[i] = m.raw
	}
	return out
}

// Stream reports whether the request asked for SSE.
func (r *Request) Stream() bool { return r.parsed.Stream }

// Model is the requested model.
func (r *Request) Model() string { return r.parsed.Model }

// Reply is one scripted answer.
type Reply struct {
	// Status other than 0/200 answers with an error body of ErrorType/ErrorMessage.
	Status       int
	ErrorType    string
	ErrorMessage string
	Header       map[string]string
	// Content blocks of the message (see Text, ToolUse, ... helpers).
	Content    []json.RawMessage
	StopReason string
	// CutAfter, when > 0, closes a stream after that many SSE events.
	CutAfter int
	// StreamError, when set, sends an SSE error event of that type (e.g.
	// overloaded_error) after CutAfter events (or at once) and ends the stream.
	StreamError string
	// ServerToolUses is reported in usage.server_tool_use.
	ServerToolUses map[string]int
	// CutLastInput streams only half of the last block's input, as when
	// max_tokens ends the response inside a tool call.
	CutLastInput bool
	// Container names the code-execution container the response ran in.
	Container string
	// Hold, when set, pauses a stream before its content block HoldBefore
	// (> 0) until Hold is closed: a test sees the answer mid-stream
	// without timing.
	Hold       <-chan struct{}
	HoldBefore int
}

// Error replies with status and the API's error body.
func Error(status int, typ, msg string) Reply {
	return Reply{Status: status, ErrorType: typ, ErrorMessage: msg}
}

// Overloaded is a 529 with retry-after.
func Overloaded(retryAfter string) Reply {
	r := Error(529, "overloaded_error", "Overloaded")
	if retryAfter != "" {
		r.Header = map[string]string{"retry-after": retryAfter}
	}
	return r
}

// RateLimited is a 429 with retry-after.
func RateLimited(retryAfter string) Reply {
	r := Error(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
	if retryAfter != "" {
		r.Header = map[string]string{"retry-after": retryAfter}
	}
	return r
}

// Message replies with blocks; the stop reason is tool_use when a block
// calls a client tool, else end_turn.
func Message(blocks ...json.RawMessage) Reply { return Reply{Content: blocks} }

// mustJSON encodes like the API: compact, <>& unescaped.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

type textBlock struct {
	Type      string            `json:"type"`
	Text      string            `json:"text"`
	Citations []json.RawMessage `json:"citations,omitempty"`
}

// Text is a text block.
func Text(s string) json.RawMessage { return mustJSON(textBlock{Type: "text", Text: s}) }

// ToolUse is a client tool call block.
func ToolUse(id, name string, input any) json.RawMessage {
	return mustJSON(struct {
		Type  string `json:"type"`
		ID    string `json:"id"`
		Name  string `json:"name"`
		Input any    `json:"input"`
	}{"tool_use", id, name, input})
}

// ServerSearch is a native bm25 search call block.
func ServerSearch(id, query string) json.RawMessage {
	return mustJSON(struct {
		Type  string         `json:"type"`
		ID    string         `json:"id"`
		Name  string         `json:"name"`
		Input map[string]any `json:"input"`
	}{"server_tool_use", id, "tool_search_tool_bm25", map[string]any{"query": query}})
}

type resultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   any    `json:"content"`
}

type toolRef struct {
	Type     string `json:"type"`
	ToolName string `json:"tool_name"`
}

// SearchResult is a tool_search_tool_result block naming tools.
func SearchResult(id string, tools ...string) json.RawMessage {
	refs := []toolRef{}
	for _, t := range tools {
		refs = append(refs, toolRef{"tool_reference", t})
	}
	return mustJSON(resultBlock{"tool_search_tool_result", id, struct {
		Type string    `json:"type"`
		Refs []toolRef `json:"tool_references"`
	}{"tool_search_tool_search_result", refs}})
}

// SearchError is a tool_search_tool_result error block.
func SearchError(id, code, msg string) json.RawMessage {
	return mustJSON(resultBlock{"tool_search_tool_result", id, struct {
		Type    string `json:"type"`
		Code    string `json:"error_code"`
		Message string `json:"error_message"`
	}{"tool_search_tool_result_error", code, msg}})
}

// WebSearch is a web_search call and its result listing pages (url, title pairs).
func WebSearch(id, query string, pages ...[2]string) []json.RawMessage {
	use := ToolUse(id, "web_search", map[string]any{"query": query})
	use = bytes.Replace(use, []byte(`"type":"tool_use"`), []byte(`"type":"server_tool_use"`), 1)
	type page struct {
		Type             string  `json:"type"`
		Title            string  `json:"title"`
		URL              string  `json:"url"`
		EncryptedContent string  `json:"encrypted_content"`
		PageAge          *string `json:"page_age"`
	}
	res := []page{}
	for _, p := range pages {
		res = append(res, page{"web_search_result", p[1], p[0], "ZW5j", nil})
	}
	return []json.RawMessage{use, mustJSON(resultBlock{"web_search_tool_result", id, res})}
}

// CitedText is a text block citing a web page.
func CitedText(text, url, title string) json.RawMessage {
	c := mustJSON(struct {
		Type           string `json:"type"`
		CitedText      string `json:"cited_text"`
		URL            string `json:"url"`
		Title          string `json:"title"`
		EncryptedIndex string `json:"encrypted_index"`
	}{"web_search_result_location", text, url, title, "aWR4"})
	return mustJSON(textBlock{Type: "text", Text: text, Citations: []json.RawMessage{c}})
}

// MaxRequest is the largest Messages request the API takes: 32 MB, over
// which it answers 413 request_too_large (the API's errors page).
const MaxRequest = 32 << 20

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := readAll(hr)
	req := &Request{Header: hr.Header.Clone(), Path: hr.URL.Path, Body: body}
	// Parsed before the request is published: tests read a logged request's
	// fields while the server may still be answering it.
	parseErr := json.Unmarshal(body, &req.parsed)
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	reject := func(status int, typ, msg string) {
		req.Status, req.Rejection = status, msg
		writeError(w, status, typ, msg, nil)
	}
	if len(body) > MaxRequest {
		// Cloudflare's answer, before the API reads the request.
		reject(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
		return
	}
	listing := hr.Method == http.MethodGet && hr.URL.Path == "/v1/models"
	if !listing && (hr.Method != http.MethodPost || hr.URL.Path != "/v1/messages") {
		reject(404, "not_found_error", "Not found: "+hr.Method+" "+hr.URL.Path)
		return
	}
	key := hr.Header.Get("x-api-key")
	if key == "" {
		reject(401, "authentication_error", "x-api-key header is required")
		return
	}
	if s.APIKey != "" && key != s.APIKey {
		reject(401, "authentication_error", "invalid x-api-key")
		return
	}
	if hr.Header.Get("anthropic-version") == "" {
		reject(400, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	if listing {
		s.listModels(w, hr, req, reject)
		return
	}
	if parseErr != nil {
		reject(400, "invalid_request_error", "There was an issue with the form of the request: "+parseErr.Error())
		return
	}
	if c := s.caps(req.parsed.Model); c.Retired != "" {
		// A retired model is an unknown one to the API: 404 naming it.
		reject(404, "not_found_error", "model: "+req.parsed.Model)
		return
	}
	if msg := s.validate(&req.parsed); msg != "" {
		reject(400, "invalid_request_error", msg)
		return
	}
	rep := s.next(req)
	if rep.Status != 0 && rep.Status != 200 {
		req.Status = rep.Status
		writeError(w, rep.Status, rep.ErrorType, rep.ErrorMessage, rep.Header)
		return
	}
	req.Status = 200
	// A search call left without its result at the end of the history is
	// answered first, as the API does when it splits a search.
	if open := req.parsed.openServerCalls(); len(open) > 0 {
		var pre []json.RawMessage
		for _, c := range open {
			pre = append(pre, s.runSearch(&req.parsed, c))
		}
		rep.Content = append(pre, rep.Content...)
	}
	s.write(w, req, rep)
}

// next picks the reply: queue, then Handler, then Script.
func (s *Server) next(req *Request) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	sc, h := s.Script, s.Handler
	s.mu.Unlock()
	if h != nil {
		return h(req)
	}
	if sc != nil {
		return sc.reply(s, req)
	}
	return Error(500, "api_error", "anthropictest: no reply queued and no Handler or Script")
}

func writeError(w http.ResponseWriter, status int, typ, msg string, hdr map[string]string) {
	for k, v := range hdr {
		w.Header().Set(k, v)
	}
	w.Header().Set("content-type", "application/json")
	w.Header().Set("request-id", "req_fake_error")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error",
		"error": map[string]string{"type": typ, "message": msg}, "request_id": "req_fake_error"})
}

func (s *Server) ids() (msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgSeq++
	return fmt.Sprintf("msg_fake%04d", s.msgSeq)
}

// toolSeq numbers the tool call ids of every fake in the process: the
// API's ids are unique, so a conversation carried across two fakes (Vertex
// then Bedrock) must not draw the same id twice, which the API refuses
// ("`tool_use` ids must be unique").
var toolSeq atomic.Int64

func (s *Server) toolID(prefix string) string {
	return fmt.Sprintf("%s_fake%04d", prefix, toolSeq.Add(1))
}

func stopReason(r Reply) string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, b := range r.Content {
		var t struct{ Type string }
		_ = json.Unmarshal(b, &t)
		if t.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

// usage makes plausible token counts; cache tokens follow cache_control.
func (s *Server) usage(req *Request, r Reply) map[string]any {
	in := len(req.Body) / 4
	u := map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if strings.Contains(string(req.Body), `"cache_control"`) {
		s.mu.Lock()
		if s.cached > 0 && s.cached <= in {
			u["cache_read_input_tokens"] = s.cached
			u["cache_creation_input_tokens"] = in - s.cached
		} else {
			u["cache_creation_input_tokens"] = in
		}
		s.cached = in
		s.mu.Unlock()
	}
	stu := map[string]int{"web_search_requests": 0, "web_fetch_requests": 0}
	for k, v := range r.ServerToolUses {
		stu[k] = v
	}
	u["server_tool_use"] = stu
	return u
}
