// Package chattest is a fake OpenAI Chat Completions server for tests. It
// speaks the real wire format (chat.completion.chunk SSE with tool_calls
// deltas split at arbitrary points, a usage chunk, [DONE]; or a whole
// chat.completion), plays a scripted model, logs every raw request, and
// rejects with the real API's 400s what the real API rejects: a tool message
// without its call, a call left unanswered, bad function names, and so on.
package chattest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/models"
)

// Server is the fake. Configure it before the first request.
type Server struct {
	*httptest.Server
	t testing.TB

	// APIKey, when set, must arrive as "Authorization: Bearer <key>";
	// anything else is a 401 as on a hosted API.
	APIKey string
	// AcceptReasoning lets assistant messages carry reasoning_content
	// (DeepSeek, vLLM). Off, the fake rejects it as OpenAI does.
	AcceptReasoning bool
	// Split is the largest piece, in runes, a streamed string is cut into;
	// piece sizes vary pseudo-randomly from 1 to Split. Default 7.
	Split int
	// Reply, when set, answers requests once the script is used up.
	Reply func(ChatRequest) Turn
	// Arrive, when set, is called with each request the fake accepted,
	// before it is answered and outside the fake's lock: a test holds
	// requests there (a barrier proving two run at once).
	Arrive func(ChatRequest)
	// Models is the capability table the fake judges models by (nil: the
	// built-in one): Gemini 3 signatures, DeepSeek thinking, limits, images.
	Models *models.Table
	// Router makes the fake OpenRouter: it takes the "reasoning" object
	// (openrouter.ai/docs/use-cases/reasoning-tokens), which OpenAI
	// refuses as an unrecognized argument.
	Router bool

	mu       sync.Mutex
	turns    []Turn
	faults   []Fault
	requests []Request
	seq      int
}

// Request is one logged request.
type Request struct {
	Header http.Header
	Body   []byte
	// Parsed is nil when the body was not JSON.
	Parsed *ChatRequest
	// Status is what the fake answered; Error its error message, if any.
	Status int
	Error  string
}

// ChatRequest is a decoded request body. Tools keeps the raw array bytes so
// tests can compare them across requests.
type ChatRequest struct {
	Model         string          `json:"model"`
	Messages      []Message       `json:"messages"`
	Tools         json.RawMessage `json:"tools"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens int `json:"max_tokens"`
}

// Message is one request message.
type Message struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ToolCalls        []ToolCall      `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent *string         `json:"reasoning_content"`
}

// Text is the message content as a string (text parts joined).
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "")
}

// ToolCall is a call in an assistant message.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// Fault replaces the answer to the next request.
type Fault struct {
	// Status, when non-zero, answers with this HTTP error (429, 500...).
	Status     int
	RetryAfter string
	// Body is the error body; an OpenAI-shaped one is made when empty.
	Body string
	// CutAfter > 0 streams that many chunks of the next turn and then
	// drops the connection. The turn is used up.
	CutAfter int
}

