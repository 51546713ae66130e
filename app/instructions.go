package app

import (
	"context"
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
	"unicode/utf8"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/store"
)

// Instruction files: AGENTS.md (or CLAUDE.md in a directory without one)
// of the user's agent directory, then of every directory from the
// repository root down to the working directory, go into the system
// prompt, each marked with its path. As Codex and Claude Code read them,
// the deeper file is the more specific one, and it comes last.
//
// They are read once when a session starts or is resumed (Open, New,
// Resume) and never between the requests of a conversation: the system
// prompt is part of the cached prefix, so an edit applies at the next
// session start rather than breaking the prompt cache mid-conversation.
// Being in the system prompt, they are in every request, so a compaction
// (which replaces only messages) never drops them.
//
// A project's files are the repository's: they are read only in a trusted
// directory (they count among its project files, so a change asks for
// trust again); the user's own file is always read.

// instructionNames are looked for in each directory; the first that
// exists is the directory's file.
var instructionNames = []string{"AGENTS.md", "CLAUDE.md"}

// InstructionsCap is the most bytes of instruction files sent, all files
// together: past it the files are cut, with a warning naming them.
const InstructionsCap = 64 << 10

// InstructionFile is one instruction file sent with the system prompt.
type InstructionFile struct {
	Path  string `json:"path"`  // absolute
	Scope string `json:"scope"` // "user" or "project"
	// Bytes is what is sent; Size the file's size (more when the cap cut
	// it, Bytes 0 when nothing of it fit, and more by the blank lines
	// around the text, which are never sent). Cut says the cap cut it.
	Bytes int  `json:"bytes"`
	Size  int  `json:"size"`
	Cut   bool `json:"cut,omitempty"`
	text  string
}

// Instructions are the instruction files of a session, read once.
type Instructions struct {
	Files []InstructionFile
	// Warnings say what was cut or could not be read.
	Warnings []string
}

// dirInstructions returns the instruction file of dir, "" when it has none.
func dirInstructions(dir string) string {
	for _, n := range instructionNames {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// projectInstructionFiles are the instruction files from the repository
// root (the nearest directory above dir, dir included, that holds .git)
// down to dir; outside a repository only dir's. dir is absolute.
func projectInstructionFiles(dir string) []string {
	chain := []string{dir}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			chain = []string{dir} // no repository: the working directory alone
			break
		}
		d = parent
		chain = append(chain, d)
	}
	var out []string
	for i := len(chain) - 1; i >= 0; i-- {
		if p := dirInstructions(chain[i]); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// projectReadable reports whether the project's instruction files and
// commands may be read now: Load found the directory trusted (or --trust)
// and its project files are still those the user trusted. changed is set
// when they are not any more.
func projectReadable(s Settings) (ok, changed bool) {
	if !s.Trusted || s.Project.Empty() {
		return false, false
	}
	if s.Flags.Trust {
		return true, false
	}
	ok, _, err := Trusted(s.Workdir)
	ok = ok && err == nil
	return ok, !ok
}

// changedProject is the warning of a project whose files changed since
// the session's settings were loaded.
const changedProject = "the project's instruction files and commands are not used: its project files changed since you trusted it; review them, then run `agent trust`"

// loadInstructions reads the run's instruction files: none with
// no_instructions; the project's only when project says so.
func loadInstructions(s Settings, project bool) Instructions {
	var in Instructions
	if s.NoInstructions {
		return in
	}
	var paths []string
	scope := map[string]string{}
	if dir := config.UserDir(); dir != "" {
		if p := dirInstructions(dir); p != "" {
			paths, scope[p] = append(paths, p), "user"
		}
	}
	if project {
		for _, p := range projectInstructionFiles(s.Project.Dir) {
			if _, seen := scope[p]; !seen {
				paths, scope[p] = append(paths, p), "project"
			}
		}
	}
	left := InstructionsCap
	var cut []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				in.Warnings = append(in.Warnings, fmt.Sprintf("instruction file %s is not sent: %v", p, err))
			}
			continue
		}
		f := InstructionFile{Path: p, Scope: scope[p], Size: len(b)}
		text := strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n"))
		if len(text) > left {
			text = cutAt(text, left)
			cut, f.Cut = append(cut, p), true
		}
		left -= len(text)
		f.text, f.Bytes = text, len(text)
		if text != "" || f.Size > 0 {
			in.Files = append(in.Files, f)
		}
	}
	if len(cut) > 0 {
		in.Warnings = append(in.Warnings, fmt.Sprintf("the instruction files are over %d KB together: %s cut to fit (shorten them, or leave them out with --no-instructions)",
			InstructionsCap>>10, strings.Join(cut, ", ")))
	}
	return in
}

