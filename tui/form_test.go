package tui

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func typed(s string) []tea.KeyPressMsg {
	var out []tea.KeyPressMsg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

func TestFormFillAcceptDeclineCancel(t *testing.T) {
	intParse := func(s string) (any, bool, error) {
		if s == "" {
			return nil, false, nil
		}
		n, err := strconv.Atoi(s)
		return n, err == nil, err
	}
	str := func(s string) (any, bool, error) { return s, s != "", nil }
	fields := []FormField{
		{Name: "name", Label: "Name", Type: "string", Required: true, Parse: str},
		{Name: "age", Label: "Age", Type: "integer", Default: "30", Parse: intParse},
		{Name: "ok", Label: "Agree", Type: "boolean", Parse: func(s string) (any, bool, error) { return s == "yes", s != "", nil }},
	}
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	for _, tt := range []struct {
		name    string
		keys    []tea.KeyPressMsg
		action  string
		content map[string]any
	}{
		{"accept", append(append(typed("Ada"), enter, enter, tea.KeyPressMsg{Code: tea.KeySpace}), enter), "accept",
			map[string]any{"name": "Ada", "age": 30, "ok": true}},
		// enter on the last field with a required field empty stays in the form.
		{"required", []tea.KeyPressMsg{enter, enter, enter, {Code: 'd', Mod: tea.ModCtrl}}, "decline", nil},
		{"cancel", []tea.KeyPressMsg{{Code: tea.KeyEscape}}, "cancel", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var action string
			var content map[string]any
			f := newForm(FormRequest{Server: "s", Message: "m", Fields: fields, Reply: func(a string, c map[string]any) { action, content = a, c }})
			for _, k := range tt.keys {
				if done, cmd := f.key(k); done {
					cmd()
					break
				}
			}
			if action != tt.action {
				t.Fatalf("action %q, want %q (err %q)", action, tt.action, f.err)
			}
			if len(content) != len(tt.content) {
				t.Fatalf("content %v, want %v", content, tt.content)
			}
			for k, v := range tt.content {
				if content[k] != v {
					t.Errorf("%s = %v, want %v", k, content[k], v)
				}
			}
		})
	}
}

// A URL elicitation shows the whole URL (wrapped, never cut) and its host
// apart, flags a punycode host, opens the browser only on o, and a form a
// tool call waits on (Retry) accepts with enter ("done, retry now"); its
// Done withdraws it unanswered.
func TestFormURL(t *testing.T) {
	long := "https://xn--bnk-sna.example/connect?elicitationId=" + strings.Repeat("0123456789", 8)
	m, _, _ := newTestModel(t, &fakeBackend{}, 60, 30, Options{})
	var opened []string
	var action string
	done := make(chan struct{})
	_, cmd := m.Update(formMsg{Req: FormRequest{Server: "bank", Message: "Link your account.", URL: long, Retry: true, Done: done,
		Open:  func(u string) error { opened = append(opened, u); return nil },
		Reply: func(a string, _ map[string]any) { action = a }}})
	if cmd == nil {
		t.Fatal("a form with Done gives no command to wait for it")
	}
	out := ansi.Strip(frame(m))
	joined := strings.NewReplacer("\n", "", "║", "", " ", "").Replace(out)
	if !strings.Contains(joined, long) {
		t.Errorf("the whole URL is not on screen:\n%s", out)
	}
	for _, want := range []string{"site: xn--bnk-sna.example", "punycode", "o open in browser", "enter done, retry now"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on screen:\n%s", want, out)
		}
	}
	m.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})
	if len(opened) != 1 || opened[0] != long || action != "" {
		t.Fatalf("o: opened %v, answered %q (a retry form stays until enter)", opened, action)
	}
	if !strings.Contains(ansi.Strip(frame(m)), "opened; the call is retried") {
		t.Errorf("no waiting line after o:\n%s", ansi.Strip(frame(m)))
	}
	close(done)
	m.Update(cmd())
	if len(m.forms) != 0 || action != "" {
		t.Fatalf("Done did not withdraw the form (%d left, action %q)", len(m.forms), action)
	}

	// Not a retry: y accepts without opening anything; enter does nothing.
	m.Update(formMsg{Req: FormRequest{Server: "bank", Message: "m", URL: "https://bank.example/x",
		Open: func(u string) error { opened = append(opened, u); return nil }, Reply: func(a string, _ map[string]any) { action = a }}})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if action != "" {
		t.Fatalf("enter answered a URL form: %q", action)
	}
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"}); cmd != nil {
		cmd()
	}
	if action != "accept" || len(opened) != 1 || len(m.forms) != 0 {
		t.Errorf("y: action %q, opened %v, forms %d", action, opened, len(m.forms))
	}
}

