package oauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools/mcp/oauth"
	"github.com/agent-dev/agent/tools/mcp/oauth/oauthtest"
)

// workloadJWT is a platform's identity token for the workload: signed by
// key, for audience, expiring at exp.
func workloadJWT(t *testing.T, key *ecdsa.PrivateKey, audience string, exp time.Time) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.RegisteredClaims{
		Issuer: "https://k8s.example", Subject: "system:serviceaccount:ci:agent",
		Audience: jwt.ClaimStrings{audience}, ExpiresAt: jwt.NewNumericDate(exp), IssuedAt: jwt.NewNumericDate(time.Now()),
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Workload identity federation (SEP-1933): the workload's own token, read
// from the file the platform mounts, is the JWT bearer grant; a token that
// cannot be read fails the request in one line naming the file, before any
// token request; a refused grant is not tried again.
func TestWorkloadIdentity(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// file is the token file's content; nil: no file.
		file func(aud string) []byte
		// wantErr is in the error; "" for success.
		wantErr     string
		tokenAsks   int // token requests made
		readFailure bool
	}{
		{name: "valid token", file: func(aud string) []byte { return []byte(workloadJWT(t, key, aud, time.Now().Add(time.Hour)) + "\n") }, tokenAsks: 1},
		{name: "file missing", wantErr: "no such file", readFailure: true},
		{name: "file empty", file: func(string) []byte { return []byte(" \n") }, wantErr: ": empty", readFailure: true},
		{name: "not a JWT", file: func(string) []byte { return []byte("s3cr3t-not-a-jwt") }, wantErr: "not a JWT", readFailure: true},
		{name: "expired token refused once", file: func(aud string) []byte { return []byte(workloadJWT(t, key, aud, time.Now().Add(-time.Hour))) }, wantErr: "400 invalid_grant", tokenAsks: 1},
		{name: "another audience refused once", file: func(string) []byte {
			return []byte(workloadJWT(t, key, "https://elsewhere", time.Now().Add(time.Hour)))
		}, wantErr: "400 invalid_grant", tokenAsks: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "token")
			cfg := &config.MCPOAuth{Grant: config.GrantWorkloadIdentity, WorkloadToken: "@" + path}
			f := setup(t, cfg, false, func(s *oauthtest.Server) { s.Workload = &oauthtest.Workload{Key: &key.PublicKey} })
			var content []byte
			if tt.file != nil {
				content = tt.file(f.as.URL)
				if err := os.WriteFile(path, content, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if st := f.auth.State(); st != oauth.StateOnUse {
				t.Errorf("state %s, want %s", st, oauth.StateOnUse)
			}
			status, err := f.call(t, "tools/list")
			if n := count(f.as.Log(), "POST /token"); n != tt.tokenAsks {
				t.Errorf("token requests %d, want %d\n%q", n, tt.tokenAsks, f.as.Log())
			}
			if tt.wantErr == "" {
				if err != nil || status != 200 {
					t.Fatalf("call: %v %v\n%q", status, err, f.as.Log())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line containing %q", err, tt.wantErr)
			}
			if tok := strings.TrimSpace(string(content)); tok != "" && strings.Contains(err.Error(), tok) {
				t.Fatalf("the token in the error: %v", err)
			}
			if ge := (*oauth.GrantError)(nil); !errors.As(err, &ge) || ge.Server != "remote" {
				t.Fatalf("want a GrantError of server remote: %v", err)
			}
			var we *oauth.WorkloadTokenError
			if got := errors.As(err, &we); got != tt.readFailure {
				t.Fatalf("WorkloadTokenError %v, want %v: %v", got, tt.readFailure, err)
			}
			if tt.readFailure && (we.Path != path || !strings.Contains(err.Error(), path)) {
				t.Fatalf("the error does not name the file %s: %v", path, err)
			}
		})
	}
}
