package app

import (
	"bytes"
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

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/store"
)

// The project's personal settings, .agent/settings.local.json, hold the
// "always for this project" answers. It is never committed (agent writes
// .agent/.gitignore beside it) and never trusted from a clone: its allow
// rules are used only when agent itself wrote the file as it is (a sha256
// of what it wrote is kept in the user's data directory) or the directory
// is trusted. Its deny and ask rules only tighten, so they always apply.

// localFile is settings.local.json.
type localFile struct {
	Permissions config.Permissions `json:"permissions"`
}

// LocalSettingsPath is the project's personal settings file in workdir.
func LocalSettingsPath(workdir string) string {
	return filepath.Join(workdir, ".agent", "settings.local.json")
}

// writtenFile is where the hashes of the settings.local.json files agent
// wrote are kept: path → sha256 of the content.
func writtenFile() (string, error) {
	db, err := store.DefaultPath()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(db), "local-settings.json"), nil
}

func readWritten() (map[string]string, string, error) {
	path, err := writtenFile()
	if err != nil {
		return nil, "", err
	}
	m := map[string]string{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, path, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		return map[string]string{}, path, fmt.Errorf("read %s: %w", path, err)
	}
	return m, path, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// applyLocal is the settings.local.json layer of Load: its rules go to
// s.local, its allow rules only when agent wrote the file or the
// directory is trusted.
func (s *Settings) applyLocal() {
	path := LocalSettingsPath(s.Workdir)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var f localFile
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(&f)
	}
	if err != nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s is not used: %v; fix or delete it", path, err))
		return
	}
	if len(f.Permissions.Allow) > 0 && !s.Trusted {
		written, _, err := readWritten()
		if abs, _ := filepath.Abs(path); err != nil || written[abs] != sum(b) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("the allow rules of %s are not used: agent did not write that file here (it came with the project?) and the directory is not trusted; review it, then run `agent trust`", path))
			f.Permissions.Allow = nil
		}
	}
	s.local = f.Permissions
}

// saveLocalAllow adds pattern to the allow rules of settings.local.json in
// workdir, writes .agent/.gitignore so the file is not committed, and
// records what it wrote so the next run uses it.
func saveLocalAllow(workdir, pattern string) error {
	path := LocalSettingsPath(workdir)
	var f localFile
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("save to %s: %w; fix or delete it", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("save to %s: %w", path, err)
	}
	if !slices.Contains(f.Permissions.Allow, pattern) {
		f.Permissions.Allow = append(f.Permissions.Allow, pattern)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save to %s: %w", path, err)
	}
	if err := ignoreLocal(filepath.Dir(path)); err != nil {
		return err
	}
	if err := writeAtomic(path, b, 0o600); err != nil {
		return fmt.Errorf("save to %s: %w", path, err)
	}
	written, wpath, err := readWritten()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	written[abs] = sum(b)
	wb, err := json.MarshalIndent(written, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(wpath), 0o700); err != nil {
		return fmt.Errorf("save %s: %w", wpath, err)
	}
	return writeAtomic(wpath, append(wb, '\n'), 0o600)
}

// ignoreLocal makes sure dir/.gitignore names settings.local.json.
func ignoreLocal(dir string) error {
	path := filepath.Join(dir, ".gitignore")
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "settings.local.json" {
			return nil
		}
	}
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	b = append(b, "# agent's personal settings of this project: never commit them\nsettings.local.json\n"...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// saveUserAllow adds pattern to permissions.allow in the user config file
// at path, keeping its other keys.
func saveUserAllow(path, pattern string) error {
	if path == "" {
		return fmt.Errorf("no user config file to save to: set XDG_CONFIG_HOME or HOME, or pass --config FILE")
	}
	doc := map[string]json.RawMessage{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("save to %s: %w; fix it first", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("save to %s: %w", path, err)
	}
	var p config.Permissions
	if raw, ok := doc["permissions"]; ok {
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("save to %s: permissions: %w; fix it first", path, err)
		}
	}
	if slices.Contains(p.Allow, pattern) {
		return nil
	}
	p.Allow = append(p.Allow, pattern)
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	doc["permissions"] = raw
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save to %s: %w", path, err)
	}
	if err := writeAtomic(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save to %s: %w", path, err)
	}
	return nil
}

// writeAtomic replaces path with b through a temporary file beside it, so
// a crash never leaves half a file.
func writeAtomic(path string, b []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