// A form says how each kind of field is answered, at 80 columns: a
// multiple choice is typed comma separated (its choices read "Tuna |
// Salmon | Trout", like one to pick, and "Tuna Salmon" was refused), ←/→
// is offered where it works (a single choice, a yes/no), and the
// server's choice labels reach the terminal sanitised.
func TestFormChoiceHints(t *testing.T) {
	fields := []FormField{
		{Name: "fish", Label: "Fish", Type: "array", Options: []string{"Tuna", "Salmon", "Trout"}},
		{Name: "hero", Label: "Hero", Type: "string", Options: []string{"Superman", "Bat\x1b]52;c;aGk=\x07man"}},
		{Name: "ok", Label: "Agree", Type: "boolean"},
		{Name: "name", Label: "Name", Type: "string"},
	}
	for _, tc := range []struct {
		tabs   int
		choose bool
	}{{0, false}, {1, true}, {2, true}, {3, false}} {
		t.Run(fields[tc.tabs].Name, func(t *testing.T) {
			m, _, _ := newTestModel(t, &fakeBackend{}, 80, 30, Options{})
			m.Update(formMsg{Req: FormRequest{Server: "s", Message: "m", Fields: fields, Reply: func(string, map[string]any) {}}})
			for range tc.tabs {
				m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
			}
			raw := m.View().Content
			if strings.Contains(raw, "]52;") {
				t.Error("a choice label's escape sequence (OSC 52, a clipboard write) reached the screen")
			}
			f := frame(m)
			if !strings.Contains(f, "comma separated: Tuna, Salmon, Trout") {
				t.Errorf("the multiple choice does not say it is typed comma separated:\n%s", f)
			}
			if got := strings.Contains(f, "←/→ choose"); got != tc.choose {
				t.Errorf("←/→ offered %v on %s, want %v:\n%s", got, fields[tc.tabs].Name, tc.choose, f)
			}
		})
	}
}

// A form's question wraps instead of being cut to one line: at 80
// columns server-everything's simulate-research-query asked 'The
// research query "bees" could have multiple i…', and the rest, what to
// answer, was lost. The box is as tall as its rows say (the layout
// reserves that height), and a very long message still ends in "…".
func TestFormQuestionWraps(t *testing.T) {
	const q = `The research query "bees" could have multiple interpretations. Please clarify which perspective you want the research to take.`
	const why = "Please sign in to the example service to link your account with the everything server so it can continue"
	for _, tc := range []struct {
		name, message, url string
		want               []string
	}{
		{"a long question", q, "", []string{"interpretations. Please clarify which perspective", "║ take."}},
		{"an endless one", strings.Repeat("word ", 200), "", []string{"…"}},
		// A link to open says why, whole: it was cut at "Please sign in
		// to the exampl…".
		{"why to open a link", why, "https://example.com/connect", []string{"so it can continue", "site: example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := newTestModel(t, &fakeBackend{}, 80, 30, Options{})
			req := FormRequest{Server: "everything", Message: tc.message, URL: tc.url, Reply: func(string, map[string]any) {}}
			if tc.url == "" {
				req.Fields = []FormField{{Name: "c", Label: "Clarification", Type: "string", Required: true}}
			}
			m.Update(formMsg{Req: req})
			f := frame(m)
			for _, w := range tc.want {
				if !strings.Contains(f, w) {
					t.Errorf("%q is not on screen:\n%s", w, f)
				}
			}
			box := 0
			for _, l := range strings.Split(f, "\n") {
				if strings.HasPrefix(l, "║") || strings.HasPrefix(l, "╔") || strings.HasPrefix(l, "╚") {
					box++
				}
			}
			if rows := m.forms[0].rows(80); box != rows || box > 9 {
				t.Errorf("the box is %d rows, its rows() say %d (at most 9: borders, 4 of question, the field, the keys):\n%s", box, rows, f)
			}
		})
	}
}
