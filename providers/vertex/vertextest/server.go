// Package vertextest is a strict fake of Claude on Vertex AI plus the
// Google OAuth token endpoint a service account key names in its token_uri.
// The token endpoint verifies the JWT bearer assertion with the key it
// issued (RS256, issuer, audience, scope) and hands out short access
// tokens; the model route
// /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict|rawPredict
// accepts only those tokens, checks project, region and body rules (no
// "model", anthropic_version vertex-2023-10-16, stream matching the verb),
// and hands the Messages request to an inner anthropictest fake.
package vertextest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/providers/gemini/geminitest"
	"github.com/agent-dev/agent/providers/internal/claudeplatform/platformtest"
	"github.com/agent-dev/agent/providers/vertex"
)

// Defaults the fake accepts.
const (
	Project     = "agent-test-project"
	Region      = "global"
	ClientEmail = "agent-test@agent-test-project.iam.gserviceaccount.com"
)

// Server is a running fake.
type Server struct {
	URL string
	// BaseURL is what ANTHROPIC_VERTEX_BASE_URL should be: URL + "/v1".
	BaseURL string
	// Inner answers the Messages requests; set its Script or Enqueue on it.
	Inner *anthropictest.Server
	// Gemini answers the publishers/google (Gemini) requests; set its Script.
	Gemini          *geminitest.Server
	Project, Region string
	// TokenTTL is the lifetime of issued tokens (an hour by default).
	TokenTTL time.Duration
	// RefuseTokens makes the token endpoint answer invalid_grant.
	RefuseTokens bool

	key    *rsa.PrivateKey
	log    platformtest.Log
	mu     sync.Mutex
	tokens map[string]time.Time
	grants int
	// userRefresh is the refresh token of the user credentials file.
	userRefresh string
}

// NewServer starts a fake closed with the test.
func NewServer(t testing.TB) *Server {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Inner: anthropictest.NewServer(t), Gemini: geminitest.NewServer(t), Project: Project, Region: Region, TokenTTL: time.Hour,
		key: key, tokens: map[string]time.Time{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/token", s.token)
	mux.HandleFunc("/", s.serve)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL, s.BaseURL = srv.URL, srv.URL+"/v1"
	return s
}

// Requests returns every model request received, rejected ones included.
func (s *Server) Requests() []*platformtest.Request { return s.log.All() }

// Rejected returns the model requests the fake refused.
func (s *Server) Rejected() []*platformtest.Request { return s.log.Rejected() }

// TokenGrants is how many access tokens the token endpoint issued.
func (s *Server) TokenGrants() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grants
}

