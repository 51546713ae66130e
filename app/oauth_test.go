package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cloned repository's .mcp.json cannot make the agent read a key file.
func TestProjectMCPConfigNamesNoKeyPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	wd := t.TempDir()
	keyEntry := func(v string) string {
		return `{"grant": "client_credentials", "client_id": "c", "private_key": "` + v + `"}`
	}
	idTokenEntry := func(v string) string {
		return `{"grant": "cross_app", "client_id": "c", "idp": {"issuer": "https://idp.example", "client_id": "i", "id_token": "` + v + `"}}`
	}
	workloadEntry := func(v string) string {
		return `{"grant": "workload_identity", "workload_token": "` + v + `"}`
	}
	for _, tc := range []struct {
		oauth   string
		refused bool
	}{
		{keyEntry("@/home/user/.ssh/id_ed25519"), true},
		{keyEntry("-----BEGIN PRIVATE KEY-----\\n..."), false},
		{idTokenEntry("@/home/user/.cache/sso/id_token"), true},
		{idTokenEntry("eyJ.a.b"), false},
		{workloadEntry("@/var/run/secrets/tokens/mcp"), true},
		{workloadEntry("eyJ.a.b"), false},
	} {
		cfg := `{"mcpServers": {"x": {"type": "http", "url": "https://x.example/mcp", "oauth": ` + tc.oauth + `}}}`
		if err := os.WriteFile(filepath.Join(wd, ".mcp.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Load(Flags{Workdir: wd, Trust: true}, os.Getenv)
		if err == nil {
			_, err = s.MCPServers()
		}
		if refused := err != nil && strings.Contains(err.Error(), "never from a project's .mcp.json"); refused != tc.refused {
			t.Errorf("oauth %s: err = %v, want refused=%v", tc.oauth, err, tc.refused)
		}
	}
}

// token_store is the user's: a project's is ignored with a warning, the
// environment's wins over the user's file, and a value outside the set is
// a usage error naming it.
func TestTokenStoreSetting(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	work := filepath.Join(dir, "work")
	writeFile(t, user, `{"token_store": "file"}`)
	writeFile(t, filepath.Join(work, ".agent", "config.json"), `{"token_store": "keychain"}`)
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	s, err := Load(Flags{ConfigPath: user, Workdir: work, Trust: true}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if s.TokenStore != "file" || !warned(s, "token_store in") {
		t.Errorf("token_store %q, warnings %q", s.TokenStore, s.Warnings)
	}
	if got := oauthOptions(s, nil).Store.Kind(); got != "file" {
		t.Errorf("the store in use is %q, want file", got)
	}
	env["AGENT_TOKEN_STORE"] = "auto"
	if s, err = Load(Flags{ConfigPath: user, Workdir: work}, getenv); err != nil || s.TokenStore != "auto" {
		t.Errorf("AGENT_TOKEN_STORE=auto: %q, %v", s.TokenStore, err)
	}
	env["AGENT_TOKEN_STORE"] = "vault"
	var ue *UsageError
	if _, err := Load(Flags{ConfigPath: user, Workdir: work}, getenv); !errors.As(err, &ue) || !strings.Contains(err.Error(), `"vault"`) {
		t.Errorf("AGENT_TOKEN_STORE=vault: %v", err)
	}
}
