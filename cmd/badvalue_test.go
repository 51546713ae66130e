package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A theme or provider outside its closed set names where it was set: the
// config file with the key's line and column (the user's or the trusted
// project's), the agent profile, the variable, the flag; and the accepted
// values.
func TestBadValueNamesItsSource(t *testing.T) {
	const themes = "use auto, catppuccin, dark, dracula or light"
	for _, tc := range []struct {
		name  string
		files map[string]string // relative to the working directory, or ~ for XDG_CONFIG_HOME
		env   map[string]string
		args  []string
		want  string // after the path the test knows
	}{
		{"user config theme", map[string]string{"~/agent/config.json": "{\n  \"theme\": \"neon\"\n}"}, nil, nil,
			`~/agent/config.json:2:3: "theme": unknown theme "neon": ` + themes},
		{"user config provider", map[string]string{"~/agent/config.json": `{"model": "x", "provider": "bogus"}`}, nil, nil,
			`~/agent/config.json:1:16: "provider": unknown provider "bogus": use anthropic, azure,`},
		{"project config theme", map[string]string{".agent/config.json": `{"theme": "neon"}`}, nil, []string{"--trust"},
			`.agent/config.json:1:2: "theme": unknown theme "neon": ` + themes},
		{"profile theme", map[string]string{"~/agent/agents/x.md": "---\ndescription: x\ntheme: neon\n---\nYou are x.\n"}, nil, []string{"--agent", "x"},
			`agent profile x (~/agent/agents/x.md): "theme": unknown theme "neon": ` + themes},
		{"environment over the file", map[string]string{"~/agent/config.json": `{"theme": "dark"}`}, map[string]string{"AGENT_THEME": "neon"}, nil,
			`AGENT_THEME="neon": unknown theme: ` + themes},
		{"flag over the file", map[string]string{"~/agent/config.json": `{"theme": "neon"}`}, nil, []string{"--theme", "neo"},
			`--theme "neo": unknown theme: ` + themes},
		// A number out of range names its flag, as the file's does its key.
		{"negative flag", nil, nil, []string{"--max-tokens", "-5"}, `--max-tokens -5: must be positive`},
		{"negative max steps", nil, nil, []string{"--max-steps", "-1"}, `--max-steps -1: must be at least 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := isolate(t)
			cfg := os.Getenv("XDG_CONFIG_HOME")
			for name, body := range tc.files {
				p := filepath.Join(wd, name)
				if rest, ok := strings.CutPrefix(name, "~/"); ok {
					p = filepath.Join(cfg, rest)
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"-p", "hi", "--db", filepath.Join(t.TempDir(), "a.db")}, tc.args...)
			res := runAgent(t, tc.env, args...)
			want := strings.ReplaceAll(tc.want, "~/", cfg+"/")
			if strings.HasPrefix(want, ".agent/") {
				want = filepath.Join(wd, want)
			}
			if res.code != 2 || !strings.Contains(res.stderr, want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
				t.Errorf("exit %d stderr %q, want exit 2 and one line containing %q", res.code, res.stderr, want)
			}
		})
	}
}