// NewServer starts a fake; it closes when the test ends.
func NewServer(t testing.TB) *Server {
	s := &Server{t: t, Split: 7}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the URL to give the adapter (it appends /chat/completions).
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Script appends turns the model plays, one per successful request.
func (s *Server) Script(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Fail queues a fault for the next request(s), in order.
func (s *Server) Fail(f ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f...)
}

// Requests returns the log.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Rejected returns the requests answered with a 4xx the fake decided on
// (faults excluded): a correct client has none.
func (s *Server) Rejected() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Status >= 400 && r.Status < 500 && r.Status != http.StatusTooManyRequests {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) log(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	rec := Request{Header: hr.Header.Clone(), Body: body}
	fail := func(status int, typ, code, param, msg string) {
		rec.Status, rec.Error = status, msg
		s.log(rec)
		writeError(w, status, typ, code, param, msg)
	}
	if s.APIKey != "" {
		auth := hr.Header.Get("Authorization")
		switch {
		case auth == "":
			fail(401, "invalid_request_error", "", "", "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
			return
		case auth != "Bearer "+s.APIKey:
			fail(401, "invalid_request_error", "invalid_api_key", "", "Incorrect API key provided.")
			return
		}
	}
	if hr.Method != http.MethodPost || hr.URL.Path != "/v1/chat/completions" {
		fail(404, "invalid_request_error", "unknown_url", "", fmt.Sprintf("Invalid URL (%s %s)", hr.Method, hr.URL.Path))
		return
	}
	s.mu.Lock()
	var fault *Fault
	if len(s.faults) > 0 {
		f := s.faults[0]
		s.faults = s.faults[1:]
		fault = &f
	}
	s.mu.Unlock()
	if fault != nil && fault.Status != 0 {
		rec.Status, rec.Error = fault.Status, "injected fault"
		s.log(rec)
		if fault.RetryAfter != "" {
			w.Header().Set("retry-after", fault.RetryAfter)
		}
		if fault.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(fault.Status)
			io.WriteString(w, fault.Body)
			return
		}
		typ := "server_error"
		if fault.Status == 429 {
			typ = "rate_limit_exceeded"
		}
		writeError(w, fault.Status, typ, "", "", fmt.Sprintf("injected %d", fault.Status))
		return
	}
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		fail(400, "invalid_request_error", "", "", "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)")
		return
	}
	rec.Parsed = &req
	if v := s.validate(body, &req); v != nil {
		fail(400, "invalid_request_error", v.code, v.param, v.msg)
		return
	}
	if s.Arrive != nil {
		s.Arrive(req)
	}
	turn, ok := s.next(req)
	if !ok {
		s.t.Errorf("chattest: request %d: the script is used up", len(s.Requests())+1)
		fail(500, "server_error", "", "", "chattest: script used up")
		return
	}
	rec.Status = 200
	s.log(rec)
	prompt, cached := s.promptTokens(body)
	if req.Stream {
		cut := 0
		if fault != nil {
			cut = fault.CutAfter
		}
		s.stream(w, req, turn, prompt, cached, cut)
		return
	}
	s.whole(w, req, turn, prompt, cached)
}

// SetReply replaces Reply while requests may be arriving (from another
// process, say), where assigning the field would race.
func (s *Server) SetReply(r func(ChatRequest) Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Reply = r
}

func (s *Server) next(req ChatRequest) (Turn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	if len(s.turns) > 0 {
		t := s.turns[0]
		s.turns = s.turns[1:]
		return t, true
	}
	if s.Reply != nil {
		return s.Reply(req), true
	}
	return Turn{}, false
}

// promptTokens estimates tokens at 4 bytes each and, like a server's
// prefix cache, counts as cached the part of the prompt shared with the
// previous accepted request. The prompt is laid out as chat templates do:
// the tools first, then the messages; so a stable tools array and a history
// replayed byte for byte show up here as cache hits.
func (s *Server) promptTokens(body []byte) (prompt, cached int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var prev []byte
	for i := len(s.requests) - 2; i >= 0; i-- {
		if s.requests[i].Status == 200 {
			prev = promptOf(s.requests[i].Body)
			break
		}
	}
	cur := promptOf(body)
	n := 0
	for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
		n++
	}
	return len(cur)/4 + 1, n / 4
}

func promptOf(body []byte) []byte {
	top := raw(body)
	out := append([]byte(nil), top["tools"]...)
	var msgs []json.RawMessage
	_ = json.Unmarshal(top["messages"], &msgs)
	for _, m := range msgs {
		out = append(out, m...)
	}
	return out
}

func writeError(w http.ResponseWriter, status int, typ, code, param, msg string) {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	if param != "" {
		e["param"] = param
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_fake")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// raw decodes body into a map to see fields the typed request ignores.
func raw(b []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(bytes.TrimSpace(b), &m)
	return m
}
