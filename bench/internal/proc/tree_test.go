package proc

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestTreeHelper is the child of TestTreeRSSCountsDescendants: it holds
// until its stdin closes.
func TestTreeHelper(t *testing.T) {
	if os.Getenv("STARTBENCH_TREE_HELPER") != "1" {
		t.Skip("the child of TestTreeRSSCountsDescendants")
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// The tree's sum covers the process and its children: with a child
// running, the test process's tree has one more process and more memory
// than the process alone.
func TestTreeRSSCountsDescendants(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self, n := TreeRSS(os.Getpid())
	if self <= 0 || n != 1 {
		t.Fatalf("own tree: %d KB, %d processes, want 1", self, n)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestTreeHelper$")
	cmd.Env = append(os.Environ(), "STARTBENCH_TREE_HELPER=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := SampleTree(os.Getpid())
	p := stop() // samples once at least, while the child holds
	_ = stdin.Close()
	_ = cmd.Wait()
	if p.Procs != 2 || p.KB <= self {
		t.Fatalf("tree with a child: %+v, own %d KB", p, self)
	}
}

// The sampled peak splits into file-backed and anonymous pages, and with
// a path the smaps of that reading is written there.
func TestSamplePeakSplits(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	path := t.TempDir() + "/peak.smaps"
	p := SamplePeak(os.Getpid(), path)()
	if p.RSS <= 0 || p.File <= 0 || p.Anon <= 0 || p.File+p.Anon > p.RSS+1024 {
		t.Fatalf("peak %+v", p)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "Rss:") {
		t.Fatalf("smaps at the peak: %v", err)
	}
}
