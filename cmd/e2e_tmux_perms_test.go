package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
	"github.com/agent-dev/agent/tools/permission"
)

// Permission modes in a real terminal: shift+tab moves to plan mode (the
// status bar says so), where the destructive send_email is refused and the
// model reads why; back in the default mode, the approval dialog's
// "always" for the whole server, this project, runs it and saves the rule.
func TestPermissionModesInTmux(t *testing.T) {
	wd := isolate(t)
	fake := anthropictest.NewServer(t)
	mail := map[string]any{"to": "a@b.c", "body": "hi"}
	fake.SetScript(anthropictest.NewScript(
		anthropictest.Turn{Call: "tt__send_email", Input: mail},
		anthropictest.Turn{Text: "Plan: send the mail once you leave plan mode."},
		anthropictest.Turn{Call: "tt__send_email", Input: mail},
		anthropictest.Turn{Text: "Mail sent."},
	))
	cfg := writeJSON(t, "config.json", map[string]any{"require_approval": []string{"@destructive"}})
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmux(t, env, "--provider", "anthropic", "--base-url", fake.URL, "--db", filepath.Join(t.TempDir(), "a.db"),
		"--config", cfg, "--mcp-config", permsMCPConfig(t), "--mcp", "tt", "--theme", "dark")
	ts.waitFor("/help")
	ts.send("BTab")
	ts.waitFor("mode accept-reads")
	ts.send("BTab")
	ts.waitFor("mode plan", "permission mode: plan")
	ts.send("Mail them", "Enter")
	ts.waitFor("Plan: send the mail once you leave plan mode.")
	reqs := fake.Requests()
	if len(reqs) != 2 || !bytes.Contains(reqs[0].Body, []byte(permission.PlanNote)) || !bytes.Contains(reqs[1].Body, []byte("the session is in plan mode")) {
		t.Fatalf("the model was not told of plan mode (%d requests)", len(reqs))
	}
	ts.send("BTab")
	ts.waitFor("permission mode: default")
	if strings.Contains(ts.capture(), "mode plan") {
		t.Errorf("the status bar still shows plan mode:\n%s", ts.capture())
	}
	ts.send("Now send it", "Enter")
	ts.waitFor("Allow this tool call?", "a always…")
	ts.send("a")
	ts.waitFor("Always allow", "server tt:")
	ts.send("5")
	ts.waitFor("Mail sent.")
	b, err := os.ReadFile(filepath.Join(wd, ".agent", "settings.local.json"))
	if err != nil || !bytes.Contains(b, []byte(`"server:tt"`)) {
		t.Errorf("settings.local.json = %s, %v", b, err)
	}
	ts.quit()
}
