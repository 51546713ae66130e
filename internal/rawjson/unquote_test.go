package rawjson

import (
	"encoding/json"
	"testing"
)

var unquoteCases = []string{
	`""`, `"plain"`, `"tab\there"`, `"a \"quoted\" word\n"`, `"\\ \/ \b \f \r"`, `"\u00e9t\u00C9"`,
	`"\ud83d\ude00 pair"`, `"\ud83d alone"`, `"\ude00 low alone"`, `"\ud83d\u0041 then A"`, `"\ud83d\ud83d twice"`,
	"\"\xff\xfe not UTF-8 \\n after\"", "\"caf\xc3\xa9 \\\"\"", "\"\xe2\x82 cut rune\\t\"", `"long run before an escape: aaaaaaaaaaaaaaaaaaaaaaaa\n"`,
	// invalid
	`"\x"`, `"\u12"`, `"\u12g4"`, "\"a\x01b\"", `"a"b"`, `"\`, `"`, `x`, `"\'"`,
}

// Unquote gives what json.Unmarshal makes of a JSON string.
func TestUnquoteAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, c := range unquoteCases {
		checkUnquote(t, []byte(c))
	}
}

func FuzzUnquote(f *testing.F) {
	for _, c := range unquoteCases {
		f.Add([]byte(c[1:max(1, len(c)-1)]))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkUnquote(t, append(append([]byte{'"'}, b...), '"'))
	})
}

func checkUnquote(t *testing.T, q []byte) {
	t.Helper()
	var want string
	err := json.Unmarshal(q, &want)
	got, ok := Unquote(q)
	switch {
	case err == nil && (!ok || string(got) != want):
		t.Errorf("%q: Unquote %q %v, json.Unmarshal %q", q, got, ok, want)
	case err != nil && ok && json.Valid(q):
		t.Errorf("%q: Unquote %q, json.Unmarshal failed: %v", q, got, err)
	}
}