// cutAt cuts text to at most n bytes, at the last line end that fits (or
// a rune boundary when no line does).
func cutAt(text string, n int) string {
	if n <= 0 {
		return ""
	}
	t := text[:n]
	if i := strings.LastIndexByte(t, '\n'); i > 0 {
		return strings.TrimRight(t[:i], "\n")
	}
	for len(t) > 0 && !utf8.ValidString(t) {
		t = t[:len(t)-1]
	}
	return t
}

// instructionsPreamble opens the instructions in the system prompt.
const instructionsPreamble = "# Instructions\n\n" +
	"The user and the project wrote these instructions (AGENTS.md files) for you. Follow them. " +
	"Where they disagree, a later one wins: the project's over the user's, a deeper directory's over the one above it."

// System is the system prompt with the instructions after base.
func (in Instructions) System(base string) string {
	var b strings.Builder
	b.WriteString(base)
	n := 0
	for _, f := range in.Files {
		if f.text == "" {
			continue
		}
		if n == 0 {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(instructionsPreamble)
		}
		n++
		fmt.Fprintf(&b, "\n\n<instructions path=%q scope=%q>\n%s\n</instructions>", f.Path, f.Scope, f.text)
	}
	return b.String()
}

// Instructions lists the instruction files the session sends.
func (a *App) Instructions() []InstructionFile {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.instr.Files)
}

// system is base with the session's instructions.
func (a *App) system(base string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.instr.System(base)
}

// reloadProjectFiles reads the instruction files and the custom commands
// again (a session starts, or is resumed: resumed) and puts the
// instructions in the session's system prompt; what was cut or left out,
// and instructions that changed since a resumed session's last request,
// are notices.
func (a *App) reloadProjectFiles(resumed bool) error {
	project, changed := projectReadable(a.settings)
	in := loadInstructions(a.settings, project)
	cmds := loadCommands(a.settings, project)
	if err := a.session.Override(func(tc *agent.TurnContext) { tc.System = in.System(a.settings.System) }); err != nil {
		return err
	}
	a.mu.Lock()
	a.instr, a.commands = in, cmds
	ss := a.stored
	a.mu.Unlock()
	if ss != nil {
		meta, old := ss.Meta(), ss.Meta()
		if w := a.noteInstructions(&meta, &old); w != "" && resumed {
			a.Notice(w)
		}
		if err := ss.UpdateMeta(context.Background(), meta); err != nil {
			return err
		}
	}
	if changed {
		a.Notice(changedProject)
	}
	for _, w := range append(in.Warnings, commandWarnings(cmds)...) {
		a.Notice(w)
	}
	return nil
}

// instructionsKey keeps, with a session's settings, the sha256 of the
// instructions it sent: a resume that reads different files says the
// prompt cache misses once.
const instructionsKey = "instructions_sha256"

// hash is the sha256 of what the instructions add to the system prompt.
func (in Instructions) hash() string {
	h := sha256.Sum256([]byte(in.System("")))
	return hex.EncodeToString(h[:])
}

// noteInstructions records the session's instructions in meta; old, when
// the session is resumed, is what it recorded before: instructions that
// changed since are a warning (returned), as changed tools are.
func (a *App) noteInstructions(meta *store.SessionMeta, old *store.SessionMeta) string {
	a.mu.Lock()
	h := a.instr.hash()
	a.mu.Unlock()
	warn := ""
	if old != nil {
		var prev string
		if raw := old.Settings.Value(instructionsKey); raw != nil && json.Unmarshal(raw, &prev) == nil && prev != h {
			warn = "the instruction files (AGENTS.md) changed since this session's last request: the next request is sent with the new ones, and the prompt cache will not match once"
		}
	}
	_ = meta.Settings.SetValue(instructionsKey, h)
	return warn
}
