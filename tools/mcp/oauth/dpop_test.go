package oauth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/mcp/oauth/oauthtest"
)

// keptRecord reads the one sign-in file of the fixture's store.
func keptRecord(t *testing.T, dir string) (raw string, rec struct {
	Token struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	} `json:"token"`
	DPoPKey string `json:"dpop_key"`
}) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("sign-in files: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return string(b), rec
}

// checkProofs holds every proof the server saw to RFC 9449 §4.2: the
// header's type, algorithm and public key alone, htm, htu without query or
// fragment, iat now, a jti never used before, and at the resource ath, the
// hash of the token it came with.
func checkProofs(t *testing.T, f *fixture, token string) {
	t.Helper()
	proofs := f.as.Proofs()
	if len(proofs) == 0 {
		t.Fatal("no DPoP proof was sent")
	}
	sum := sha256.Sum256([]byte(token))
	ath := base64.RawURLEncoding.EncodeToString(sum[:])
	jtis := map[any]bool{}
	for i, p := range proofs {
		jwk, _ := p.Header["jwk"].(map[string]any)
		htu, _ := p.Claims["htu"].(string)
		iat, _ := p.Claims["iat"].(float64)
		switch {
		case p.Header["typ"] != "dpop+jwt" || p.Header["alg"] != "ES256":
			t.Errorf("proof %d: header %v", i, p.Header)
		case jwk == nil || jwk["d"] != nil:
			t.Errorf("proof %d: jwk %v, want the public key only", i, jwk)
		case p.Claims["htm"] != "POST":
			t.Errorf("proof %d: htm %v", i, p.Claims["htm"])
		case htu != f.as.URL+p.Path:
			t.Errorf("proof %d: htu %q, want %q (no query, no fragment)", i, htu, f.as.URL+p.Path)
		case time.Since(time.Unix(int64(iat), 0)).Abs() > time.Minute:
			t.Errorf("proof %d: iat %v", i, iat)
		case jtis[p.Claims["jti"]] || p.Claims["jti"] == nil:
			t.Errorf("proof %d: jti %v missing or used before", i, p.Claims["jti"])
		case p.Path == "/token" && p.Claims["ath"] != nil:
			t.Errorf("proof %d: ath at the token endpoint", i)
		case p.Path == "/mcp" && p.Claims["ath"] != ath:
			t.Errorf("proof %d: ath %v, want base64url(sha256(token)) %s", i, p.Claims["ath"], ath)
		}
		jtis[p.Claims["jti"]] = true
	}
}

func TestDPoP(t *testing.T) {
	tests := []struct {
		name string
		dpop oauthtest.DPoP
		// tokenNonces and resourceNonces are the use_dpop_nonce answers
		// each end gives.
		tokenNonces, resourceNonces int
	}{
		{name: "advertised by the authorization server", dpop: oauthtest.DPoP{}},
		{name: "asked by the resource's challenge", dpop: oauthtest.DPoP{Unadvertised: true}},
		{name: "nonces at both ends", dpop: oauthtest.DPoP{TokenNonce: true, ResourceNonce: true}, tokenNonces: 1, resourceNonces: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t, nil, true, func(s *oauthtest.Server) { d := tt.dpop; s.DPoP = &d })
			// A query and a fragment, which the proofs' htu leaves out.
			for range 3 {
				status, err := post(t.Context(), f.http, f.as.ResourceURL+"?session=1#part", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
				if err != nil || status != 200 {
					t.Fatalf("call: %v %v\nlog: %q", status, err, f.as.Log())
				}
			}
			raw, rec := keptRecord(t, f.dir)
			if rec.Token.TokenType != "DPoP" || rec.DPoPKey == "" {
				t.Fatalf("kept token type %q, key kept %v: want a DPoP token with its key", rec.Token.TokenType, rec.DPoPKey != "")
			}
			log := f.as.Log()
			if n := count(log, "POST /token -> 400 use_dpop_nonce"); n != tt.tokenNonces {
				t.Errorf("token endpoint nonce challenges %d, want %d\n%q", n, tt.tokenNonces, log)
			}
			if n := count(log, "POST /mcp -> 401 use_dpop_nonce"); n != tt.resourceNonces {
				t.Errorf("resource nonce challenges %d, want %d (the nonce is kept for the next requests)\n%q", n, tt.resourceNonces, log)
			}
			for _, l := range log {
				if strings.Contains(l, "as Bearer") || strings.Contains(l, "invalid_dpop_proof") {
					t.Errorf("the fake refused: %s", l)
				}
			}
			if r := slicesWithout(f.rejections(), "use_dpop_nonce"); len(r) > 0 {
				t.Fatalf("the fake rejected: %q", r)
			}
			checkProofs(t, f, rec.Token.AccessToken)

			// The refresh proves the same key, and the new token is bound
			// to it too (the fake refuses a refresh token of another key).
			f.as.ExpireAccessTokens()
			if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
				t.Fatalf("after expiry: %v %v\n%q", status, err, f.as.Log())
			}
			if f.br.visits.Load() != 1 {
				t.Fatalf("browser visits %d: the refresh did not do", f.br.visits.Load())
			}
			_, again := keptRecord(t, f.dir)
			if again.DPoPKey != rec.DPoPKey || again.Token.TokenType != "DPoP" || again.Token.AccessToken == rec.Token.AccessToken {
				t.Fatalf("after the refresh: type %q, same key %v, new token %v", again.Token.TokenType, again.DPoPKey == rec.DPoPKey, again.Token.AccessToken != rec.Token.AccessToken)
			}
			if !strings.Contains(raw, `"dpop_key"`) {
				t.Fatal("the key is not kept with the token")
			}
		})
	}
}

