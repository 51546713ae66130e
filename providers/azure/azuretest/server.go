// Package azuretest is a strict fake of Azure OpenAI's v1 Responses route:
// POST /openai/v1/responses with an `api-key` header (or an Entra ID bearer
// token it was told to accept), answering Azure's 401 and 404 bodies
// otherwise, and handing accepted requests to an inner responsestest fake,
// which applies every rule of the Responses API and runs its script.
package azuretest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// DefaultKey is the api-key accepted unless APIKey is changed.
const DefaultKey = "azure-test-key"

// Server is a running fake. Its URL is the resource endpoint
// (AZURE_OPENAI_ENDPOINT).
type Server struct {
	URL string
	// Inner answers accepted requests: Script it.
	Inner  *rt.Server
	APIKey string
	// BearerToken, when set, is an Entra ID token the fake accepts.
	BearerToken string

	mu  sync.Mutex
	log []Request
}

// Request is one request as the fake saw it.
type Request struct {
	Path   string
	Header http.Header
	Status int
	Error  string
}

// NewServer starts a fake closed with the test.
func NewServer(t testing.TB) *Server {
	s := &Server{Inner: rt.NewServer(t), APIKey: DefaultKey}
	inner, _ := url.Parse(s.Inner.URL)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(inner) // inner.URL ends in /v1: /v1 + /responses
			pr.Out.URL.Path = inner.Path + "/responses"
			pr.Out.Header.Del("api-key")
			pr.Out.Header.Set("Authorization", "Bearer "+s.Inner.APIKey)
		},
		FlushInterval: -1,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := Request{Path: r.URL.Path, Header: r.Header.Clone(), Status: 200}
		fail := func(status int, code, msg string) {
			req.Status, req.Error = status, msg
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
		}
		defer func() {
			s.mu.Lock()
			s.log = append(s.log, req)
			s.mu.Unlock()
		}()
		if r.Method != http.MethodPost || r.URL.Path != "/openai/v1/responses" {
			_, _ = io.Copy(io.Discard, r.Body)
			fail(404, "404", "Resource not found")
			return
		}
		key, bearer := r.Header.Get("api-key"), r.Header.Get("Authorization")
		switch {
		case key != "" && key == s.APIKey:
		case key == "" && s.BearerToken != "" && bearer == "Bearer "+s.BearerToken:
		case key == "" && bearer != "":
			fail(401, "401", "Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.")
			return
		default:
			fail(401, "401", "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.")
			return
		}
		// Read whole, not passed through: writing the answer's headers
		// closes the server's request body, and the transport's check
		// read after Content-Length bytes would then fail and drop the
		// connection to the inner fake mid-answer (golang/go#40747; the
		// start bench's flake, bench/startbench TestProxyBodyOutlivesHeaders).
		body, err := io.ReadAll(r.Body)
		if err != nil {
			fail(400, "400", "could not read the request body: "+err.Error())
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns what the fake saw, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Rejected counts the requests refused here or by the inner fake.
func (s *Server) Rejected() int {
	n := len(s.Inner.Rejected())
	for _, r := range s.Requests() {
		if r.Status >= 400 {
			n++
		}
	}
	return n
}
