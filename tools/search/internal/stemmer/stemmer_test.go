package stemmer

import (
	"strings"
	"testing"
)

// Cases from Porter's paper and the ones the working buffer must handle:
// words longer than it, rules that put a letter back (filing -> file,
// -bled -> -ble), a stem that is not the word cut short (happy -> happi).
var porterCases = []struct{ in, want string }{
	{"caresses", "caress"}, {"ponies", "poni"}, {"cats", "cat"}, {"feed", "feed"},
	{"agreed", "agre"}, {"plastered", "plaster"}, {"motoring", "motor"}, {"sing", "sing"},
	{"conflated", "conflat"}, {"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"},
	{"falling", "fall"}, {"filing", "file"}, {"failing", "fail"}, {"happy", "happi"},
	{"relational", "relat"}, {"conditional", "condit"}, {"digitizer", "digit"},
	{"generalizations", "gener"}, {"electrical", "electr"}, {"hopefulness", "hope"},
	{"revival", "reviv"}, {"adjustable", "adjust"}, {"controlling", "control"},
	{"news", "news"}, {"a", "a"}, {"go", "go"}, {"straße", "straße"}, {"Files", "Files"},
	{strings.Repeat("long", 10) + "ational", strings.Repeat("long", 10)},
	{strings.Repeat("long", 10) + "bled", strings.Repeat("long", 10) + "bl"},
	{strings.Repeat("ab", 20) + "izing", strings.Repeat("ab", 20)},
	{strings.Repeat("x", 40) + "ing", strings.Repeat("x", 40) + "ing"}, // no vowel: kept
}

func TestPorter(t *testing.T) {
	for _, tt := range porterCases {
		if got := Porter(tt.in); got != tt.want {
			t.Errorf("Porter(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestS(t *testing.T) {
	for in, want := range map[string]string{
		"queries": "query", "files": "file", "status": "status", "class": "class",
		"heroes": "heroe", "bus": "bus", "as": "as",
	} {
		if got := S(in); got != want {
			t.Errorf("S(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkPorter stems the cases' words: an index stems each distinct
// word of a catalog once.
func BenchmarkPorter(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, tt := range porterCases {
			Porter(tt.in)
		}
	}
}
