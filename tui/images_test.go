package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
)

// pngBytes is the start of a PNG file: enough for the content sniffer.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")

// imageBackend is the fake backend taking images, or refusing them.
type imageBackend struct {
	*fakeBackend
	refuse error
}

func (b *imageBackend) SendInput(ctx context.Context, in agent.Input) <-chan agent.Event {
	return b.Send(ctx, in.Text)
}

func (b *imageBackend) CheckImages([]agent.Image) error { return b.refuse }

// Which prompts attach which images: an @path named as an image, an
// @path whose content is one, a prompt that is only a pasted path (quoted,
// escaped); text files stay text and a broken image is a warning.
func TestAttachImages(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("dot.png", pngBytes)
	write("my shot.png", pngBytes)
	write("noext", pngBytes)
	write("notes.txt", []byte("hello\n"))
	write("fake.png", []byte("not an image"))
	cases := []struct {
		prompt, text string
		images       []string
		warning      string
	}{
		{"what is @dot.png?", "what is @dot.png?", []string{"dot.png"}, ""},
		{"and @noext", "and @noext", []string{"noext"}, ""},
		{`see @"my shot.png" and @notes.txt`, "see @\"my shot.png\" and @notes.txt\n\n<file path=\"notes.txt\">\nhello\n</file>", []string{"my shot.png"}, ""},
		{filepath.Join(dir, "dot.png"), "", []string{"dot.png"}, ""},
		{strings.ReplaceAll(filepath.Join(dir, "my shot.png"), " ", `\ `), "", []string{"my shot.png"}, ""},
		{"'" + filepath.Join(dir, "my shot.png") + "'", "", []string{"my shot.png"}, ""},
		{"look at @fake.png", "look at @fake.png", nil, "@fake.png not attached: image fake.png: not an image: its content is text/plain"},
		{"dot.png is a file", "dot.png is a file", nil, ""},
	}
	for _, c := range cases {
		text, images, att := attach(c.prompt, nil)
		var names []string
		for _, im := range images {
			names = append(names, im.Name)
			if im.MediaType != "image/png" || im.Size() != len(pngBytes) {
				t.Errorf("%q: image %s %s %d bytes", c.prompt, im.Name, im.MediaType, im.Size())
			}
		}
		if text != c.text || strings.Join(names, ",") != strings.Join(c.images, ",") || len(att.images) != len(c.images) {
			t.Errorf("%q: text %q, images %v (chips %v); want %q, %v", c.prompt, text, names, att.images, c.text, c.images)
		}
		if c.warning != "" && (len(att.warnings) != 1 || !strings.HasPrefix(att.warnings[0], c.warning)) {
			t.Errorf("%q: warnings %q, want %q", c.prompt, att.warnings, c.warning)
		}
	}
}

// A pasted image path becomes an @reference in the input; other pastes
// stay as they are.
func TestPastedImagePathBecomesReference(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"/tmp/shot.png":             "@/tmp/shot.png ",
		`/tmp/my\ shot.png`:         `@"/tmp/my shot.png" `,
		"'/tmp/my shot.png'":        `@"/tmp/my shot.png" `,
		"file:///tmp/a.jpeg":        "@/tmp/a.jpeg ",
		"/tmp/my shot.png":          `@"/tmp/my shot.png" `,
		"/tmp/notes.txt":            "/tmp/notes.txt",
		"look at /tmp/shot.png now": "look at /tmp/shot.png now",
	}
	for paste, want := range cases {
		m, _, _ := newTestModel(t, newFakeBackend(), 80, 24, Options{})
		m.Update(tea.PasteMsg{Content: paste})
		if got := m.input.Value(); got != want {
			t.Errorf("paste %q: input %q, want %q", paste, got, want)
		}
	}
}

// A refused image sends nothing: the error is one line in the chat and
// the prompt is back in the input; a taken one starts the turn with it
// and its chip is in the chat and in /export (named, not its bytes).
func TestImageRefusedOrSent(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "dot.png"), pngBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	b := &imageBackend{fakeBackend: newFakeBackend(), refuse: errors.New("small-3 takes no images, so the image was not sent: switch")}
	m, turns, _ := newTestModel(t, b.fakeBackend, 100, 30, Options{})
	m.b = b
	typeText(m, "what is @dot.png?")
	run(m, press(m, "enter"))
	if len(turns.started) != 0 {
		t.Fatalf("a refused prompt started a turn: %q", turns.started)
	}
	if v := m.input.Value(); v != "what is @dot.png?" {
		t.Errorf("input after the refusal: %q", v)
	}
	if f := frame(m); !strings.Contains(f, "small-3 takes no images, so the image was not sent") || m.working {
		t.Errorf("no refusal shown, or still working (%v):\n%s", m.working, f)
	}

	b.refuse = nil
	m.input.Reset()
	typeText(m, "what is @dot.png?")
	run(m, press(m, "enter"))
	if len(turns.images) != 1 || len(turns.images[0]) != 1 || turns.images[0][0].Name != "dot.png" || turns.started[0] != "what is @dot.png?" {
		t.Fatalf("turn started with %q %v", turns.started, turns.images)
	}
	want := "▣ dot.png (png, 29 B)"
	if f := frame(m); !strings.Contains(f, want) {
		t.Errorf("no chip %q:\n%s", want, f)
	}
	if tr := m.transcript(); !strings.Contains(tr, "[image: dot.png (png, 29 B)]") || strings.Contains(tr, "iVBOR") {
		t.Errorf("/export:\n%s", tr)
	}
}

// A resumed session shows the images of its prompts as chips.
func TestHistoryShowsImageChips(t *testing.T) {
	t.Parallel()
	im := agent.Image{MediaType: "image/jpeg", Data: "/9j/4AAQSkZJRg==", Name: "cat\x1b]0;pwned\x07.jpg"}
	m, _, _ := newTestModel(t, newFakeBackend(), 100, 30, Options{History: []agent.Message{
		{Role: agent.RoleUser, Parts: agent.Input{Text: "a cat?", Images: []agent.Image{im}}.Parts()},
		{Role: agent.RoleAssistant, Parts: []agent.Part{agent.TextPart("A cat.")}},
	}})
	f := frame(m)
	if !strings.Contains(f, "a cat?") || !strings.Contains(f, "▣ cat") || !strings.Contains(f, ".jpg (jpeg, 10 B)") || strings.Contains(f, "\x1b]0;") {
		t.Errorf("history:\n%q", f)
	}
}
