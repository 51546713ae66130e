package search

import (
	"slices"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"getUserByID", "get user by id"},
		{"get_user_by_id", "get user by id"},
		{"get-user.by.id", "get user by id"},
		{"GetUserById", "get user by id"},
		{"HTTPServer parseJSON", "http server parse json"},
		{"word_cloud2 v2beta", "word cloud 2 v 2 beta"},
		{"  ", ""},
		{"Ünïcode Straße", "ünïcode straße"},
		{"中文必应", "中文 文必 必应"},
		{"a 中 b", "a 中 b"},
		{strings.Repeat("x", 41) + " ok", "ok"},
	}
	for _, tt := range tests {
		var got []string
		words(tt.in, func(w []byte) { got = append(got, string(w)) })
		if strings.Join(got, " ") != tt.want {
			t.Errorf("words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStem(t *testing.T) {
	tests := map[string]string{
		"creating": "creat", "creates": "creat", "created": "creat", "create": "creat",
		"searches": "search", "running": "run", "files": "file", "geocoding": "geocod",
		"relational": "relat", "a": "a", "go": "go", "straße": "straße",
	}
	for in, want := range tests {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnalyzerTerms(t *testing.T) {
	a := newAnalyzer("porter")
	var got []string
	a.terms("Please list the open pull requests of the repository", func(s string) { got = append(got, s) })
	want := []string{"list", "open", "pull", "request", "repositori"}
	if !slices.Equal(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
	got = nil
	a.joins("word_cloud of 2 screen shots", func(s string) { got = append(got, s) })
	if want := []string{"wordcloud", "screenshot"}; !slices.Equal(got, want) {
		t.Errorf("joins = %q, want %q", got, want)
	}
}

func TestSchemaText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", ``, ``},
		{"not json", `{"properties": {"a": `, "a"},
		{"flat", `{"type":"object","description":"top","properties":{"query":{"type":"string","description":"Search \"terms\""},"limit":{"type":"number","default":"ignored"}},"required":["query"]}`,
			"top query Search \"terms\" limit"},
		{"nested and enum", `{"properties":{"opts":{"type":"object","properties":{"format":{"enum":["pdf","docx"]}}},"items":{"type":"array","items":{"properties":{"uid":{"title":"Element"}}}}}}`,
			"opts format pdf docx items uid Element"},
		{"property named description", `{"properties":{"description":{"type":"string","description":"The text"}}}`,
			"description The text"},
		{"escaped backslash before the quote", `{"properties":{"p":{"description":"a dir\\"},"q":{"title":"say \"hi\" \\ ok"}}}`,
			`p a dir\ q say "hi" \ ok`},
		{"unicode escapes", `{"properties":{"q":{"description":"\u641c\u7d22"}}}`, "q 搜索"},
		{"bools and nulls", `{"additionalProperties":false,"properties":{"x":true,"y":null}}`, "x y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(strings.Fields(schemaText([]byte(tt.in))), " ")
			if got != tt.want {
				t.Errorf("schemaText = %q, want %q", got, tt.want)
			}
		})
	}
}
