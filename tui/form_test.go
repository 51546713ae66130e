package tui

import (
	"strconv"
	"testing"

	tea "charm.land/bubbletea/v2"
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
