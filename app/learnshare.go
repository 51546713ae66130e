package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agent-dev/agent/store"
)

// LearnedPair is one line of `agent tools learn export`: a request the
// user made and the tool it led to, when. Credentials in the request were
// redacted when it was recorded, and are again when it is imported.
type LearnedPair struct {
	Query  string    `json:"query"`
	Tool   string    `json:"tool"`
	Server string    `json:"server,omitempty"`
	At     time.Time `json:"at"`
}

// ShareLearned runs `agent tools learn export|import FILE` and returns the
// line to print.
func ShareLearned(ctx context.Context, s Settings, verb, path string) (string, error) {
	if verb == "export" {
		n, err := ExportLearned(ctx, s, path)
		return fmt.Sprintf("exported %d learned pairs to %s", n, path), err
	}
	read, added, err := ImportLearned(ctx, s, path)
	return fmt.Sprintf("imported %d new learned pairs of %d in %s", added, read, path), err
}

// LearnFileError is agent tools learn export|import FILE when FILE cannot
// be created or read: said in the command's terms (which file, what to
// do), not as the system call's "open X: no such file or directory".
type LearnFileError struct {
	Op   string // export or import
	Path string
	Err  error
}

func (e *LearnFileError) Error() string {
	dir := filepath.Dir(e.Path)
	switch {
	case errors.Is(e.Err, syscall.EISDIR):
		return fmt.Sprintf("%s: %s is a directory: give a file's path (agent tools learn %s FILE)", e.Op, e.Path, e.Op)
	case e.Op == "import" && errors.Is(e.Err, fs.ErrNotExist):
		return fmt.Sprintf("import: there is no file %s: give the path of a file agent tools learn export wrote", e.Path)
	case errors.Is(e.Err, fs.ErrNotExist), errors.Is(e.Err, syscall.ENOTDIR):
		return fmt.Sprintf("export: cannot create %s: the directory %s does not exist; create it or give another path", e.Path, dir)
	case errors.Is(e.Err, fs.ErrPermission) && e.Op == "import":
		return fmt.Sprintf("import: you may not read %s: give a file you can read", e.Path)
	case errors.Is(e.Err, fs.ErrPermission):
		return fmt.Sprintf("export: you may not write %s: give a path in a directory you can write", e.Path)
	}
	verb := map[string]string{"export": "create", "import": "read"}[e.Op]
	reason := e.Err
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		reason = pe.Err // the path is said once, in the command's words
	}
	return fmt.Sprintf("%s: cannot %s %s: %v", e.Op, verb, e.Path, reason)
}

func (e *LearnFileError) Unwrap() error { return e.Err }

// ExportLearned writes what tool search learned (this run's scope) to path
// as JSONL, oldest first, and returns how many pairs it wrote.
func ExportLearned(ctx context.Context, s Settings, path string) (int, error) {
	db, err := openDB(ctx, s.DBPath)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	uses, err := db.LearnedUses(ctx, s.learnScope(), 0)
	if err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, &UsageError{&LearnFileError{Op: "export", Path: path, Err: err}}
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, u := range uses {
		if err := enc.Encode(LearnedPair{u.Query, u.Tool, u.Server, u.At.UTC()}); err != nil {
			f.Close()
			return 0, fmt.Errorf("export learned pairs to %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, fmt.Errorf("export learned pairs to %s: %w", path, err)
	}
	return len(uses), f.Close()
}

// ImportLearned adds the pairs of a file ExportLearned wrote to what tool
// search learned (this run's scope). A pair already there is skipped:
// importing a file twice changes nothing. It returns how many pairs the
// file had and how many were new. A line that is not a pair is an error
// naming it, and nothing is imported.
func ImportLearned(ctx context.Context, s Settings, path string) (read, added int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, &UsageError{&LearnFileError{Op: "import", Path: path, Err: err}}
	}
	defer f.Close()
	uses, err := readPairs(f, path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// Opened but not readable as a file: a directory.
		return 0, 0, &UsageError{&LearnFileError{Op: "import", Path: path, Err: err}}
	}
	if err != nil {
		return 0, 0, usage(err)
	}
	db, err := openDB(ctx, s.DBPath)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	added, err = db.ImportToolUses(ctx, s.learnScope(), uses)
	return len(uses), added, err
}

// readPairs reads JSONL LearnedPairs.
func readPairs(r io.Reader, name string) ([]store.ToolUse, error) {
	var out []store.ToolUse
	err := eachLine(r, name, func(line int, b []byte) error {
		var p LearnedPair
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("%s:%d: not a learned pair: %v (want {\"query\", \"tool\", \"server\", \"at\"} a line, as agent tools learn export writes)", name, line, err)
		}
		if strings.TrimSpace(p.Query) == "" || strings.TrimSpace(p.Tool) == "" || p.At.IsZero() {
			return fmt.Errorf("%s:%d: a learned pair needs a query, a tool and a time (at)", name, line)
		}
		out = append(out, store.ToolUse{At: p.At, Query: p.Query, Tool: p.Tool, Server: p.Server})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
