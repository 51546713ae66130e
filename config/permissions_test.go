package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// permissions takes the three lists and nothing else: a misspelt list or
// Claude Code's defaultMode is an error naming the file and what to write.
func TestPermissionsKey(t *testing.T) {
	for _, tc := range []struct {
		body string
		want Permissions
		err  string
	}{
		{`{"permissions": {"allow": ["server:gh"], "ask": ["@destructive"], "deny": ["rm"]}}`, Permissions{Allow: []string{"server:gh"}, Ask: []string{"@destructive"}, Deny: []string{"rm"}}, ""},
		{`{"permissions": {}}`, Permissions{}, ""},
		{`{"permissions": {"defaultMode": "plan"}}`, Permissions{}, "set the key permission_mode"},
		{`{"permissions": {"alow": ["x"]}}`, Permissions{}, `unknown key "alow"`},
		{`{"permissions": {"deny": "rm"}}`, Permissions{}, "deny must be a list of tool patterns"},
		{`{"permissions": ["rm"]}`, Permissions{}, "must be an object"},
		// Claude Code's mode names are not this agent's: said with the file.
		{`{"permission_mode": "acceptEdits"}`, Permissions{}, `"permission_mode": unknown permission mode "acceptEdits": use default, accept-reads, plan or bypass`},
	} {
		path := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(path, []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := Read(path, true)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path)):
			t.Errorf("%s: error %v, want one with %q and the file", tc.body, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.body, err)
		case err == nil && !reflect.DeepEqual(f.Permissions, tc.want):
			t.Errorf("%s: %+v", tc.body, f.Permissions)
		}
	}
	// The mode's closed set is checked with the others.
	c := Defaults()
	c.PermissionMode = "acceptEdits"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "default, accept-reads, plan or bypass") {
		t.Errorf("Validate = %v", err)
	}
}
