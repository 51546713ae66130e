package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
)

// record is what is kept for one server between runs: its token and the
// client the agent registered (or was configured) with, so a refresh and a
// later sign-in reuse them: one keychain entry or one file of mode 0600
// (keychain.go), never the session database.
type record struct {
	// ServerURL guards against a renamed entry pointing elsewhere.
	ServerURL string           `json:"server_url"`
	Token     *transport.Token `json:"token,omitempty"`
	// Client is the registered client (dynamic registration), kept for the
	// issuer it was registered with.
	Client *client `json:"client,omitempty"`
	// DPoPKey is the private key a DPoP token (Token.TokenType "DPoP") and
	// its refresh token are bound to (dpop.go): kept with them, as secret
	// as they are, and replaced with them at the next sign-in.
	DPoPKey string `json:"dpop_key,omitempty"`
	// IDToken is the user's OpenID Connect ID token, in the record of an
	// IdP the agent signed in to for cross-app access (sso.go).
	IDToken string `json:"id_token,omitempty"`
}

// client is the client identity used with one authorization server.
type client struct {
	Issuer       string `json:"issuer"`
	ID           string `json:"client_id"`
	Secret       string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
	RedirectURI  string `json:"redirect_uri,omitempty"`
	TokenURL     string `json:"token_endpoint,omitempty"`
	Resource     string `json:"resource,omitempty"`
	registeredBy string // "config", "cimd" or "dcr" (not stored: only dcr is)
}

// fileStore keeps records under dir, one file per server name and URL.
type fileStore struct {
	dir string
	mu  sync.Mutex
}

// Compiled on first use: package init runs on every start, -p and --help too.
var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

func (s *fileStore) path(server, url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(s.dir, unsafeName().ReplaceAllString(server, "_")+"-"+hex.EncodeToString(sum[:6])+".json")
}

func (s *fileStore) load(server, url string) (record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := os.ReadFile(s.path(server, url))
	if errors.Is(err, os.ErrNotExist) {
		return record{ServerURL: url}, nil
	}
	if err != nil {
		return record{}, fmt.Errorf("read the sign-in of %s: %w", server, err)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil || r.ServerURL != url {
		// A damaged or foreign file is a missing sign-in, not a failure.
		return record{ServerURL: url}, nil
	}
	return r, nil
}

func (s *fileStore) save(server, url string, r record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.ServerURL = url
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("keep the sign-in of %s: %w", server, err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	// Written beside and renamed, so a reader never sees half a file; the
	// mode is set before any secret is written.
	p := s.path(server, url)
	f, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("keep the sign-in of %s: %w", server, err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("keep the sign-in of %s: %w", server, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("keep the sign-in of %s: %w", server, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("keep the sign-in of %s: %w", server, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		return fmt.Errorf("keep the sign-in of %s: %w", server, err)
	}
	return nil
}

func (s *fileStore) remove(server, url string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(s.path(server, url))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove the sign-in of %s: %w", server, err)
	}
	return true, nil
}
