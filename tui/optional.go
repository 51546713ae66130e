package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/internal/suggest"
)

// SessionDeleter is implemented by a Backend that deletes stored sessions
// (ctrl+d twice in the /sessions picker).
type SessionDeleter interface {
	Delete(ctx context.Context, id string) error
}

// UntrustedCommands is implemented by a Backend that knows the custom
// commands of a project it does not trust: /NAME of one is refused saying
// so, not as an unknown command.
type UntrustedCommands interface {
	UntrustedCommand(name string) bool
}

// ModelLister is implemented by a Backend that lists the models /model
// offers for the current provider (the capability and price tables, and
// the provider's own list where it has one).
type ModelLister interface {
	Models(ctx context.Context) ([]ModelInfo, error)
}

// ModelWarner is implemented by a Backend that knows the provider's
// models from its own tables: after /model switched, ModelWarning says
// (one line) that the current model is not among them, or "".
type ModelWarner interface {
	ModelWarning() string
}

// Refresher is implemented by a Backend whose tools can change between
// turns (MCP servers that finished starting in the background): the TUI
// calls Refresh while idle and shows the notes it returns: a warning
// marked as the startup warnings are, news as a plain notice.
type Refresher interface {
	Refresh() []Note
}

// A Note is what a backend says between turns: a Warning (a server that
// did not start) or news (a server up, its tools changed).
type Note struct {
	Text    string
	Warning bool
}

// ImageSender is implemented by a Backend that sends images with a
// prompt (@shot.png, a pasted image path).
type ImageSender interface {
	// SendInput starts one turn with the prompt's text and images.
	SendInput(ctx context.Context, in agent.Input) <-chan agent.Event
	// CheckImages says, in one line, why these images cannot be sent to
	// the current model, or nil.
	CheckImages(images []agent.Image) error
}

// CatalogSkipper is implemented by a Backend whose turns wait for MCP
// servers that have no cached tool list: esc sends the held request
// without them.
type CatalogSkipper interface {
	SkipCatalogWait() bool
}

type refreshedMsg struct {
	notes []Note
	info  Info
}

// refreshCmd applies what changed while idle and reads the status again.
func refreshCmd(b Backend) tea.Cmd {
	return func() tea.Msg {
		var notes []Note
		if r, ok := b.(Refresher); ok {
			notes = r.Refresh()
		}
		return refreshedMsg{notes: notes, info: b.Info()}
	}
}

// ModelInfo is one row of the /model picker.
type ModelInfo struct {
	Name string
	// Detail is what the row says about it (context window, price).
	Detail string
}

type (
	modelsMsg struct {
		Models []ModelInfo
		Err    error
	}
	deletedMsg struct {
		ID  string
		Err error
	}
	exportedMsg struct {
		Path string
		Err  error
	}
	editedMsg struct {
		Text string
		Err  error
	}
)

// backendTimeout bounds a command's call into the backend.
const backendTimeout = time.Minute

func modelsCmd(b Backend) tea.Cmd {
	return func() tea.Msg {
		l, ok := b.(ModelLister)
		if !ok {
			return modelsMsg{}
		}
		ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
		defer cancel()
		ms, err := l.Models(ctx)
		return modelsMsg{Models: ms, Err: err}
	}
}

func deleteCmd(b Backend, id string) tea.Cmd {
	return func() tea.Msg {
		d, ok := b.(SessionDeleter)
		if !ok {
			return deletedMsg{ID: id, Err: errNotSupported}
		}
		ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
		defer cancel()
		return deletedMsg{ID: id, Err: d.Delete(ctx, id)}
	}
}

// setModelCmd switches to a model typed after /model, saying which of the
// provider's models it is likely a typo of.
func setModelCmd(b Backend, name string) tea.Cmd {
	return func() tea.Msg {
		// Listed before the switch: the list starts with the current model,
		// which would be the typo itself after it.
		near, listed := nearModel(b, name)
		if err := b.SetModel(name); err != nil {
			return modelSetMsg{Name: name, Err: err}
		}
		msg := modelSetMsg{Name: name, Near: near}
		// A model the provider lists is served, whatever the tables say.
		if w, ok := b.(ModelWarner); ok && near == "" && !listed {
			msg.Warning = w.ModelWarning()
		}
		return msg
	}
}

// pickModelCmd switches to a model chosen from the provider's list: no
// typo to look for, and no second request for the list before the switch.
func pickModelCmd(b Backend, name string) tea.Cmd {
	return func() tea.Msg {
		return modelSetMsg{Name: name, Err: b.SetModel(name)}
	}
}

// nearModel is the model of the provider's list that name is a typo of
// ("claude-sonet-4-5"), or "": the provider takes any id, so an unknown
// one is set, but a near miss would fail at the next request. listed says
// the list names it.
func nearModel(b Backend, name string) (near string, listed bool) {
	l, ok := b.(ModelLister)
	if !ok || strings.Contains(name, ":") {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
	defer cancel()
	ms, err := l.Models(ctx)
	if err != nil {
		return "", false
	}
	names := make([]string, 0, len(ms))
	for _, m := range ms {
		if m.Name == name {
			return "", true
		}
		names = append(names, m.Name)
	}
	return suggest.Nearest(name, names), false
}

type notSupported struct{}

func (notSupported) Error() string { return "not supported by this backend" }

var errNotSupported error = notSupported{}

// exportCmd writes the transcript to path (a tea.Cmd: no IO in Update).
func exportCmd(path, text string) tea.Cmd {
	return func() tea.Msg {
		abs, err := filepath.Abs(path)
		if err == nil {
			err = os.WriteFile(abs, []byte(text), 0o644)
		}
		return exportedMsg{Path: abs, Err: err}
	}
}

// editorCmd opens the prompt in $VISUAL or $EDITOR (vi when neither is
// set) and puts what was saved back in the input.
func editorCmd(draft string) tea.Cmd {
	return func() tea.Msg {
		f, err := os.CreateTemp("", "agent-prompt-*.md")
		if err != nil {
			return editedMsg{Text: draft, Err: err}
		}
		_, err = f.WriteString(draft)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return editedMsg{Text: draft, Err: err}
		}
		return editorReadyMsg{path: f.Name(), draft: draft}
	}
}

type editorReadyMsg struct{ path, draft string }

func editorExec(msg editorReadyMsg, tty *os.File) tea.Cmd {
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	args := strings.Fields(editor)
	c := exec.CommandContext(context.Background(), args[0], append(args[1:], msg.path)...)
	if tty != nil {
		// The program's output is wrapped (frameFence), and an exec.Cmd
		// given a writer that is no file gives the process a pipe: vi
		// said "Output is not to a terminal" and waited before it drew.
		c.Stdout = tty
	}
	return tea.ExecProcess(c, func(err error) tea.Msg {
		defer os.Remove(msg.path)
		if err != nil {
			return editedMsg{Text: msg.draft, Err: err}
		}
		b, rerr := os.ReadFile(msg.path)
		if rerr != nil {
			return editedMsg{Text: msg.draft, Err: rerr}
		}
		return editedMsg{Text: string(b)}
	})
}

// ModeCycler is a backend with permission modes: shift+tab moves to the
// next one and the status bar shows it.
type ModeCycler interface {
	CyclePermissionMode() string
}
