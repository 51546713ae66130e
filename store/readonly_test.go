//go:build unix

package store

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnly covers a directory or file the user cannot write. Root
// ignores permissions, so as root the check runs in a child process as
// nobody, from a copy of the test binary that nobody may execute.
func TestReadOnly(t *testing.T) {
	base, err := os.MkdirTemp("", "store-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { os.Chmod(p, 0o755); return nil })
		os.RemoveAll(base)
	})
	os.Chmod(base, 0o755)
	// A valid database to find in read-only places.
	seed := filepath.Join(base, "seed.db")
	d, err := Open(t.Context(), seed)
	if err != nil {
		t.Fatal(err)
	}
	seeded, err := d.Create(t.Context(), SessionMeta{Workdir: "/w", Provider: "p", Model: "m", Title: "seeded"})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, seeded, conversation()...) // listed: a session with no message is not
	seeded.Close()
	d.Close()
	seedBytes, _ := os.ReadFile(seed)

	mk := func(name string, dirMode os.FileMode, withDB bool, fileMode os.FileMode) string {
		dir := filepath.Join(base, name)
		os.Mkdir(dir, 0o755)
		p := filepath.Join(dir, "agent.db")
		if withDB {
			os.WriteFile(p, seedBytes, 0o666)
			os.Chmod(p, fileMode)
		}
		os.Chmod(dir, dirMode)
		return p
	}
	tests := []struct {
		name string
		path string
		want string
	}{
		{"new database in read-only directory", mk("rodir-new", 0o555, false, 0), "directory " + filepath.Join(base, "rodir-new") + " is not writable"},
		{"database in read-only directory", mk("rodir", 0o555, true, 0o666), "is not writable (SQLite needs it for the -wal file)"},
		{"read-only database file", mk("rofile", 0o755, true, 0o444), "the file is not writable"},
		{"directory under a read-only directory", filepath.Join(filepath.Dir(mk("rodir-parent", 0o555, false, 0)), "sub", "agent.db"), "create database directory"},
	}
	// #14 case 10: sessions in a database the user cannot write can still
	// be listed, and nothing is written next to it.
	for _, name := range []string{"rodir", "rofile"} {
		p := filepath.Join(base, name, "agent.db")
		before, _ := os.ReadFile(p)
		if out := helperAs(t, base, p, "list-ro"); out != "ok 1" {
			t.Errorf("%s: read-only listing: %q", name, out)
		}
		if after, _ := os.ReadFile(p); string(after) != string(before) {
			t.Errorf("%s: the file was changed", name)
		}
		if _, err := os.Stat(p + "-wal"); err == nil {
			t.Errorf("%s: a -wal file was created", name)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadFile(tt.path)
			out := openAs(t, base, tt.path)
			if !strings.HasPrefix(out, "error ") || !strings.Contains(out, tt.want) {
				t.Fatalf("got %q; want an error containing %q", out, tt.want)
			}
			if after, _ := os.ReadFile(tt.path); string(after) != string(before) {
				t.Fatal("the file was changed")
			}
		})
	}
}

// openAs opens path in a process that permissions apply to and returns
// what it printed.
func openAs(t *testing.T, base, path string) string {
	t.Helper()
	return helperAs(t, base, path, "open")
}

// helperAs runs helper mode on path in a process permissions apply to.
func helperAs(t *testing.T, base, path, mode string) string {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	if os.Geteuid() == 0 {
		cp := filepath.Join(base, "store.test")
		if _, err := os.Stat(cp); err != nil {
			src, _ := os.Open(exe)
			dst, _ := os.OpenFile(cp, os.O_CREATE|os.O_WRONLY, 0o755)
			io.Copy(dst, src)
			src.Close()
			dst.Close()
		}
		cmd = exec.Command(cp, "-test.run=^$")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd.Env = append(os.Environ(), "STORE_HELPER="+mode, "STORE_DB="+path, "HOME="+base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}
