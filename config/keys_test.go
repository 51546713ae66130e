package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/models"
)

var update = flag.Bool("update", false, "rewrite docs/config.md from the declaration")

// The key table in docs/config.md is generated from the declaration:
// a key added, renamed or documented anew shows here first.
func TestDocIsGenerated(t *testing.T) {
	const path = "../docs/config.md"
	want := "# Config keys\n\nGenerated from the declaration in `config/config.go` (`go test ./config -update`).\n" +
		"Every key goes in `~/.config/agent/config.json` or a project's `.agent/config.json`; see the\n" +
		"README's Configuration section for the order the layers apply in.\n\n" + Doc()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./config -update)", err)
	}
	if string(got) != want {
		t.Errorf("%s is stale: run go test ./config -update", path)
	}
}

func TestDefaultsFromTags(t *testing.T) {
	d := Defaults()
	if d.Provider != "anthropic" || d.Search != "native" || d.SearchAlgo != "bm25" || d.Theme != "auto" || d.MaxSteps != 25 ||
		d.DeferThreshold != 0.1 || time.Duration(d.FirstByteTimeout) != time.Minute || time.Duration(d.StreamIdleTimeout) != 5*time.Minute ||
		time.Duration(d.MaxRetryWait) != time.Minute {
		t.Errorf("defaults %+v", d)
	}
	// Defaults hands out a copy: changing it changes no later run.
	d.Provider = "x"
	if Defaults().Provider != "anthropic" {
		t.Error("Defaults shares its value")
	}
}

func TestMergeFollowsDeclaration(t *testing.T) {
	base := Defaults()
	base.Models = map[string]models.Override{"a": {Like: "gpt-5"}}
	base.RequireApproval = []string{"x"}
	Merge(&base, Config{Model: "m", MaxTokens: 7, Models: map[string]models.Override{"b": {Like: "gpt-5"}}, RequireApproval: []string{}})
	if base.Model != "m" || base.MaxTokens != 7 || base.Provider != "anthropic" {
		t.Errorf("merge %+v", base)
	}
	if len(base.Models) != 2 {
		t.Errorf("models is merged key by key (merge:\"union\"), got %v", base.Models)
	}
	if len(base.RequireApproval) != 1 {
		t.Errorf("an empty list is not a value: %v", base.RequireApproval)
	}
}

// A switch's variable reads 1/0 and true/false; anything else is an error
// naming the variable.
func TestEnvSwitch(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want *bool
		err  string
	}{
		{"", nil, ""},
		{"1", ptr(true), ""},
		{"true", ptr(true), ""},
		{"0", ptr(false), ""},
		{"false", ptr(false), ""},
		{"yes", nil, `AGENT_ENABLE_TELEMETRY="yes": write 1 or 0 (true or false)`},
	} {
		var c Config
		err := c.FromEnv(func(k string) string {
			if k == "AGENT_ENABLE_TELEMETRY" {
				return tc.val
			}
			return ""
		})
		if got := fmt.Sprint(err); tc.err != "" && got != tc.err || tc.err == "" && err != nil {
			t.Errorf("%q: error %v, want %q", tc.val, err, tc.err)
		}
		if (c.Telemetry == nil) != (tc.want == nil) || c.Telemetry != nil && *c.Telemetry != *tc.want {
			t.Errorf("%q: telemetry %v, want %v", tc.val, c.Telemetry, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestEnvAndEnums(t *testing.T) {
	c := Defaults()
	env := map[string]string{"AGENT_MODEL": "m"}
	if err := c.FromEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if c.Model != "m" {
		t.Errorf("AGENT_MODEL not applied: %q", c.Model)
	}
	c.Search = "sometimes" // from a file, say: Validate names the key
	tests := []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) {}, `unknown search mode "sometimes": use native, client or off`},
		{func(c *Config) { c.Search, c.SearchAlgo = "off", "fuzzy" }, `unknown search algorithm "fuzzy": use bm25 or regex`},
		{func(c *Config) { c.Search, c.Effort = "off", "huge" }, `unknown effort "huge": use none, minimal, low, medium, high or max`},
		{func(c *Config) { c.Search = "off" }, ""},
	}
	for _, tt := range tests {
		x := c
		tt.set(&x)
		err := x.Validate()
		if (err == nil) != (tt.want == "") || err != nil && err.Error() != tt.want {
			t.Errorf("Validate() = %v, want %q", err, tt.want)
		}
	}
	if err := CheckValue("effort", "high"); err != nil {
		t.Error(err)
	}
}

func TestEveryKeyDocumented(t *testing.T) {
	for _, k := range Keys() {
		if strings.TrimSpace(k.Doc) == "" {
			t.Errorf("key %s has no doc tag", k.Name)
		}
	}
}

// Every key with a closed set that an environment variable sets refuses a
// value outside it in one line naming the variable and the values.
func TestEnvEnumNamesTheVariable(t *testing.T) {
	n := 0
	for _, k := range Keys() {
		if k.Env == "" || len(k.Enum) == 0 {
			continue
		}
		n++
		c := Defaults()
		err := c.FromEnv(func(v string) string {
			if v == k.Env {
				return "bogus"
			}
			return ""
		})
		var ev *EnvValueError
		want := fmt.Sprintf("%s=\"bogus\": unknown %s: use %s", k.Env, k.What, orList(k.Enum))
		if !errors.As(err, &ev) || ev.Var != k.Env || err.Error() != want || strings.Contains(want, "\n") {
			t.Errorf("%s=bogus: %v, want %q", k.Env, err, want)
		}
		c = Defaults()
		if err := c.FromEnv(func(v string) string {
			if v == k.Env {
				return k.Enum[len(k.Enum)-1]
			}
			return ""
		}); err != nil {
			t.Errorf("%s=%s: %v", k.Env, k.Enum[len(k.Enum)-1], err)
		}
	}
	if n < 2 {
		t.Errorf("%d keys with an env variable and a closed set, want AGENT_SEARCH and AGENT_TOKEN_STORE at least", n)
	}
	env := func(v string) string { return map[string]string{"AGENT_PROVIDER": "antropic"}[v] }
	if err := CheckEnv("provider", env, []string{"anthropic", "openai"}); err == nil ||
		err.Error() != `AGENT_PROVIDER="antropic": unknown provider: use anthropic or openai` {
		t.Errorf("CheckEnv: %v", err)
	}
	if err := CheckEnv("provider", env, []string{"antropic"}); err != nil {
		t.Errorf("CheckEnv of an allowed value: %v", err)
	}
}
