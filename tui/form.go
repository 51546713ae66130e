package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
)

// An MCP server's elicitation: a form built from its requestedSchema (or a
// URL to open), shown in place of the input. enter on the last field (or
// ctrl+s) accepts, ctrl+d declines, esc cancels.

// Elicitor is a Backend whose MCP servers ask the user for input.
type Elicitor interface {
	Elicitations() <-chan FormRequest
}

// FormRequest is one elicitation. Reply must be called exactly once, with
// "accept" (and the values by field name), "decline" or "cancel".
type FormRequest struct {
	Server  string
	Message string
	// URL is set in URL mode: the user is asked to open it; no fields.
	URL    string
	Fields []FormField
	Reply  func(action string, content map[string]any)
}

// FormField is one field of a form.
type FormField struct {
	Name, Label, Description string
	// Type is string, number, integer, boolean or array (multiple choice).
	Type string
	// Options are the choices of a choice field (left/right cycles them in
	// a single choice; a multiple choice is typed, comma separated).
	Options  []string
	Default  string
	Required bool
	// Parse reads what the user typed; ok=false leaves the field out (the
	// server's default then applies).
	Parse func(text string) (v any, ok bool, err error)
}

// formMsg brings a form into Update.
type formMsg struct{ Req FormRequest }

// form is the form being filled in.
type form struct {
	req    FormRequest
	values []string
	cur    int
	err    string
}

func newForm(req FormRequest) *form {
	f := &form{req: req, values: make([]string, len(req.Fields))}
	for i, fd := range req.Fields {
		f.values[i] = fd.Default
	}
	return f
}

// rows is the height of the form's box.
func (f *form) rows() int { return 4 + max(len(f.req.Fields), 1) }

func (f *form) view(st *themes.Styles, width int) string {
	inner := max(width-4, 10)
	r := f.req
	lines := []string{ansi.Truncate(st.DialogTitle.Render("MCP server "+sanitize.Line(r.Server)+" asks: ")+sanitize.Line(r.Message), inner, "…")}
	if r.URL != "" {
		lines = append(lines, st.CardArgs.Render(ansi.Truncate("open "+sanitize.Line(r.URL), inner, "…")))
		lines = append(lines, ansi.Truncate(st.HelpKey.Render("y")+st.HelpDesc.Render(" I will open it  ")+
			st.HelpKey.Render("n")+st.HelpDesc.Render(" decline  ")+st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"), inner, "…"))
		return st.Dialog.Width(width).Render(strings.Join(lines, "\n"))
	}
	for i, fd := range r.Fields {
		mark := "  "
		if i == f.cur {
			mark = "› "
		}
		label := sanitize.Line(fd.Label)
		if fd.Required {
			label += "*"
		}
		val := f.values[i]
		if i == f.cur {
			val += "▏"
		}
		hint := sanitize.Line(fd.Description)
		if len(fd.Options) > 0 {
			hint = strings.Join(fd.Options, " | ")
		} else if fd.Type == "boolean" {
			hint = "yes | no"
		}
		line := mark + st.CardTitle.Render(label) + ": " + sanitize.Line(val)
		if hint != "" {
			line += "  " + st.Muted.Render(hint)
		}
		lines = append(lines, ansi.Truncate(line, inner, "…"))
	}
	if f.err != "" {
		lines = append(lines, st.Fail.Render(ansi.Truncate(sanitize.Line(f.err), inner, "…")))
	}
	lines = append(lines, ansi.Truncate(st.HelpKey.Render("tab")+st.HelpDesc.Render(" next field  ")+
		st.HelpKey.Render("enter")+st.HelpDesc.Render(" next / accept  ")+st.HelpKey.Render("ctrl+d")+st.HelpDesc.Render(" decline  ")+
		st.HelpKey.Render("esc")+st.HelpDesc.Render(" cancel"), inner, "…"))
	return st.Dialog.Width(width).Render(strings.Join(lines, "\n"))
}

// key handles one key; done is set when the form was answered.
func (f *form) key(k tea.KeyPressMsg) (done bool, cmd tea.Cmd) {
	reply := func(action string, content map[string]any) (bool, tea.Cmd) {
		req := f.req
		return true, func() tea.Msg {
			if req.Reply != nil {
				req.Reply(action, content)
			}
			return nil
		}
	}
	s := k.String()
	switch s {
	case "esc", "ctrl+c":
		return reply("cancel", nil)
	case "ctrl+d":
		return reply("decline", nil)
	}
	if f.req.URL != "" {
		switch s {
		case "y", "Y":
			return reply("accept", nil)
		case "n", "N":
			return reply("decline", nil)
		}
		return false, nil
	}
	n := len(f.req.Fields)
	switch s {
	case "tab", "down":
		f.cur = (f.cur + 1) % max(n, 1)
		return false, nil
	case "shift+tab", "up":
		f.cur = (f.cur + max(n, 1) - 1) % max(n, 1)
		return false, nil
	case "enter", "ctrl+s":
		if s == "enter" && f.cur < n-1 {
			f.cur++
			return false, nil
		}
		content, err := f.collect()
		if err != nil {
			f.err = err.Error()
			return false, nil
		}
		return reply("accept", content)
	}
	if n == 0 {
		return false, nil
	}
	fd := f.req.Fields[f.cur]
	switch {
	case (s == "left" || s == "right" || s == "space") && fd.Type == "boolean":
		if strings.HasPrefix(strings.ToLower(f.values[f.cur]), "y") || f.values[f.cur] == "true" {
			f.values[f.cur] = "no"
		} else {
			f.values[f.cur] = "yes"
		}
	case (s == "left" || s == "right") && len(fd.Options) > 0 && fd.Type != "array":
		i := 0
		for j, o := range fd.Options {
			if o == f.values[f.cur] {
				if s == "right" {
					i = (j + 1) % len(fd.Options)
				} else {
					i = (j + len(fd.Options) - 1) % len(fd.Options)
				}
			}
		}
		f.values[f.cur] = fd.Options[i]
	case s == "backspace":
		if r := []rune(f.values[f.cur]); len(r) > 0 {
			f.values[f.cur] = string(r[:len(r)-1])
		}
	case s == "space":
		f.values[f.cur] += " "
	default:
		if t := k.Text; t != "" {
			f.values[f.cur] += t
		}
	}
	f.err = ""
	return false, nil
}

// collect parses every field; the first problem is the error.
func (f *form) collect() (map[string]any, error) {
	out := map[string]any{}
	for i, fd := range f.req.Fields {
		if fd.Parse == nil {
			continue
		}
		v, ok, err := fd.Parse(f.values[i])
		if err != nil {
			f.cur = i
			return nil, err
		}
		if !ok {
			if fd.Required && fd.Default == "" {
				f.cur = i
				return nil, fmt.Errorf("%s is required", fd.Label)
			}
			continue
		}
		out[fd.Name] = v
	}
	return out, nil
}
