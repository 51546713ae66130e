package app

import (
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
	for _, tc := range []struct {
		key     string
		refused bool
	}{
		{"@/home/user/.ssh/id_ed25519", true},
		{"-----BEGIN PRIVATE KEY-----\\n...", false},
	} {
		cfg := `{"mcpServers": {"x": {"type": "http", "url": "https://x.example/mcp",
			"oauth": {"grant": "client_credentials", "client_id": "c", "private_key": "` + tc.key + `"}}}}`
		if err := os.WriteFile(filepath.Join(wd, ".mcp.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Load(Flags{Workdir: wd, Trust: true}, os.Getenv)
		if err == nil {
			_, err = s.MCPServers()
		}
		if refused := err != nil && strings.Contains(err.Error(), "never from a project's .mcp.json"); refused != tc.refused {
			t.Errorf("key %.20q: err = %v, want refused=%v", tc.key, err, tc.refused)
		}
	}
}
