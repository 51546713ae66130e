package tui

import (
	"fmt"
	"net/url"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/themes"
)

// An MCP server's elicitation: a form built from its requestedSchema (or a
// URL to open), shown in place of the input. enter on the last field (or
// ctrl+s) accepts, ctrl+d declines, esc cancels. A URL is shown whole,
// its host apart (and a punycode host flagged), and opened only when the
// user presses o, as the specification asks.

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
	URL string
	// Retry: a tool call waits for the user to finish at URL and is then
	// retried; accepting means "done, retry now".
	Retry bool
	// Open opens URL in the browser (o), nil when it cannot.
	Open   func(url string) error
	Fields []FormField
	Reply  func(action string, content map[string]any)
	// Done, when it closes, withdraws the form unanswered (the server said
	// the URL flow is complete, or no longer waits for the answer). Why,
	// when set, says why in a few words.
	Done <-chan struct{}
	Why  func() string
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

// formGoneMsg withdraws a form whose Done closed.
type formGoneMsg struct{ f *form }

// form is the form being filled in.
type form struct {
	req    FormRequest
	values []string
	cur    int
	err    string
	opened bool // o opened the URL in the browser
}

// gone waits for the form's Done (nil when it has none).
func (f *form) gone() tea.Cmd {
	done := f.req.Done
	if done == nil {
		return nil
	}
	return func() tea.Msg {
		<-done
		return formGoneMsg{f}
	}
}

func newForm(req FormRequest) *form {
	f := &form{req: req, values: make([]string, len(req.Fields))}
	for i, fd := range req.Fields {
		f.values[i] = fd.Default
	}
	return f
}

// rows is the height of the form's box at width.
func (f *form) rows(width int) int {
	if f.req.URL != "" {
		return 2 + len(f.urlLines(nil, width))
	}
	n := 3 + len(f.messageLines(nil, max(width-4, 10), " asks: ")) + max(len(f.req.Fields), 1)
	if f.err != "" {
		n++ // the error line under the fields
	}
	return n
}

// formMessageLines bounds the rows of a form's question.
const formMessageLines = 4

// messageLines are the form's question, "MCP server NAME" and verb (" asks:
// ", " asks you to open a link: ") then the server's message, wrapped
// over at most formMessageLines rows: cut to one line,
// server-everything's simulate-research-query asked 'The research query
// "bees" could have multiple i…' at 80 columns, and the user had to
// answer a question they could not read (a link, why to open it). st nil:
// unstyled, to count them.
func (f *form) messageLines(st *themes.Styles, inner int, verb string) []string {
	head := "MCP server " + sanitize.Line(f.req.Server) + verb
	ls := capLines(strings.Split(ansi.Wrap(head+sanitize.Line(f.req.Message), inner, ""), "\n"), formMessageLines, inner)
	if st != nil {
		if rest, ok := strings.CutPrefix(ls[0], head); ok {
			ls[0] = st.DialogTitle.Render(head) + rest
		}
	}
	return ls
}

// urlLines are a URL elicitation's lines: the message, the site, the whole
// URL (wrapped, never cut) and the keys. st nil: unstyled, to count them.
func (f *form) urlLines(st *themes.Styles, width int) []string {
	inner := max(width-4, 10)
	r := f.req
	style := func(render func(...string) string, s string) string {
		if st == nil {
			return s
		}
		return render(s)
	}
	var title, key, desc, args, warn func(...string) string
	if st != nil {
		title, key, desc, args, warn = st.DialogTitle.Render, st.HelpKey.Render, st.HelpDesc.Render, st.CardArgs.Render, st.Fail.Render
	}
	lines := f.messageLines(st, inner, " asks you to open a link: ")
	host, puny := urlHost(r.URL)
	lines = append(lines, style(title, "site: ")+style(args, ansi.Truncate(host, inner-6, "…")))
	if puny {
		lines = append(lines, style(warn, ansi.Truncate("the host is written in punycode (xn--): check it is the site you expect", inner, "…")))
	}
	for _, l := range strings.Split(ansi.Hardwrap(sanitize.Line(r.URL), inner, false), "\n") {
		lines = append(lines, style(args, l))
	}
	if f.err != "" {
		lines = append(lines, style(warn, ansi.Truncate(sanitize.Line(f.err), inner, "…")))
	}
	keys := func(pairs ...string) string {
		var b strings.Builder
		for i := 0; i+1 < len(pairs); i += 2 {
			b.WriteString(style(key, pairs[i]) + style(desc, " "+pairs[i+1]+"  "))
		}
		return ansi.Truncate(strings.TrimRight(b.String(), " "), inner, "…")
	}
	switch {
	case r.Retry && f.opened:
		lines = append(lines, style(desc, "opened; the call is retried when the server says you are done"),
			keys("enter", "done, retry now", "n", "decline", "esc", "cancel"))
	case r.Retry:
		lines = append(lines, style(desc, "the tool call is retried once you are done there"),
			keys("o", "open in browser", "enter", "done, retry now", "n", "decline", "esc", "cancel"))
	default:
		lines = append(lines, keys("o", "open in browser", "y", "I will open it", "n", "decline", "esc", "cancel"))
	}
	return lines
}

// urlHost is the URL's host, and whether it is written in punycode.
func urlHost(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(not a valid URL)", false
	}
	h := sanitize.Line(u.Hostname())
	return h, strings.Contains(strings.ToLower(h), "xn--")
}

func (f *form) view(st *themes.Styles, width int) string {
	inner := max(width-4, 10)
	r := f.req
	if r.URL != "" {
		return st.Dialog.Width(width).Render(strings.Join(f.urlLines(st, width), "\n"))
	}
	lines := f.messageLines(st, inner, " asks: ")
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
		switch {
		case len(fd.Options) > 0 && fd.Type == "array":
			// Several are typed, comma separated: "Tuna | Salmon | Trout"
			// read as one choice, and "Tuna Salmon" was refused.
			hint = "comma separated: " + sanitize.Line(strings.Join(fd.Options, ", "))
		case len(fd.Options) > 0:
			// The server's labels are its text: sanitised like the rest.
			hint = sanitize.Line(strings.Join(fd.Options, " | "))
		case fd.Type == "boolean":
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
	// ←/→ is said where it works: on a single choice or a yes/no.
	choose := ""
	if f.cur < len(r.Fields) {
		if fd := r.Fields[f.cur]; fd.Type == "boolean" || (len(fd.Options) > 0 && fd.Type != "array") {
			choose = st.HelpKey.Render("←/→") + st.HelpDesc.Render(" choose  ")
		}
	}
	lines = append(lines, ansi.Truncate(st.HelpKey.Render("tab")+st.HelpDesc.Render(" next field  ")+choose+
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
		switch {
		case s == "o" || s == "O":
			if f.req.Open == nil {
				f.err = "cannot open a browser here: open the link yourself"
				return false, nil
			}
			if err := f.req.Open(f.req.URL); err != nil {
				f.err = "could not open a browser: " + err.Error() + "; open the link yourself"
				return false, nil
			}
			if !f.req.Retry {
				return reply("accept", nil)
			}
			f.opened, f.err = true, ""
		case (s == "y" || s == "Y") && !f.req.Retry, s == "enter" && f.req.Retry:
			return reply("accept", nil)
		case s == "n" || s == "N":
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
