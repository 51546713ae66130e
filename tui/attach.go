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
	for _, p := range atPaths(text) {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			out.warnings = append(out.warnings, fmt.Sprintf("@%s not attached: no such file (a name with spaces goes in quotes: @\"my file.txt\")", p))
			continue
		case fi.IsDir():
			out.warnings = append(out.warnings, "@"+p+" not attached: it is a directory; name a file in it")
			continue
		case !fi.Mode().IsRegular():
			out.warnings = append(out.warnings, "@"+p+" not attached: it is not a regular file")
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

// atPaths returns the paths of the prompt's @words: @path, @"a name with
// spaces" or @a\ name\ with\ spaces; trailing punctuation of a bare path
// is not part of it ("see @notes.md.").
func atPaths(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !isSpace(text[i-1])) {
			continue
		}
		j := i + 1
		if j < len(text) && text[j] == '"' {
			end := strings.IndexByte(text[j+1:], '"')
			if end < 0 {
				continue
			}
			out = append(out, text[j+1:j+1+end])
			i = j + 1 + end
			continue
		}
		var b strings.Builder
		for ; j < len(text) && !isSpace(text[j]); j++ {
			if text[j] == '\\' && j+1 < len(text) && text[j+1] == ' ' {
				j++
			}
			b.WriteByte(text[j])
		}
		out = append(out, strings.TrimRight(b.String(), ".,;:!?)"))
		i = j
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
