package tui

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// maxAttach bounds an attached file: more would fill the context window.
const maxAttach = 256 << 10

// attachedMsg reports what the @paths of a sent prompt attached.
type attachedMsg struct{ notes, warnings []string }

// attach appends the text of every @path in the prompt that names a
// readable text file, each in a <file> element the model can tell apart
// from the prompt. It runs in the command that starts the turn (IO).
func attach(text string) (string, attachedMsg) {
	var out attachedMsg
	var files strings.Builder
	seen := map[string]bool{}
	for _, w := range strings.Fields(text) {
		p, ok := strings.CutPrefix(w, "@")
		p = strings.TrimRight(p, ".,;:!?)")
		if !ok || p == "" || seen[p] {
			continue
		}
		seen[p] = true
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > maxAttach {
			out.warnings = append(out.warnings, fmt.Sprintf("@%s not attached: %d KB is over the %d KB limit", p, fi.Size()>>10, maxAttach>>10))
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			out.warnings = append(out.warnings, fmt.Sprintf("@%s not attached: %v", p, err))
			continue
		}
		if bytes.IndexByte(b, 0) >= 0 {
			out.warnings = append(out.warnings, "@"+p+" not attached: it is not a text file")
			continue
		}
		fmt.Fprintf(&files, "\n\n<file path=%q>\n%s\n</file>", p, strings.TrimRight(string(b), "\n"))
		out.notes = append(out.notes, fmt.Sprintf("attached @%s (%s)", p, plural(bytes.Count(b, []byte("\n"))+1, "line")))
	}
	return text + files.String(), out
}

func (m *Model) applyAttached(msg attachedMsg) tea.Cmd {
	for _, n := range msg.notes {
		m.chat.notice(itemNotice, n)
	}
	for _, w := range msg.warnings {
		m.chat.notice(itemWarning, w)
	}
	return nil
}
