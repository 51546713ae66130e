package agent

import (
	"encoding/json"
	"testing"
)

// "content" is in an elicitation event exactly when a form was accepted:
// {} for a form accepted with no defaults, never for a decline or a URL.
func TestElicitationEventContent(t *testing.T) {
	for _, tt := range []struct {
		name string
		ev   ElicitationEvent
		want string // "" for no content
	}{
		{"form accepted with defaults", ElicitationEvent{Mode: "form", Action: "accept", Content: map[string]any{"n": 2}}, `{"n":2}`},
		{"form accepted without defaults", ElicitationEvent{Mode: "form", Action: "accept"}, `{}`},
		{"form accepted, empty content", ElicitationEvent{Mode: "form", Action: "accept", Content: map[string]any{}}, `{}`},
		{"form declined", ElicitationEvent{Mode: "form", Action: "decline"}, ""},
		{"url accepted", ElicitationEvent{Mode: "url", URL: "https://example.com", Action: "accept"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(Event{Type: EventElicitation, Elicitation: &tt.ev})
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Elicitation map[string]json.RawMessage `json:"elicitation"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			c, ok := got.Elicitation["content"]
			if tt.want == "" && ok || tt.want != "" && string(c) != tt.want {
				t.Errorf("content %s (present %v), want %q: %s", c, ok, tt.want, b)
			}
			if string(got.Elicitation["action"]) != `"`+tt.ev.Action+`"` {
				t.Errorf("action lost: %s", b)
			}
		})
	}
}
