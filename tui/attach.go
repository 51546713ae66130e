package tui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/internal/imagefile"
	"github.com/agent-dev/agent/sanitize"
)

// maxAttach bounds an attached file: more would fill the context window.
const maxAttach = 256 << 10

// attachedMsg reports what the @paths of a sent prompt attached: notes,
// warnings, and a chip (name, type, size) per image.
type attachedMsg struct{ notes, warnings, images []string }

// refusedMsg says the prompt was not sent: the model or its provider
// cannot take its images. The prompt goes back into the input.
type refusedMsg struct {
	prompt string
	err    error
	att    attachedMsg
}

// attach appends the text of every @path in the prompt that names a
// readable text file, each in a <file> element the model can tell apart
// from the prompt; an @path that names an image (by its extension or its
// content), or a prompt that is nothing but a pasted image path, becomes
// an image of the turn instead. It runs in the command that starts the
// turn (IO). An @word that is no file and that isResource says is an
// MCP resource (@server:uri) is left to attachResources, which says
// whether it was attached: "no such file" beside "attached" contradicted it.
func attach(text string, isResource func(string) bool) (string, []agent.Image, attachedMsg) {
	var out attachedMsg
	var images []agent.Image
	addImage := func(ref, p string) {
		im, err := imagefile.Read(p)
		if err != nil {
			out.warnings = append(out.warnings, ref+" not attached: "+err.Error())
			return
		}
		images = append(images, im)
		out.images = append(out.images, imagefile.Chip(im))
	}
	if p, ok := imagefile.PastedPath(text); ok {
		addImage(p, p)
		if len(images) > 0 {
			text = ""
		}
		return text, images, out
	}
	var files strings.Builder
	seen := map[string]bool{}
	for _, p := range atPaths(text) {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		fi, err := os.Stat(p)
		switch {
		case err != nil && isResource != nil && isResource(p):
			continue
		case err != nil:
			out.warnings = append(out.warnings, fmt.Sprintf("@%s not attached: no such file (a name with spaces goes in quotes: @\"my file.txt\")", p))
			continue
		case fi.IsDir():
			out.warnings = append(out.warnings, "@"+p+" not attached: it is a directory; name a file in it")
			continue
		case !fi.Mode().IsRegular():
			out.warnings = append(out.warnings, "@"+p+" not attached: it is not a regular file")
			continue
		case imagefile.Named(p):
			addImage("@"+p, p)
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
		if imagefile.Sniff(b) != "" {
			addImage("@"+p, p)
			continue
		}
		if bytes.IndexByte(b, 0) >= 0 {
			out.warnings = append(out.warnings, "@"+p+" not attached: it is not a text file")
			continue
		}
		fmt.Fprintf(&files, "\n\n<file path=%q>\n%s\n</file>", p, strings.TrimRight(string(b), "\n"))
		out.notes = append(out.notes, fmt.Sprintf("attached @%s (%s)", p, plural(lineCount(string(b)), "line")))
	}
	return text + files.String(), images, out
}

// checkImages asks the backend whether it can send these images now.
func checkImages(b Backend, images []agent.Image) error {
	is, ok := b.(ImageSender)
	if !ok {
		return errors.New("this session cannot send images; the prompt was not sent")
	}
	return is.CheckImages(images)
}

// applyRefused shows why the prompt was not sent and gives it back to the
// input, unless the user has typed something else meanwhile.
func (m *Model) applyRefused(msg refusedMsg) tea.Cmd {
	msg.att.images = nil // not sent: no chip
	m.applyAttached(msg.att)
	m.chat.notice(itemError, sanitize.Line(msg.err.Error()))
	if strings.TrimSpace(m.input.Value()) == "" {
		m.input.SetValue(msg.prompt)
	}
	return m.endTurn()
}

func (m *Model) applyAttached(msg attachedMsg) tea.Cmd {
	for _, im := range msg.images {
		m.chat.add(&chatItem{kind: itemImage, text: sanitize.Line(im)})
	}
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

// imageRef is the @reference a pasted image path becomes in the input
// (quoted when it has spaces), with a space after it for the question.
func imageRef(pasted string) (string, bool) {
	p, ok := imagefile.Unquote(pasted)
	if !ok || strings.ContainsRune(p, '"') {
		return "", false
	}
	if strings.ContainsAny(p, " \t") {
		return `@"` + p + `" `, true
	}
	return "@" + p + " ", true
}

// lineCount is how many lines text has as an editor counts them: the
// newline that ends the last line starts no other ("a\n" is one line).
func lineCount(text string) int {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return 0
	}
	return strings.Count(text, "\n") + 1
}
