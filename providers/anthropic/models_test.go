package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

func TestNativeSearchModels(t *testing.T) {
	cases := map[string]bool{
		"claude-haiku-4-5":                          true,
		"claude-haiku-4-5-20251001":                 true,
		"claude-sonnet-4-5":                         true,
		"claude-sonnet-4-5-20250929":                true,
		"claude-opus-4-5-20251101":                  true,
		"claude-sonnet-4-6":                         true,
		"claude-opus-4-7":                           true,
		"claude-opus-4-8":                           true,
		"claude-sonnet-5":                           true,
		"claude-sonnet-5-5":                         true,
		"claude-fable-5":                            true,
		"claude-mythos-5-1":                         true,
		"claude-haiku-5-5-latest":                   true,
		"anthropic.claude-sonnet-4-5-20250929-v1:0": true,
		"claude-sonnet-4-5@20250929":                true,
		"claude-opus-4-1-20250805":                  false,
		"claude-opus-4-1":                           false,
		"claude-opus-4-20250514":                    false,
		"claude-sonnet-4-20250514":                  false,
		"claude-sonnet-4-0":                         false,
		"claude-3-7-sonnet-20250219":                false,
		"claude-3-5-haiku-20241022":                 false,
		"claude-3-haiku-20240307":                   false,
		"gpt-5.4":                                   false,
		"":                                          false,
	}
	p := New(Options{})
	for m, want := range cases {
		if got := p.NativeSearch(m); got != want {
			t.Errorf("NativeSearch(%q) = %v, want %v", m, got, want)
		}
	}
	o := New(Options{NativeModels: map[string]bool{"my-proxy-model": true, "claude-sonnet-4-5": false}})
	if !o.NativeSearch("my-proxy-model") || o.NativeSearch("claude-sonnet-4-5") {
		t.Error("NativeModels does not override the table")
	}
}

func TestValidateProviderTools(t *testing.T) {
	cases := []struct {
		name string
		pts  []agent.ProviderTool
		err  string
	}{
		{"aliases", []agent.ProviderTool{{Alias: "web_search"}, {Alias: "web_fetch"}, {Alias: "code_execution"}}, ""},
		{"unknown alias", []agent.ProviderTool{{Alias: "image_generation"}}, `"image_generation" is not supported by anthropic: available aliases are code_execution, mcp, web_fetch, web_search`},
		{"options not object", []agent.ProviderTool{{Alias: "web_search", Options: json.RawMessage(`[1]`)}}, "options must be a JSON object"},
		{"mcp without url", []agent.ProviderTool{{Alias: "mcp", Options: json.RawMessage(`{"name":"x"}`)}}, `need "name" and "url"`},
		{"mcp approval", []agent.ProviderTool{{Alias: "mcp", Options: json.RawMessage(`{"name":"x","url":"https://x","require_approval":"always"}`)}}, "cannot ask for approval"},
		{"mcp never", []agent.ProviderTool{{Alias: "mcp", Options: json.RawMessage(`{"name":"x","url":"https://x","require_approval":"never"}`)}}, ""},
		{"raw", []agent.ProviderTool{{Raw: json.RawMessage(`{"type":"tool_search_tool_regex_20251119","name":"tool_search_tool_regex"}`)}}, ""},
		{"raw without type", []agent.ProviderTool{{Raw: json.RawMessage(`{"name":"x"}`)}}, `needs a "type"`},
	}
	for _, c := range cases {
		err := ValidateProviderTools(c.pts)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.err)
		}
	}
}
