package starttrace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Off (AGENT_TRACE_START unset), marks are dropped and nothing is written;
// on, each mark is a line of its absolute time, its ms since the first
// mark and its label, in order, ending with the exit.
func TestMarks(t *testing.T) {
	if on.Load() {
		t.Skip(Env + " is set for the test binary")
	}
	// The timeline is the package's state: left as the run below leaves it,
	// the next run (go test -count 2) starts with its marks.
	t.Cleanup(func() {
		on.Store(false)
		mu.Lock()
		marks, path = nil, ""
		mu.Unlock()
	})
	Mark("dropped")
	Markf("dropped", "too")
	if err := Write(); err != nil || len(marks) != 0 {
		t.Fatalf("off: %v, %d marks", err, len(marks))
	}
	path = filepath.Join(t.TempDir(), "trace")
	on.Store(true)
	Mark("init")
	Markf("mcp listed", "github", "x")
	if err := Write(); err != nil {
		t.Fatal(err)
	}
	if On() {
		t.Fatal("still on after Write")
	}
	Mark("after the write")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var labels []string
	for _, l := range lines {
		f := strings.SplitN(l, " ", 3)
		if len(f) != 3 {
			t.Fatalf("line %q", l)
		}
		labels = append(labels, f[2])
	}
	if got := strings.Join(labels, "|"); got != "init|mcp listed github x|exit" {
		t.Fatalf("labels %q", got)
	}
	if !strings.HasPrefix(lines[0], strings.Fields(lines[0])[0]+" 0.000 ") {
		t.Fatalf("the first mark is not at 0 ms: %q", lines[0])
	}
}
