package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers/gemini/geminitest"
)

// TestSharedCatalogsPassSchemaRules: every tool of the shared real-server
// catalogs, declared as this adapter declares it, passes the schema rules
// Gemini enforces (geminitest.SchemaRules).
func TestSharedCatalogsPassSchemaRules(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "catalogs", "ALL.json"))
	if err != nil {
		t.Skip("needs ../shared/catalogs/ALL.json (the shared folder beside the repository)")
	}
	var tools []struct {
		Server      string          `json:"server"`
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(b, &tools); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, tl := range tools {
		p := parameters(tl.InputSchema)
		if p == nil {
			continue
		}
		if msg := geminitest.SchemaRules(p, "tools[0].function_declarations[0].parameters"); msg != "" {
			bad++
			t.Errorf("%s/%s: %s", tl.Server, tl.Name, msg)
		}
	}
	t.Logf("%d tools, %d rejected", len(tools), bad)
}
