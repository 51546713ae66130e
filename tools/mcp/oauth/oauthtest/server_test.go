package oauthtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The fake's rejections are the RFCs': each case breaks one rule of an
// otherwise good exchange and expects the server's error code.
func TestRejections(t *testing.T) {
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	const verifier = "a-verifier-long-enough-for-rfc-7636-which-wants-43-characters"
	const redirect = "http://127.0.0.1:5000/callback"

	// authorize returns the code of a good authorization request.
	authorize := func(t *testing.T, s *Server, drop string) url.Values {
		q := url.Values{"response_type": {"code"}, "client_id": {"pub"}, "redirect_uri": {redirect}, "state": {"st"},
			"code_challenge": {s256(verifier)}, "code_challenge_method": {"S256"}, "resource": {s.ResourceURL}, "scope": {"mcp"}}
		q.Del(drop)
		resp, err := noRedirect.Get(s.URL + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		return loc.Query()
	}
	token := func(t *testing.T, s *Server, form url.Values) (int, string) {
		resp, err := http.PostForm(s.URL+"/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		code, _ := v["error"].(string)
		if code == "" {
			code, _ = v["refresh_token"].(string)
		}
		return resp.StatusCode, code
	}
	exchange := func(code string) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {"pub"},
			"redirect_uri": {redirect}, "code_verifier": {verifier}, "resource": {""}}
	}
	newServer := func(t *testing.T) *Server {
		s := New(t, http.NotFoundHandler())
		s.AddClient(Client{ID: "pub", AuthMethod: "none", RedirectURIs: []string{"http://127.0.0.1/callback"}})
		return s
	}

	t.Run("missing resource in the authorization request", func(t *testing.T) {
		s := newServer(t)
		if got := authorize(t, s, "resource").Get("error"); got != "invalid_target" {
			t.Fatalf("error = %q, want invalid_target", got)
		}
	})
	t.Run("no PKCE", func(t *testing.T) {
		s := newServer(t)
		if got := authorize(t, s, "code_challenge").Get("error"); got != "invalid_request" {
			t.Fatalf("error = %q, want invalid_request", got)
		}
	})
	for _, tc := range []struct {
		name   string
		change func(url.Values)
		status int
		code   string
	}{
		{"good", func(url.Values) {}, 200, ""},
		{"wrong PKCE verifier", func(f url.Values) { f.Set("code_verifier", strings.Repeat("x", 50)) }, 400, "invalid_grant"},
		{"missing resource", func(f url.Values) { f.Del("resource") }, 400, "invalid_target"},
		{"other redirect_uri", func(f url.Values) { f.Set("redirect_uri", "http://127.0.0.1:5001/other") }, 400, "invalid_grant"},
		{"secret from a public client", func(f url.Values) { f.Set("client_secret", "x") }, 401, "invalid_client"},
	} {
		t.Run("token: "+tc.name, func(t *testing.T) {
			s := newServer(t)
			f := exchange(authorize(t, s, "").Get("code"))
			f.Set("resource", s.ResourceURL)
			tc.change(f)
			status, code := token(t, s, f)
			if status != tc.status || (tc.code != "" && code != tc.code) {
				t.Fatalf("got %d %q, want %d %q", status, code, tc.status, tc.code)
			}
		})
	}
	t.Run("reused code", func(t *testing.T) {
		s := newServer(t)
		f := exchange(authorize(t, s, "").Get("code"))
		f.Set("resource", s.ResourceURL)
		if status, _ := token(t, s, f); status != 200 {
			t.Fatal("first use refused")
		}
		if status, code := token(t, s, f); status != 400 || code != "invalid_grant" {
			t.Fatalf("second use: %d %q, want 400 invalid_grant", status, code)
		}
	})
	t.Run("expired and rotated refresh tokens", func(t *testing.T) {
		s := newServer(t)
		f := exchange(authorize(t, s, "").Get("code"))
		f.Set("resource", s.ResourceURL)
		_, rt := token(t, s, f)
		refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {"pub"}, "resource": {s.ResourceURL}}
		status, rt2 := token(t, s, refresh)
		if status != 200 {
			t.Fatalf("refresh: %d", status)
		}
		if status, code := token(t, s, refresh); status != 400 || code != "invalid_grant" {
			t.Fatalf("rotated-out refresh token: %d %q", status, code)
		}
		s.ExpireRefreshTokens()
		refresh.Set("refresh_token", rt2)
		if status, code := token(t, s, refresh); status != 400 || code != "invalid_grant" {
			t.Fatalf("expired refresh token: %d %q", status, code)
		}
	})
}

// The registration endpoint applies OpenID Connect's application_type
// rules to the redirect URIs, as OpenID providers do.
func TestRegistrationApplicationType(t *testing.T) {
	s := New(t, http.NotFoundHandler())
	for _, tc := range []struct {
		name, appType, redirect, wantError string
	}{
		{"native loopback", "native", "http://127.0.0.1:5000/callback", ""},
		{"omitted is web: no loopback", "", "http://127.0.0.1:5000/callback", "invalid_redirect_uri"},
		{"web loopback", "web", "http://localhost:5000/callback", "invalid_redirect_uri"},
		{"web https", "web", "https://app.example/callback", ""},
		{"unknown type", "desktop", "http://127.0.0.1:5000/callback", "invalid_client_metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"redirect_uris": []string{tc.redirect}, "token_endpoint_auth_method": "none"}
			if tc.appType != "" {
				body["application_type"] = tc.appType
			}
			b, _ := json.Marshal(body)
			resp, err := http.Post(s.URL+"/register", "application/json", strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var v struct {
				Error    string `json:"error"`
				ClientID string `json:"client_id"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&v)
			if v.Error != tc.wantError || (tc.wantError == "") != (v.ClientID != "") {
				t.Fatalf("status %d, error %q, client %q; want error %q", resp.StatusCode, v.Error, v.ClientID, tc.wantError)
			}
		})
	}
}