// ServiceAccountJSON writes a service account key file whose token_uri is
// this fake's token endpoint, and returns its path.
func (s *Server) ServiceAccountJSON(t testing.TB) string {
	der, err := x509.MarshalPKCS8PrivateKey(s.key)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": s.Project, "private_key_id": "fake-key-1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": ClientEmail, "client_id": "1234567890",
		"auth_uri": s.URL + "/auth", "token_uri": s.URL + "/token",
	}, "", "  ")
	p := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// token is the OAuth 2.0 JWT bearer grant (RFC 7523) as Google serves it.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, code, desc string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		fail(400, "invalid_request", "POST a form")
		return
	}
	if r.PostForm.Get("grant_type") == "refresh_token" {
		// gcloud's user credentials (authorized_user).
		if r.PostForm.Get("client_id") != UserClientID || r.PostForm.Get("refresh_token") != s.userRefresh {
			fail(400, "invalid_grant", "Token has been expired or revoked.")
			return
		}
		s.issue(w)
		return
	}
	if r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		fail(400, "unsupported_grant_type", "Invalid grant_type: "+r.PostForm.Get("grant_type"))
		return
	}
	if s.RefuseTokens {
		fail(400, "invalid_grant", "Invalid JWT Signature.")
		return
	}
	parts := strings.Split(r.PostForm.Get("assertion"), ".")
	if len(parts) != 3 {
		fail(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe")
		return
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err != nil || rsa.VerifyPKCS1v15(&s.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		fail(400, "invalid_grant", "Invalid JWT Signature.")
		return
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Iss   string `json:"iss"`
		Aud   string `json:"aud"`
		Scope string `json:"scope"`
		Exp   int64  `json:"exp"`
	}
	_ = json.Unmarshal(payload, &c)
	switch {
	case c.Iss != ClientEmail:
		fail(400, "invalid_grant", "Invalid issuer: "+c.Iss)
		return
	case c.Aud != "http://"+r.Host+"/token":
		fail(400, "invalid_grant", "Invalid JWT audience: "+c.Aud)
		return
	case !strings.Contains(" "+c.Scope+" ", " "+vertex.Scope+" "):
		fail(400, "invalid_scope", "missing the cloud-platform scope: "+c.Scope)
		return
	case time.Unix(c.Exp, 0).Before(time.Now()):
		fail(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
		return
	}
	s.issue(w)
}

// issue hands out a new access token.
func (s *Server) issue(w http.ResponseWriter) {
	s.mu.Lock()
	s.grants++
	tok := fmt.Sprintf("ya29.fake-%d", s.grants)
	s.tokens[tok] = time.Now().Add(s.TokenTTL)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": int(s.TokenTTL.Seconds()), "token_type": "Bearer"})
}

// UserClientID is the OAuth client of the user credentials file.
const UserClientID = "764086051850-fake.apps.googleusercontent.com"

// UserCredentialsJSON writes an authorized_user file (what `gcloud auth
// application-default login` leaves) whose token_uri is this fake; revoked
// makes its refresh token one the endpoint refuses.
func (s *Server) UserCredentialsJSON(t testing.TB, revoked bool) string {
	s.mu.Lock()
	s.userRefresh = "1//fake-refresh-token"
	s.mu.Unlock()
	refresh := s.userRefresh
	if revoked {
		refresh = "1//revoked"
	}
	b, _ := json.Marshal(map[string]string{"type": "authorized_user", "client_id": UserClientID, "client_secret": "fake-secret",
		"refresh_token": refresh, "token_uri": s.URL + "/token", "quota_project_id": s.Project})
	p := filepath.Join(t.TempDir(), "adc.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Expire makes every issued token invalid, as if an hour had passed.
func (s *Server) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.tokens {
		s.tokens[k] = time.Time{}
	}
}

var route = regexp.MustCompile(`^/v1/projects/([^/]+)/locations/([^/]+)/publishers/anthropic/models/([^/:]+(?:@[^/:]+)?):(streamRawPredict|rawPredict)$`)

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	req := &platformtest.Request{Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body}
	s.log.Add(req)
	reject := func(status int, gstatus, msg string) {
		req.Status, req.Rejection = status, gstatus+": "+msg
		writeGoogleError(w, status, gstatus, msg)
	}
	if gm := geminiRoute.FindStringSubmatch(hr.URL.Path); gm != nil && hr.Method == http.MethodPost {
		s.serveGemini(w, hr, req, gm)
		return
	}
	m := route.FindStringSubmatch(hr.URL.Path)
	if hr.Method != http.MethodPost || m == nil {
		reject(404, "NOT_FOUND", "The requested URL "+hr.URL.Path+" was not found on this server.")
		return
	}
	req.Model, req.Stream = m[3], m[4] == "streamRawPredict"
	if !s.authorized(w, hr, req, m[1], m[2], m[3]) {
		return
	}
	b, err := platformtest.ParseBody(body)
	if err != nil {
		writeAnthropic(w, req, 400, "invalid_request_error", "There was an issue with the form of the request: "+err.Error())
		return
	}
	if _, ok := b["model"]; ok {
		writeAnthropic(w, req, 400, "invalid_request_error", "model: Extra inputs are not permitted (the model is named in the URL on Vertex AI)")
		return
	}
	if v := b.Version(); v != vertex.Version {
		writeAnthropic(w, req, 400, "invalid_request_error", "anthropic_version: Input should be 'vertex-2023-10-16'")
		return
	}
	if msg := b.UnavailableTool(vertex.Name); msg != "" {
		writeAnthropic(w, req, 400, "invalid_request_error", msg)
		return
	}
	var stream bool
	_ = json.Unmarshal(b["stream"], &stream)
	if stream != req.Stream {
		writeAnthropic(w, req, 400, "invalid_request_error", fmt.Sprintf("stream: %v does not match :%s", stream, m[4]))
		return
	}
	inner, betas, err := b.Messages(m[3], req.Stream)
	if err != nil {
		writeAnthropic(w, req, 400, "invalid_request_error", err.Error())
		return
	}
	resp, err := platformtest.Forward(hr.Context(), s.Inner, inner, betas, hr.Header)
	if err != nil {
		writeGoogleError(w, 500, "INTERNAL", err.Error())
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		typ, msg := platformtest.InnerError(resp)
		writeAnthropic(w, req, resp.StatusCode, typ, msg)
		return
	}
	req.Status = 200
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(200)
	fl, _ := w.(http.Flusher)
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

var geminiRoute = regexp.MustCompile(`^/v1/projects/([^/]+)/locations/([^/]+)/publishers/google/models/([^/:]+):(streamGenerateContent|generateContent)$`)

// authorized checks the bearer token, the project and the region, and
// answers as Vertex AI does when one is wrong.
func (s *Server) authorized(w http.ResponseWriter, hr *http.Request, req *platformtest.Request, project, region, model string) bool {
	reject := func(status int, gstatus, msg string) bool {
		req.Status, req.Rejection = status, gstatus+": "+msg
		writeGoogleError(w, status, gstatus, msg)
		return false
	}
	tok, ok := strings.CutPrefix(hr.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	exp, known := s.tokens[tok]
	s.mu.Unlock()
	if !ok || !known || time.Now().After(exp) {
		return reject(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
	}
	if project != s.Project {
		return reject(403, "PERMISSION_DENIED", "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/"+project+"' (or it may not exist).")
	}
	if region != s.Region {
		return reject(404, "NOT_FOUND", "Publisher Model `projects/"+project+"/locations/"+region+"/publishers/.../models/"+model+"` not found.")
	}
	return true
}

// serveGemini hands a Gemini request to the inner Gemini fake, whose rules
// (schemas, pairing, signatures) apply as on the Gemini API.
func (s *Server) serveGemini(w http.ResponseWriter, hr *http.Request, req *platformtest.Request, m []string) {
	req.Model, req.Stream = m[3], m[4] == "streamGenerateContent"
	if !s.authorized(w, hr, req, m[1], m[2], m[3]) {
		return
	}
	u := s.Gemini.URL + "/v1beta/models/" + m[3] + ":" + m[4]
	if hr.URL.RawQuery != "" {
		u += "?" + hr.URL.RawQuery
	}
	fr, _ := http.NewRequestWithContext(hr.Context(), http.MethodPost, u, strings.NewReader(string(req.Body)))
	fr.Header.Set("Content-Type", "application/json")
	fr.Header.Set("x-goog-api-key", s.Gemini.APIKey)
	resp, err := http.DefaultClient.Do(fr)
	if err != nil {
		writeGoogleError(w, 500, "INTERNAL", err.Error())
		return
	}
	defer resp.Body.Close()
	req.Status = resp.StatusCode
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		req.Rejection = "gemini: " + resp.Status
	}
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	fl, _ := w.(http.Flusher)
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

func writeGoogleError(w http.ResponseWriter, status int, gstatus, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": gstatus}})
}

func writeAnthropic(w http.ResponseWriter, req *platformtest.Request, status int, typ, msg string) {
	req.Status = status
	if status == 400 {
		req.Rejection = msg
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
}
