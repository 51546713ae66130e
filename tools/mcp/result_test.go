package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func TestConvertResult(t *testing.T) {
	tests := []struct {
		name     string
		wire     string
		limit    int
		text     string
		images   int
		isError  bool
		contains string
	}{
		{name: "text parts joined", wire: `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, text: "a\nb"},
		{name: "isError", wire: `{"content":[{"type":"text","text":"bad"}],"isError":true}`, text: "bad", isError: true},
		{name: "structured only", wire: `{"content":[],"structuredContent":{"b": 1, "a": [true]}}`, text: `{"b":1,"a":[true]}`},
		{name: "structured ignored when text exists", wire: `{"content":[{"type":"text","text":"t"}],"structuredContent":{"x":1}}`, text: "t"},
		{name: "audio noted", wire: `{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}`, text: "[audio audio/wav, 3 bytes: not shown]"},
		{name: "resource link", wire: `{"content":[{"type":"resource_link","uri":"file:///x","name":"x","description":"the x"}]}`, text: "[resource link file:///x (x): the x]"},
		{name: "image blob resource attached", wire: `{"content":[{"type":"resource","resource":{"uri":"file:///p.png","mimeType":"image/png","blob":"iVBO"}}]}`,
			text: "[resource file:///p.png: image image/png, attached]", images: 1},
		{name: "empty", wire: `{"content":[]}`, text: ""},
		{name: "truncated on a rune boundary", wire: `{"content":[{"type":"text","text":"ééééé"}]}`, limit: 5,
			text: "éé\n\n[output truncated: the tool returned 10 bytes; only the first 4 are shown]"},
		{name: "image budget", wire: `{"content":[{"type":"image","data":"` + strings.Repeat("A", maxImageBytes+4) + `","mimeType":"image/png"}]}`,
			contains: "image omitted: image/png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r mcpgo.CallToolResult
			if err := json.Unmarshal([]byte(tt.wire), &r); err != nil {
				t.Fatal(err)
			}
			got := convertResult(&r, tt.limit)
			if tt.contains != "" {
				if !strings.Contains(got.Text, tt.contains) || len(got.Images) != 0 {
					t.Errorf("got %q with %d images", got.Text[:min(len(got.Text), 200)], len(got.Images))
				}
				return
			}
			if got.Text != tt.text || len(got.Images) != tt.images || got.IsError != tt.isError {
				t.Errorf("got %q images=%d isError=%v, want %q images=%d isError=%v", got.Text, len(got.Images), got.IsError, tt.text, tt.images, tt.isError)
			}
		})
	}
}
