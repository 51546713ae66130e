package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-dev/agent/providers/anthropic/anthropictest"
)

// The images part under tmux: a file pasted into the input becomes an
// @reference, the prompt sends it to the model as an image block and the
// chat shows its chip; resumed, the chip is in the history and the next
// request carries the image again.
func TestTUIImageInTmux(t *testing.T) {
	wd := isolate(t)
	_, data := writeImage(t, wd, "my dot.png")
	fake := anthropictest.NewServer(t)
	fake.SetScript(anthropictest.NewScript(anthropictest.Turn{Text: "A black dot."}, anthropictest.Turn{Text: "Still a black dot."}))
	db := filepath.Join(t.TempDir(), "a.db")
	env := map[string]string{"ANTHROPIC_API_KEY": anthropictest.DefaultAPIKey, "HOME": os.Getenv("HOME"),
		"XDG_CONFIG_HOME": os.Getenv("XDG_CONFIG_HOME"), "XDG_DATA_HOME": os.Getenv("XDG_DATA_HOME")}
	ts := startTmux(t, env, "--provider", "anthropic", "--base-url", fake.URL, "--db", db, "--theme", "dark")
	ts.waitFor("/help")
	// A paste, as a terminal delivers a dropped file (bracketed).
	if out, err := exec.Command("tmux", "-L", ts.socket, "set-buffer", filepath.Join(wd, "my dot.png")).CombinedOutput(); err != nil {
		t.Fatalf("set-buffer: %v: %s", err, out)
	}
	if out, err := exec.Command("tmux", "-L", ts.socket, "paste-buffer", "-p").CombinedOutput(); err != nil {
		t.Fatalf("paste-buffer: %v: %s", err, out)
	}
	ts.waitFor(`@"` + filepath.Join(wd, "my dot.png") + `"`)
	ts.send("-l", "what is it?")
	ts.send("Enter")
	ts.waitFor("A black dot.", "▣ my dot.png (png, ")
	block := []byte(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}`)
	if reqs := fake.Requests(); len(reqs) != 1 || !bytes.Contains(reqs[0].Body, block) {
		t.Fatalf("the request lacks the image block (%d requests)", len(reqs))
	}
	ts.quit()
	rows, err := runListSessions(t, db)
	if err != nil || len(rows) != 1 {
		t.Fatalf("sessions = %v, %v", rows, err)
	}
	ts2 := startTmux(t, env, "--db", db, "--base-url", fake.URL, "--resume", rows[0])
	ts2.waitFor("resumed", "▣ my dot.png (png, ", "A black dot.")
	ts2.send("-l", "and now?")
	ts2.send("Enter")
	ts2.waitFor("Still a black dot.")
	if reqs := fake.Requests(); len(reqs) != 2 || !bytes.Contains(reqs[1].Body, block) {
		t.Errorf("the resumed request does not carry the image again")
	}
}
