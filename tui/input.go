package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/agent-dev/agent/themes"
)

// input is the multi-line prompt with a history of what was sent.
type input struct {
	ta      textarea.Model
	keys    KeyMap
	st      *themes.Styles
	history []string
	// idx is the history position; len(history) means the draft.
	idx   int
	draft string
	width int
	// measure holds a copy of the text, in a textarea that sizes itself to
	// it, to count the rows the text takes as the input wraps it: at word
	// boundaries, which a count of cells per row (the box's earlier
	// measure) put a row short, hiding a draft's first line.
	measure  textarea.Model
	measured string
}

// placeholder is the empty input's text, and placeholderShort the part of
// it that fits a narrow box (cut at the box, it read "/help for").
const (
	placeholder      = "Ask anything · /help for commands"
	placeholderShort = "Ask anything · /help"
)

func newInput(st *themes.Styles, keys KeyMap) *input {
	ta := textarea.New()
	ta.Placeholder = placeholder
	ta.ShowLineNumbers = false
	// A one-cell prompt keeps typed text off the box's left border.
	ta.Prompt = " "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.KeyMap.InsertNewline = keys.Newline
	ta.SetHeight(1)
	ta.SetStyles(textareaStyles(st))
	ta.Focus()
	ms := textarea.New()
	ms.Prompt = ta.Prompt
	ms.ShowLineNumbers = false
	ms.CharLimit = 0
	ms.MaxHeight = 0
	ms.DynamicHeight = true
	ms.SetStyles(textareaStyles(st))
	return &input{ta: ta, keys: keys, st: st, measure: ms}
}

// SetSize sets the box's outer width and the rows of text inside it.
func (in *input) SetSize(w, rows int) {
	in.setWidth(w)
	in.ta.SetHeight(max(rows, 1))
	if in.ta.ScrollYOffset() > 0 && in.textRows() <= in.ta.Height() {
		// The textarea scrolled to keep the cursor in a smaller or
		// narrower box; in this one the whole text fits, so it shows from
		// its first line, the cursor where it was.
		row, col := in.ta.Line(), in.ta.Column()
		in.ta.MoveToBegin()
		for in.ta.Line() < row {
			in.ta.CursorDown()
		}
		in.ta.SetCursorColumn(col)
	}
}

// setWidth sets the box's outer width; the layout reads the rows the text
// needs at it, so a resize sets it before laying the screen out.
func (in *input) setWidth(w int) {
	in.width = w
	in.ta.SetWidth(max(w-2, 4))
	in.measure.SetWidth(max(w-2, 4))
	// The prompt cell and a cell for the cursor take two of the text's.
	if in.ta.Width()-2 < len(placeholder) {
		in.ta.Placeholder = placeholderShort
	} else {
		in.ta.Placeholder = placeholder
	}
}

// textRows is how many rows the text takes, wrapped as the box wraps it.
func (in *input) textRows() int {
	if v := in.ta.Value(); v != in.measured {
		in.measure.SetValue(v)
		in.measured = v
	}
	return in.measure.Height()
}

// rows is how many rows the text needs, wrapped at the box's width, at
// least one and at most limit: the box grows with what is typed or pasted.
func (in *input) rows(limit int) int {
	return min(max(in.textRows(), 1), max(limit, 1))
}

func (in *input) setStyles(st *themes.Styles) {
	in.st = st
	in.ta.SetStyles(textareaStyles(st))
	in.measure.SetStyles(textareaStyles(st))
}

// textareaStyles takes the textarea's defaults and recolours the parts that
// show from the theme, so no colour literal of bubbles leaks in.
func textareaStyles(st *themes.Styles) textarea.Styles {
	s := textarea.DefaultStyles(st.Palette.Dark)
	for _, state := range []*textarea.StyleState{&s.Focused, &s.Blurred} {
		state.Text = st.Text
		state.CursorLine = st.Text
		state.Placeholder = st.Subtle
		state.Prompt = st.Accent
		state.EndOfBuffer = st.Subtle
	}
	s.Blurred.Text = st.Muted
	s.Cursor.Color = st.Palette.Accent
	return s
}

func (in *input) Value() string { return in.ta.Value() }

// SetValue replaces the prompt (the editor's text).
func (in *input) SetValue(s string) {
	in.ta.SetValue(s)
	in.ta.CursorEnd()
}

func (in *input) Reset() {
	in.ta.Reset()
	in.idx = len(in.history)
	in.draft = ""
}

// remember adds a sent prompt to the history (no repeats in a row).
func (in *input) remember(s string) {
	if s = strings.TrimSpace(s); s == "" {
		return
	}
	if n := len(in.history); n == 0 || in.history[n-1] != s {
		in.history = append(in.history, s)
	}
	in.idx = len(in.history)
}

// Update handles history keys on the first/last line and passes the rest
// (typing, paste, cursor moves) to the textarea.
func (in *input) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, in.keys.HistPrev) && in.ta.Line() == 0 && in.idx > 0:
			if in.idx == len(in.history) {
				in.draft = in.ta.Value()
			}
			in.idx--
			in.ta.SetValue(in.history[in.idx])
			return nil
		case key.Matches(k, in.keys.HistNext) && in.ta.Line() == in.ta.LineCount()-1 && in.idx < len(in.history):
			in.idx++
			if in.idx == len(in.history) {
				in.ta.SetValue(in.draft)
			} else {
				in.ta.SetValue(in.history[in.idx])
			}
			return nil
		}
	}
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return cmd
}

func (in *input) View(focused bool) string {
	box := in.st.Input
	if focused {
		box = in.st.InputFocused
	}
	return box.Width(in.width).Render(in.ta.View())
}
