package app

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/store"
)

// Workspace trust: the files a cloned repository brings (its project
// files) are not used until the user trusts the directory, because they
// can start commands (.mcp.json) and change what the agent does
// (.agent/config.json, .agent/agents/). Trust is kept per directory with a
// hash of those files: a change to them asks again. Every project-level
// file goes through Project and Trusted; a new kind of project file (hooks,
// commands, instructions) is one more entry in projectPaths.

// projectPaths are the project files and directories, relative to the
// working directory. The instruction files (AGENTS.md or CLAUDE.md, from
// the repository root down: instructions.go) are project files too.
var projectPaths = []string{".mcp.json", filepath.Join(".agent", "config.json"), filepath.Join(".agent", "agents"), filepath.Join(".agent", "commands")}

// Project is what a directory's project files are.
type Project struct {
	Dir   string   // absolute
	Files []string // relative to Dir, sorted
	Hash  string   // sha256 over every file's name and content
}

// Empty reports a directory with no project file: nothing to trust.
func (p Project) Empty() bool { return len(p.Files) == 0 }

// ReadProject finds dir's project files and hashes them.
func ReadProject(dir string) (Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Project{}, fmt.Errorf("read project files of %s: %w", dir, err)
	}
	p := Project{Dir: abs}
	for _, rel := range projectPaths {
		err := filepath.WalkDir(filepath.Join(abs, rel), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
				r, _ := filepath.Rel(abs, path)
				p.Files = append(p.Files, r)
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Project{}, fmt.Errorf("read project files of %s: %w", abs, err)
		}
	}
	for _, f := range projectInstructionFiles(abs) {
		r, _ := filepath.Rel(abs, f)
		p.Files = append(p.Files, r)
	}
	slices.Sort(p.Files)
	h := sha256.New()
	for _, f := range p.Files {
		b, err := os.ReadFile(filepath.Join(abs, f))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Project{}, fmt.Errorf("read project file %s: %w", filepath.Join(abs, f), err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	p.Hash = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

// trustFile is where trust is kept: the user's data directory, beside the
// session database, never in the project.
func trustFile() (string, error) {
	db, err := store.DefaultPath()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(db), "trust.json"), nil
}

// trustList is trust.json: directory → hash of its project files.
type trustList struct {
	Dirs map[string]string `json:"dirs"`
}

func readTrust() (trustList, string, error) {
	path, err := trustFile()
	if err != nil {
		return trustList{}, "", err
	}
	t := trustList{Dirs: map[string]string{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, path, nil
	}
	if err != nil {
		return t, path, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return t, path, fmt.Errorf("read %s: %w (delete it to trust directories again)", path, err)
	}
	if t.Dirs == nil {
		t.Dirs = map[string]string{}
	}
	return t, path, nil
}

func writeTrust(t trustList, path string) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save trust: %w", err)
	}
	if err := writeAtomic(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save trust: %w", err)
	}
	return nil
}

// Trusted reports whether dir's project files may be used: the user
// trusted the directory when its project files were exactly these. A
// directory without project files has nothing to trust and reports false
// with an empty Project.
func Trusted(dir string) (bool, Project, error) {
	p, err := ReadProject(dir)
	if err != nil || p.Empty() {
		return false, p, err
	}
	t, _, err := readTrust()
	if err != nil {
		return false, p, err
	}
	return t.Dirs[p.Dir] == p.Hash, p, nil
}

// trustedBefore reports whether p's directory was trusted with project
// files other than those it has now.
func trustedBefore(p Project) bool {
	t, _, err := readTrust()
	if err != nil {
		return false
	}
	h, ok := t.Dirs[p.Dir]
	return ok && h != p.Hash
}

// Trust trusts dir with its project files as they are now.
func Trust(dir string) (Project, error) {
	p, err := ReadProject(dir)
	if err != nil {
		return p, err
	}
	if p.Empty() {
		return p, Usagef("%s has no project files (%s, AGENTS.md or CLAUDE.md): there is nothing to trust", p.Dir, strings.Join(projectPaths, ", "))
	}
	t, path, err := readTrust()
	if err != nil {
		return p, err
	}
	t.Dirs[p.Dir] = p.Hash
	return p, writeTrust(t, path)
}

// Revoke forgets dir's trust; it reports whether there was any.
func Revoke(dir string) (bool, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	t, path, err := readTrust()
	if err != nil {
		return false, err
	}
	if _, ok := t.Dirs[abs]; !ok {
		return false, nil
	}
	delete(t.Dirs, abs)
	return true, writeTrust(t, path)
}
