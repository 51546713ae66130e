package app

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-dev/agent/models"
)

// #27: /model with a typo is refused with the nearest known ids; ids a
// provider without a catalog serves, and ids the config declares, pass.
func TestKnownModel(t *testing.T) {
	t.Parallel()
	table, err := (*models.Table)(nil).With(map[string]models.Override{"claude-next-preview": {Like: "claude-sonnet-4-5"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		provider, model string
		want            string // "" passes; else a part of the error
	}{
		{"anthropic", "claude-sonnet-4-5", ""},
		{"anthropic", "claude-sonnet-4-5-20250929", ""},
		{"anthropic", "claude-next-preview", ""},
		{"anthropic", "claude-sonet-4-5", `did you mean claude-sonnet-4`},
		{"openai", "gtp-4o", "did you mean gpt-4o"},
		{"openai", "totally-unrelated", ""},
		{"anthropic", "claude-sonnet-5", ""},
		{"gemini", "gemini-3-pro-preview", ""},
		{"openai", "gpt-5.2", ""},
		{"ollama", "qwen3:8b", ""},
		{"bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", ""},
		{"azure", "my-deployment", ""},
		{"openrouter", "some/new-model", ""},
	}
	for _, c := range cases {
		err := knownModel(c.provider, c.model, table)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s on %s refused: %v", c.model, c.provider, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s on %s: error %v, want it to contain %q", c.model, c.provider, err, c.want)
		}
	}
}

// An id the tables know nothing of, on a provider whose models they list,
// is said (sent all the same); a known, priced or declared id, a newer
// version of a known family, and any id on a provider without a catalog
// are not.
func TestUnknownModel(t *testing.T) {
	t.Parallel()
	table, err := (*models.Table)(nil).With(map[string]models.Override{"claude-next-preview": {Like: "claude-sonnet-4-5"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		provider, model string
		warn            bool
	}{
		{"anthropic", "claude-nonexistent-9", true},
		{"openai", "totally-unrelated", true},
		{"anthropic", "claude-sonnet-4-5", false},
		{"anthropic", "claude-sonnet-4-5-20250929", false},
		{"anthropic", "claude-sonnet-5", false},
		{"anthropic", "claude-next-preview", false},
		{"openai", "gpt-5.4", false},
		{"ollama", "qwen3:8b", false},
		{"azure", "my-deployment", false},
		{"openrouter", "some/new-model", false},
		{"bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", false},
	} {
		w := unknownModel(c.provider, c.model, table)
		if (w != "") != c.warn || c.warn && (!strings.Contains(w, c.model) || !strings.Contains(w, "agent models")) {
			t.Errorf("%s on %s: warning %q, want one: %v", c.model, c.provider, w, c.warn)
		}
		// One row of a 100-column chat, as the TUI marks it ("! "): it
		// was ~200 characters, three rows.
		if n := utf8.RuneCountInString("! " + w); n > 100 {
			t.Errorf("%s on %s: warning of %d columns, want at most 100: %q", c.model, c.provider, n, w)
		}
	}
}

// --model gets /model's checks: a typo of a known id is refused before
// any request, an id the tables do not know is said as a warning and used,
// and /model says the same of it after switching. The provider's address
// comes from ANTHROPIC_BASE_URL: behind --base-url any id may be served and
// neither checks.
func TestStartModelAndSlashModelAgree(t *testing.T) {
	const unknown = "unknown model claude-nonexistent-9 for anthropic, sent as is: agent models lists the known ones"
	f := newFixture(t, false)
	f.env["ANTHROPIC_BASE_URL"], f.flags.BaseURL = f.fake.URL, ""

	fl := f.flags
	fl.Model, fl.Changed = "claude-sonet-4-5", map[string]bool{"model": true}
	s, err := Load(fl, f.getenv)
	if err != nil {
		t.Fatal(err)
	}
	var ue *UsageError
	if a, err := Open(t.Context(), s, Options{Getenv: f.getenv, Version: "test"}); err == nil {
		a.Close()
		t.Error("--model claude-sonet-4-5 was accepted")
	} else if !errors.As(err, &ue) || !strings.Contains(err.Error(), "did you mean claude-sonnet-4") {
		t.Errorf("--model claude-sonet-4-5: %v, want the usage error /model gives", err)
	}

	a := f.open(t, func(fl *Flags) { fl.Model, fl.Changed = "claude-nonexistent-9", map[string]bool{"model": true} })
	if w := strings.Join(a.Warnings(), "\n"); strings.Count(w, unknown) != 1 {
		t.Errorf("--model claude-nonexistent-9: warnings %q, want %q once", w, unknown)
	}
	if _, m := a.Session().Target(); m != "claude-nonexistent-9" {
		t.Errorf("model %q, want the one asked for", m)
	}
	if err := a.SetModel("claude-sonet-4-5"); err == nil || !strings.Contains(err.Error(), "did you mean claude-sonnet-4") {
		t.Errorf("/model claude-sonet-4-5: %v", err)
	}
	for _, c := range []struct{ model, warn string }{
		{"claude-sonnet-4-5", ""},
		{"claude-nonexistent-9", unknown},
		{"haiku", ""},
	} {
		if err := a.SetModel(c.model); err != nil {
			t.Fatalf("/model %s: %v", c.model, err)
		}
		if w := a.ModelWarning(); c.warn == "" && w != "" || !strings.Contains(w, c.warn) {
			t.Errorf("/model %s: warning %q, want %q", c.model, w, c.warn)
		}
	}

	known := f.open(t, func(fl *Flags) { fl.Model, fl.Changed = "claude-sonnet-4-5", map[string]bool{"model": true} })
	proxied := f.open(t, func(fl *Flags) {
		fl.Model, fl.Changed, fl.BaseURL = "claude-nonexistent-9", map[string]bool{"model": true}, f.fake.URL
	})
	for _, x := range []*App{known, proxied} {
		if w := strings.Join(x.Warnings(), "\n"); strings.Contains(w, "unknown model") {
			t.Errorf("warned: %s", w)
		}
	}
	if w := proxied.ModelWarning(); w != "" {
		t.Errorf("behind --base-url: %s", w)
	}
}
