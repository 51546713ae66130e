package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/models"
)

func TestModelsSectionAndEffort(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	body := `{"effort": "high", "max_tokens": 20000,
	  "models": {"my-deployment": {"like": "gpt-5.4"}, "proxy-*": {"defer_loading": false}},
	  "native_search_models": {"proxy-*": true}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Defaults()
	if err := c.Load(path, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Effort != "high" || c.MaxTokens != 20000 {
		t.Errorf("effort %q max tokens %d", c.Effort, c.MaxTokens)
	}
	tab, err := c.ModelTable()
	if err != nil {
		t.Fatal(err)
	}
	if caps := tab.Lookup("azure", "my-deployment"); !caps.NativeSearch || !caps.EncryptedReasoning {
		t.Errorf("my-deployment: %+v", caps)
	}
	if caps := tab.Lookup("anthropic", "proxy-claude"); !caps.NativeSearch || caps.DeferLoading {
		t.Errorf("proxy-claude: %+v", caps)
	}

	bad := Defaults()
	bad.Effort = "extreme"
	if err := bad.Validate(); err == nil {
		t.Error("effort extreme accepted")
	}
	bad = Defaults()
	bad.Models = map[string]models.Override{"x": {SchemaDialect: "yaml"}}
	if err := bad.Validate(); err == nil {
		t.Error("schema dialect yaml accepted")
	}
}
