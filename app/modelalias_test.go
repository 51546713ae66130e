package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers/registry"
)

// --model and the config's model take Claude Code's aliases as a
// profile's model does: the provider's id, or the user's pin; a provider
// with no Claude is a usage error naming the flag and what to write; behind
// --base-url an alias goes as it is (a proxy may serve it).
func TestModelFlagAliases(t *testing.T) {
	for _, c := range []struct {
		name, provider, model, baseURL string
		env                            map[string]string
		want, err                      string
	}{
		{"anthropic", "anthropic", "sonnet", "", nil, "claude-sonnet-4-5", ""},
		{"case", "anthropic", "Opus", "", nil, "claude-opus-4-5", ""},
		{"bedrock", "bedrock", "haiku", "", nil, "us.anthropic.claude-haiku-4-5-20251001-v1:0", ""},
		{"pinned", "anthropic", "sonnet", "", map[string]string{"ANTHROPIC_DEFAULT_SONNET_MODEL": "claude-sonnet-4-0"}, "claude-sonnet-4-0", ""},
		{"id", "anthropic", "claude-opus-4-1", "", nil, "claude-opus-4-1", ""},
		{"no claude", "openai", "sonnet", "", nil, "", "--model sonnet: sonnet is a Claude alias and provider openai serves no Claude model by that name: name a model id it serves (gpt-5.4), set ANTHROPIC_DEFAULT_SONNET_MODEL, or use provider anthropic"},
		{"proxy", "openai-chat", "sonnet", "http://127.0.0.1:1/v1", nil, "sonnet", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			f := Flags{Workdir: t.TempDir(), Changed: map[string]bool{"model": true, "provider": true}}
			f.Provider, f.Model, f.BaseURL = c.provider, c.model, c.baseURL
			s, err := Load(f, func(k string) string { return c.env[k] })
			if c.err != "" {
				var ue *UsageError
				if err == nil || err.Error() != c.err || !errors.As(err, &ue) {
					t.Fatalf("error %v, want usage error %q", err, c.err)
				}
				return
			}
			if err != nil || s.Model != c.want {
				t.Errorf("model %q (err %v), want %q", s.Model, err, c.want)
			}
		})
	}
}

// /model sonnet switches to the id the alias stands for on the session's
// provider, as --model does.
func TestSlashModelAlias(t *testing.T) {
	f := newFixture(t, false)
	a := f.open(t, nil)
	if err := a.SetModel("haiku"); err != nil {
		t.Fatal(err)
	}
	if _, m := a.Session().Target(); m != "claude-haiku-4-5" {
		t.Errorf("/model haiku: model %q, want claude-haiku-4-5", m)
	}
	if err := a.SetModel("anthropic:Sonnet"); err != nil {
		t.Fatal(err)
	}
	if _, m := a.Session().Target(); m != "claude-sonnet-4-5" {
		t.Errorf("/model anthropic:Sonnet: model %q, want claude-sonnet-4-5", m)
	}
}

// A subagent's model: the profile's own, else subagent_model
// (AGENT_SUBAGENT_MODEL, or Claude Code's CLAUDE_CODE_SUBAGENT_MODEL),
// else the parent's (it ran on the config's default whatever the parent's
// --model said).
func TestSubagentModelPrecedence(t *testing.T) {
	for _, c := range []struct {
		name, front string
		env         map[string]string
		want        string
	}{
		{"parent's", "", nil, "claude-opus-4-5"},
		{"setting", "", map[string]string{"AGENT_SUBAGENT_MODEL": "haiku"}, "claude-haiku-4-5"},
		{"claude code's variable", "", map[string]string{"CLAUDE_CODE_SUBAGENT_MODEL": "claude-sonnet-4-5"}, "claude-sonnet-4-5"},
		{"both variables", "", map[string]string{"AGENT_SUBAGENT_MODEL": "haiku", "CLAUDE_CODE_SUBAGENT_MODEL": "sonnet"}, "claude-haiku-4-5"},
		{"profile's", "model: sonnet\n", map[string]string{"AGENT_SUBAGENT_MODEL": "haiku"}, "claude-sonnet-4-5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, false)
			for k, v := range c.env {
				f.env[k] = v
			}
			writeFile(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "agent", "agents", "helper.md"), "---\ndescription: Helps\nsubagent: true\n"+c.front+"---\nYou are the helper.\n")
			a := f.open(t, func(fl *Flags) {
				fl.Model = "opus"
				fl.Changed = map[string]bool{"model": true}
			})
			fin, childModel := runHelper(t, f, a)
			if fin == nil || fin.IsError || childModel != c.want {
				t.Errorf("the child's request named model %q (%+v), want %q", childModel, fin, c.want)
			}
		})
	}
}

// /model PROVIDER:NAME with no key for that provider says what a running
// agent needs (quit, export, start again), not the command line's way
// out ("pick another --provider, or try agent --demo"); it is still a
// MissingKeyError.
func TestSlashModelMissingKeySaysRestart(t *testing.T) {
	f := newFixture(t, false)
	a := f.open(t, nil)
	err := a.SetModel("openai:gpt-5.4")
	var mk *registry.MissingKeyError
	want := "switch to openai: OPENAI_API_KEY is not set in this agent's environment: quit, export it, and start agent again"
	if err == nil || err.Error() != want || !errors.As(err, &mk) {
		t.Fatalf("error %v, want %q", err, want)
	}
}