func slicesWithout(lines []string, sub string) []string {
	var out []string
	for _, l := range lines {
		if !strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// A server that asks for a new nonce every time gets the request once
// more, not forever: the request fails saying so, with no token or key in
// the text.
func TestDPoPNonceRetriesAreBounded(t *testing.T) {
	tests := []struct {
		name       string
		dpop       oauthtest.DPoP
		end        string // the log line of the end that keeps asking
		names      string // what the error names: the server or the endpoint
		wantAsked  int
		signedInOK bool
	}{
		{name: "token endpoint", dpop: oauthtest.DPoP{TokenNonce: true, NewNonceEachTime: true}, end: "POST /token -> 400 use_dpop_nonce", names: "token request to http://127.0.0.1", wantAsked: 2},
		{name: "resource", dpop: oauthtest.DPoP{ResourceNonce: true, NewNonceEachTime: true}, end: "POST /mcp -> 401 use_dpop_nonce", names: "MCP server remote", wantAsked: 2, signedInOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t, nil, true, func(s *oauthtest.Server) { d := tt.dpop; s.DPoP = &d })
			_, err := f.call(t, "tools/list")
			if !errors.Is(err, oauth.ErrDPoPNonce) {
				t.Fatalf("err = %v, want ErrDPoPNonce\n%q", err, f.as.Log())
			}
			if n := count(f.as.Log(), tt.end); n != tt.wantAsked {
				t.Fatalf("%d answers %q, want %d\n%q", n, tt.end, tt.wantAsked, f.as.Log())
			}
			for _, tok := range f.as.Issued() {
				if strings.Contains(err.Error(), tok) {
					t.Fatalf("a token in the error: %v", err)
				}
			}
			if tt.signedInOK {
				_, rec := keptRecord(t, f.dir)
				if strings.Contains(err.Error(), rec.DPoPKey) || strings.Contains(err.Error(), rec.Token.AccessToken) {
					t.Fatalf("the key or token in the error: %v", err)
				}
			}
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tt.names) {
				t.Fatalf("want one line naming %q: %q", tt.names, err)
			}
		})
	}
}

// A DPoP token whose key is lost or damaged is never sent, as DPoP or as
// Bearer: the agent signs in again with a new key.
func TestDPoPTokenWithoutItsKey(t *testing.T) {
	f := setup(t, nil, true, func(s *oauthtest.Server) { s.DPoP = &oauthtest.DPoP{} })
	if status, err := f.call(t, "initialize"); err != nil || status != 200 {
		t.Fatalf("sign-in: %v %v", status, err)
	}
	files, _ := filepath.Glob(filepath.Join(f.dir, "*.json"))
	raw, rec := keptRecord(t, f.dir)
	if err := os.WriteFile(files[0], []byte(strings.Replace(raw, rec.DPoPKey, "damaged", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	f.auth.Reload()
	if status, err := f.call(t, "tools/list"); err != nil || status != 200 {
		t.Fatalf("after the key was damaged: %v %v\n%q", status, err, f.as.Log())
	}
	for _, l := range f.as.Log() {
		if strings.Contains(l, "as Bearer") {
			t.Fatalf("the bound token went as Bearer: %q", f.as.Log())
		}
	}
	if _, again := keptRecord(t, f.dir); again.DPoPKey == rec.DPoPKey || again.DPoPKey == "damaged" || f.br.visits.Load() != 2 {
		t.Fatalf("want a new sign-in with a new key: visits %d", f.br.visits.Load())
	}
}
