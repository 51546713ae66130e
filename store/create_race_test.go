//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// #14 case 5: several first starts creating one new database at once all
// succeed, in one process and across processes, and none sees a half-made
// file ("a SQLite database of another application").
func TestConcurrentFirstOpensAllSucceed(t *testing.T) {
	for round := 0; round < 5; round++ {
		path := filepath.Join(t.TempDir(), "sub", "agent.db")
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		start := make(chan struct{})
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				d, err := Open(context.Background(), path)
				if err != nil {
					errs <- err
					return
				}
				_, err = d.Create(context.Background(), SessionMeta{Workdir: "/w", Provider: "p", Model: "m"})
				if err != nil {
					errs <- err
				}
				d.Close()
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
		leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".agent.db.new-*"))
		if len(leftovers) > 0 {
			t.Errorf("temporary files left: %v", leftovers)
		}
	}
}

func TestConcurrentFirstOpensAcrossProcesses(t *testing.T) {
	for round := 0; round < 3; round++ {
		path := filepath.Join(t.TempDir(), "agent.db")
		var hs []*helper
		for i := 0; i < 6; i++ {
			hs = append(hs, startHelper(t, "open-on-go", "STORE_DB="+path))
		}
		for _, h := range hs {
			_, _ = h.stdin.Write([]byte("go\n"))
		}
		for i, h := range hs {
			if !h.lines.Scan() {
				t.Fatalf("round %d helper %d printed nothing", round, i)
			}
			if l := h.lines.Text(); l != "ok" {
				t.Errorf("round %d helper %d: %s", round, i, l)
			}
			if strings.Contains(h.lines.Text(), "another application") {
				t.Errorf("a half-made database was seen")
			}
		}
	}
}

// A first start whose directory lock (lockDir) another holds and does not
// let go, as a process stopped while it held it would, still makes its
// database: it waits lockWait, not for ever.
func TestFirstOpenBesideAHeldDirectoryLock(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("no flock here: %v", err)
	}
	d, err := Open(t.Context(), filepath.Join(dir, "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
}
