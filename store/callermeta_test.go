package store

import (
	"slices"
	"testing"
)

// Create and UpdateMeta store the settings sanitised, and never write the
// sanitised values back into the caller's: a session's server definitions
// share their args with the running MCP servers' configuration, and a
// credential among them came back "[redacted]" in the live configuration
// (the server then restarted with it), while the race detector saw the
// write beside a server being started with those args.
func TestCreateAndUpdateLeaveTheCallersSettingsAlone(t *testing.T) {
	db, _ := openTest(t)
	token := "ghp_" + "0123456789abcdefghijABCDEFGHIJ"
	args := []string{"--token", token}
	tools := []string{"keep"}
	meta := SessionMeta{Workdir: "/w", Provider: "anthropic", Model: "m",
		Settings: Settings{DeferTools: tools, Servers: []MCPServerDef{{Name: "gh", Type: "stdio", Command: "gh-mcp", Args: args}}}}
	s, err := db.Create(t.Context(), meta)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !slices.Equal(args, []string{"--token", token}) {
		t.Errorf("Create rewrote the caller's args: %q", args)
	}
	if got := s.Meta().Settings.Servers[0].Args[1]; got != Redacted {
		t.Errorf("stored arg %q, want it redacted", got)
	}
	if err := s.UpdateMeta(t.Context(), meta); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(args, []string{"--token", token}) {
		t.Errorf("UpdateMeta rewrote the caller's args: %q", args)
	}
}
