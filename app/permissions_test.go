package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// A trusted project tightens the permissions only: its deny and ask add
// to the user's, its allow and a looser mode are refused with a warning,
// a stricter mode is taken with one.
func TestProjectPermissionsOnlyTighten(t *testing.T) {
	for _, tc := range []struct {
		name, userMode, projMode, want string
		refused                        bool
	}{
		{"looser mode refused", "default", "bypass", "default", true},
		{"accept-reads over default refused", "default", "accept-reads", "default", true},
		{"plan taken", "accept-reads", "plan", "plan", false},
		{"default over bypass taken", "bypass", "default", "default", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
			t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
			user, _ := json.Marshal(map[string]any{"permission_mode": tc.userMode,
				"permissions": map[string]any{"allow": []string{"mine__*"}, "deny": []string{"rm"}}})
			writeFile(t, filepath.Join(home, "config", "agent", "config.json"), string(user))
			dir := t.TempDir()
			proj, _ := json.Marshal(map[string]any{"permission_mode": tc.projMode,
				"permissions": map[string]any{"allow": []string{"server:*"}, "ask": []string{"@destructive"}, "deny": []string{"dd"}}})
			writeFile(t, filepath.Join(dir, ".agent", "config.json"), string(proj))
			s, err := Load(Flags{Workdir: dir, Trust: true}, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			want := config.Permissions{Allow: []string{"mine__*"}, Ask: []string{"@destructive"}, Deny: []string{"rm", "dd"}}
			if !reflect.DeepEqual(s.Permissions, want) {
				t.Errorf("permissions = %+v, want %+v", s.Permissions, want)
			}
			if !warned(s, "permissions.allow in") {
				t.Errorf("the project's allow was not refused aloud: %q", s.Warnings)
			}
			if s.PermissionMode != tc.want || warned(s, "permission_mode "+tc.projMode+" in") != tc.refused {
				t.Errorf("mode = %s, warnings %q", s.PermissionMode, s.Warnings)
			}
		})
	}
}

// settings.local.json: the allow rules agent wrote are used on the next
// run; the same file edited by someone else, or brought by a clone, loses
// its allow rules (its deny rules stay); a trusted directory's is used.
func TestLocalSettingsTrust(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	dir := t.TempDir()
	load := func() Settings {
		t.Helper()
		s, err := Load(Flags{Workdir: dir}, os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := saveLocalAllow(dir, "server:gh"); err != nil {
		t.Fatal(err)
	}
	if err := saveLocalAllow(dir, "server:gh"); err != nil { // twice: once in the file
		t.Fatal(err)
	}
	if s := load(); !reflect.DeepEqual(s.local.Allow, []string{"server:gh"}) || len(s.Warnings) != 0 {
		t.Fatalf("agent's own file: local = %+v, warnings %q", s.local, s.Warnings)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".agent", ".gitignore")); strings.Count(string(b), "\nsettings.local.json\n") != 1 {
		t.Errorf(".gitignore = %q", b)
	}
	local := LocalSettingsPath(dir)
	writeFile(t, local, `{"permissions": {"allow": ["server:gh", "*"], "deny": ["rm"]}}`)
	s := load()
	if len(s.local.Allow) != 0 || !reflect.DeepEqual(s.local.Deny, []string{"rm"}) || !warned(s, "the allow rules of "+local+" are not used") {
		t.Fatalf("edited file: local = %+v, warnings %q", s.local, s.Warnings)
	}
	// A trusted directory's file is used whole.
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {}}`)
	if _, err := Trust(dir); err != nil {
		t.Fatal(err)
	}
	if s := load(); !reflect.DeepEqual(s.local.Allow, []string{"server:gh", "*"}) {
		t.Fatalf("trusted: local = %+v, warnings %q", s.local, s.Warnings)
	}
	writeFile(t, local, `{"permissions": {"alow": []}}`)
	if s := load(); !warned(s, local+" is not used") {
		t.Errorf("a misspelt key: warnings %q", s.Warnings)
	}
}

// "Always" for the user goes into the user config file, its other keys
// kept; the rule comes back on the next Load.
func TestSaveUserAllowKeepsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	writeFile(t, path, `{"model": "claude-sonnet-4-5", "permissions": {"deny": ["rm"]}, "mcpServers": {"gh": {"command": "gh-mcp"}}}`)
	for _, p := range []string{"server:gh", "gh__list", "server:gh"} {
		if err := saveUserAllow(path, p); err != nil {
			t.Fatal(err)
		}
	}
	f, err := config.Read(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if f.Model != "claude-sonnet-4-5" || len(f.MCPServers) == 0 || !reflect.DeepEqual(f.Permissions, config.Permissions{Allow: []string{"server:gh", "gh__list"}, Deny: []string{"rm"}}) {
		t.Errorf("config after saving = %+v", f)
	}
	if err := saveUserAllow(filepath.Join(t.TempDir(), "new", "config.json"), "x"); err != nil {
		t.Errorf("a missing user config: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "config.json")
	writeFile(t, bad, `{"model": `)
	if err := saveUserAllow(bad, "x"); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a broken config: %v", err)
	}
}

// An always answer applies at once and outlives a new policy (a profile
// switch); the mode cycles without bypass unless the run started in it.
func TestAlwaysAndModes(t *testing.T) {
	set := tools.NewSet()
	rm := tools.Tool{Name: "gh__rm", Orig: "rm", Server: "gh", Schema: json.RawMessage(`{"type":"object"}`)}
	if err := set.Add(nil, rm); err != nil {
		t.Fatal(err)
	}
	a := FromSession(agent.New(agent.Config{Tools: set}))
	p, err := newPolicy(Settings{Config: config.Config{RequireApproval: []string{"server:gh"}}})
	if err != nil {
		t.Fatal(err)
	}
	a.setPolicy(p)
	ask := func() permission.Behavior {
		return a.permit(t.Context(), permission.Call{Tool: rm}).Behavior
	}
	if ask() != permission.Ask {
		t.Fatal("require_approval does not ask")
	}
	if err := a.AllowAlways("c1", "gh__rm", true, permission.ScopeSession); err != nil {
		t.Fatal(err)
	}
	if ask() != permission.Allow {
		t.Fatal("always for the server did not apply")
	}
	a.setPolicy(p)
	if ask() != permission.Allow {
		t.Fatal("a new policy dropped the always answer")
	}
	if err := a.AllowAlways("c2", "nosuch", false, permission.ScopeSession); err == nil {
		t.Error("an unknown tool was saved")
	}
	var cycle []permission.Mode
	for range 3 {
		cycle = append(cycle, a.CyclePermissionMode())
	}
	if !reflect.DeepEqual(cycle, []permission.Mode{permission.ModeAcceptReads, permission.ModePlan, permission.ModeDefault}) {
		t.Errorf("cycle = %v", cycle)
	}
	if err := a.SetPermissionMode(permission.ModeBypass); err == nil {
		t.Error("bypass reached from a run not started in it")
	}
	if err := a.SetPermissionMode(permission.ModePlan); err != nil || ask() != permission.Deny {
		t.Errorf("plan mode: %v, %s", err, ask())
	}
	a.modeNote()
	if a.session.TurnContext().ModeNote != permission.PlanNote {
		t.Error("plan mode's note is not in the system context")
	}
}
