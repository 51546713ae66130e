package oauthtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// protected guards the MCP endpoint: a valid token for this resource with
// the required scopes, else 401 with the challenge or 403
// insufficient_scope.
func (s *Server) protected(w http.ResponseWriter, r *http.Request) {
	if len(s.OpenMethods) > 0 && r.Method == http.MethodPost && slices.Contains(s.OpenMethods, rpcMethod(r)) {
		s.mu.Lock()
		s.record(r, 200, "open")
		s.mu.Unlock()
		s.MCP.ServeHTTP(w, r)
		return
	}
	scheme, tok := presented(r)
	ok := tok != "" && (scheme == "Bearer" || scheme == "DPoP" && s.DPoP != nil)
	var g *grant
	if as := s.moved(); as != nil {
		g = as.grant(tok)
	}
	s.mu.Lock()
	meta := s.URL + "/.well-known/oauth-protected-resource/mcp"
	if s.movedTo == nil {
		g = s.access[tok]
	}
	if !ok || g == nil || time.Now().After(g.expires) || g.resource != s.ResourceURL {
		chal := fmt.Sprintf(`Bearer resource_metadata="%s"`, meta)
		if s.DPoP != nil {
			chal = fmt.Sprintf(`DPoP algs="ES256", resource_metadata="%s"`, meta)
		}
		if len(s.Required) > 0 {
			chal += fmt.Sprintf(`, scope="%s"`, strings.Join(s.Required, " "))
		}
		if ok {
			chal += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", chal)
		s.record(r, 401, "")
		s.mu.Unlock()
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if s.DPoP != nil && !s.resourceProof(w, r, scheme, tok, g, meta) {
		s.mu.Unlock()
		return
	}
	need := slices.Clone(s.Required)
	if len(s.ToolScopes) > 0 && r.Method == http.MethodPost && rpcMethod(r) == "tools/call" {
		need = append(need, s.ToolScopes...)
	}
	for _, sc := range need {
		if !slices.Contains(g.scopes, sc) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s", resource_metadata="%s"`, strings.Join(need, " "), meta))
			s.record(r, 403, "insufficient_scope")
			s.mu.Unlock()
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
	}
	s.record(r, 200, "")
	s.mu.Unlock()
	s.MCP.ServeHTTP(w, r)
}

func (s *Server) moved() *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.movedTo
}

// grant is a copy of what the access token tok stands for, nil if nothing.
func (s *Server) grant(tok string) *grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.access[tok]
	if g == nil {
		return nil
	}
	c := *g
	return &c
}

// rpcMethod peeks at a JSON-RPC body for its method, leaving it readable.
func rpcMethod(r *http.Request) string {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	body := b.String()
	r.Body = readCloser{strings.NewReader(body)}
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal([]byte(body), &m)
	return m.Method
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }
