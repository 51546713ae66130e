// Package responsestest is a strict fake of the OpenAI Responses API for
// tests: it speaks the real SSE event sequence, answers from a scripted
// model, runs a hosted tool search over the deferred tools it is sent, and
// rejects with the real 400 errors the requests the real API rejects
// (PROTOCOLS.md §2; messages copied from recorded answers where one exists).
package responsestest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-dev/agent/models"
)

// DefaultKey is the API key the server accepts unless APIKey is changed.
const DefaultKey = "test-key"

// Server is the fake. Configure it before the first request.
type Server struct {
	URL string
	// APIKey is the accepted bearer token; Org is its organization
	// (DefaultOrg when empty). Keys are other accepted tokens, each with
	// its organization: a key switched mid-session (orgs.go).
	APIKey string
	Org    string
	Keys   map[string]string
	// RecordedContent accepts encrypted reasoning the fake did not make
	// (content recorded from the real API, which only it can verify).
	RecordedContent bool
	// StreamRefusal, when set ("response.failed" or "error"), refuses a
	// streaming request's encrypted reasoning in the stream instead of with
	// a 400 (orgs.go).
	StreamRefusal string
	// SupportsToolSearch says which models accept tool_search and
	// defer_loading; by default gpt-5.4 and later.
	SupportsToolSearch func(model string) bool
	// Models is the capability table requests are judged by (nil: the
	// built-in one): encrypted reasoning, efforts, output limits.
	Models *models.Table
	// ListedModels is what GET /models lists (nil: DefaultListedModels).
	ListedModels []string

	t   testing.TB
	srv *httptest.Server

	mu     sync.Mutex
	script []Turn
	next   int
	log    []Request
	faults []Fault
	ids    int
	prev   []byte
}

// Request is one logged request with its raw body and the status answered.
type Request struct {
	Header http.Header
	Body   []byte
	Status int
	// Error is the error message answered, if any.
	Error string
}

// Fault is an injected failure for one request.
type Fault struct {
	Status     int
	RetryAfter string
	Message    string
	// CutAfter, when > 0, answers 200 and ends the stream after that many events.
	CutAfter int
}

// NewServer starts a fake closed at the end of the test.
func NewServer(t testing.TB) *Server {
	s := &Server{t: t, APIKey: DefaultKey, SupportsToolSearch: DefaultSupports}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.srv.Close)
	return s
}

var versionRE = regexp.MustCompile(`^gpt-(\d+)(?:\.(\d+))?`)

// DefaultSupports is the real API's rule: gpt-5.4 and later.
func DefaultSupports(model string) bool {
	m := versionRE.FindStringSubmatch(model)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi("0" + m[2])
	return major > 5 || major == 5 && minor >= 4
}

// Script appends turns; each request consumes one. When the script is spent
// the model answers "done".
func (s *Server) Script(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// FailNext queues a fault for the next request.
func (s *Server) FailNext(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f)
}

// Requests returns the request log.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Rejected returns the logged requests answered with a 4xx.
func (s *Server) Rejected() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Status >= 400 && r.Status < 500 {
			out = append(out, r)
		}
	}
	return out
}

// apiErr is an error answer in the API's envelope.
type apiErr struct {
	status  int
	message string
	typ     string
	param   any
	code    any
}

func (e *apiErr) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_fake")
	w.WriteHeader(e.status)
	typ := e.typ
	if typ == "" {
		typ = "invalid_request_error"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": e.message, "type": typ, "param": e.param, "code": e.code}})
}

func bad(param any, format string, a ...any) *apiErr {
	return &apiErr{status: 400, message: fmt.Sprintf(format, a...), param: param}
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	// The log entry is written before the answer, so a test that has its
	// answer always finds the request logged.
	s.mu.Lock()
	idx := len(s.log)
	s.log = append(s.log, Request{Header: r.Header.Clone(), Body: body, Status: 200})
	s.mu.Unlock()
	fail := func(e *apiErr) {
		s.mu.Lock()
		s.log[idx].Status, s.log[idx].Error = e.status, e.message
		s.mu.Unlock()
		e.write(w)
	}
	listing := r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models")
	if !listing && (r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses")) {
		fail(&apiErr{status: 404, message: "Invalid URL (" + r.Method + " " + r.URL.Path + ")"})
		return
	}
	auth := r.Header.Get("Authorization")
	if auth == "" {
		fail(&apiErr{status: 401, message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."})
		return
	}
	org, known := s.orgOf(auth)
	if !known {
		fail(&apiErr{status: 401, message: "Incorrect API key provided.", code: "invalid_api_key"})
		return
	}
	w.Header().Set(orgHeader, org)
	if listing {
		s.listModels(w)
		return
	}
	s.mu.Lock()
	var fault *Fault
	if len(s.faults) > 0 {
		fault = &s.faults[0]
		s.faults = s.faults[1:]
	}
	s.mu.Unlock()
	if fault != nil && fault.Status != 0 {
		if fault.RetryAfter != "" {
			w.Header().Set("retry-after", fault.RetryAfter)
		}
		msg := fault.Message
		if msg == "" {
			msg = "Rate limit reached. Please try again later."
		}
		typ := "invalid_request_error"
		if fault.Status == 429 {
			typ = "rate_limit_exceeded"
		} else if fault.Status >= 500 {
			typ = "server_error"
		}
		fail(&apiErr{status: fault.Status, message: msg, typ: typ})
		return
	}
	req, e := s.validate(body, org)
	if e != nil && e.code == "invalid_encrypted_content" && s.StreamRefusal != "" && streaming(body) {
		s.mu.Lock()
		s.log[idx].Error = e.message
		s.mu.Unlock()
		s.refuseInStream(w, e)
		return
	}
	if e != nil {
		fail(e)
		return
	}
	s.mu.Lock()
	turn := Turn{Text("done")}
	if s.next < len(s.script) {
		turn = s.script[s.next]
	}
	s.next++
	if turn.cut(req) {
		s.next-- // the same turn again once the limit is raised
	}
	cached := commonPrefix(s.prev, body)
	s.prev = body
	s.mu.Unlock()
	out, err := s.generate(turn, req)
	if err != nil {
		s.t.Errorf("responsestest: script: %v", err)
		fail(&apiErr{status: 500, message: err.Error(), typ: "server_error"})
		return
	}
	resp := s.response(req, out, len(body)/4, cached/4)
	if turn.cut(req) {
		resp["status"], resp["incomplete_details"] = "incomplete", obj{"reason": "max_output_tokens"}
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-request-id", "req_fake")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	cut := 0
	if fault != nil {
		cut = fault.CutAfter
	}
	s.stream(w, resp, out, cut)
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
