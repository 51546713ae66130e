package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCases = []string{
	`{}`, `[]`, ` {"a" : [1, -2.5e+3, 0, 0.0, 1E9, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]} `,
	`"plain"`, `0`, `-0`, `1.5`, "\"\xff\xfe bytes that are not UTF-8\"", "\t\r\n[ ]\n",
	// invalid
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `[1 2]`,
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `tru`, `truex`, `nul`, `[true false]`, `"abc`, `"\x"`, `"\u12"`,
	`"\u12g4"`, "\"a\x01b\"", `{} {}`, `1 2`, `"\`, `[`, `[[]`, `{"a":[}`, `NaN`, `"\U0041"`,
}

// Valid gives json.Valid's answer.
func TestValidAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("%q: Valid %v, json.Valid %v", c, got, want)
		}
	}
	for _, depth := range []int{maxDepth, maxDepth + 1} {
		deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		if got, want := Valid([]byte(deep)), json.Valid([]byte(deep)); got != want {
			t.Errorf("%d nested arrays: Valid %v, json.Valid %v", depth, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Errorf("%q: Valid %v, json.Valid %v", b, got, want)
		}
	})
}

func TestEachMemberAndElem(t *testing.T) {
	t.Parallel()
	var got []string
	EachMember([]byte(` { "a" : 1 , "b\"c":{"x":[1,"]"]}, "d":"}" } `[1:]), func(k, v []byte) bool {
		got = append(got, string(k)+"="+string(v))
		return true
	})
	if want := `a=1|b\"c={"x":[1,"]"]}|d="}"`; strings.Join(got, "|") != want {
		t.Errorf("members %q, want %q", strings.Join(got, "|"), want)
	}
	got = got[:0]
	EachElem([]byte(`[ 1 ,"a,b", [2,3] ,{"k":"]"},true]`), func(v []byte) bool {
		got = append(got, string(v))
		return len(got) < 4
	})
	if want := `1|"a,b"|[2,3]|{"k":"]"}`; strings.Join(got, "|") != want {
		t.Errorf("elements %q, want %q (stopping after four)", strings.Join(got, "|"), want)
	}
}

// BenchmarkValid compares Valid with json.Valid on a tools/list-like
// document.
func BenchmarkValid(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 300 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"name":"tool","description":"Does a thing with the \"input\" it is given, and returns it.","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"the query"},"n":{"type":"integer","minimum":1,"maximum":100}},"required":["q"]}}`)
	}
	sb.WriteString("]")
	doc := []byte(sb.String())
	b.Run("rawjson", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if !Valid(doc) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if !json.Valid(doc) {
				b.Fatal("invalid")
			}
		}
	})
}

// plainRunNaive is PlainRun a byte at a time.
func plainRunNaive(b []byte, i int) int {
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			break
		}
	}
	return i
}

// PlainRun stops at the first quote, backslash or control byte, wherever
// it falls in the eight bytes read at once, among bytes of every value.
func TestPlainRun(t *testing.T) {
	t.Parallel()
	for _, fill := range []byte{'a', 0x7f, 0x80, 0xe9, 0xff, ' ', '!', '#', '[', ']'} {
		for c := range 256 {
			for n := range 20 {
				for at := range n + 1 {
					b := []byte(strings.Repeat(string([]byte{fill}), n))
					if at < n {
						b[at] = byte(c)
					}
					for from := range min(n, 3) + 1 {
						if got, want := PlainRun(b, from), plainRunNaive(b, from); got != want {
							t.Fatalf("%q from %d: PlainRun %d, want %d", b, from, got, want)
						}
					}
				}
			}
		}
	}
}

func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`abcdefgh"ijklmnop`), 0)
	f.Add([]byte("\xff\xfe\x80\x1f\\"), 1)
	f.Fuzz(func(t *testing.T, b []byte, from int) {
		if from < 0 || from > len(b) {
			return
		}
		if got, want := PlainRun(b, from), plainRunNaive(b, from); got != want {
			t.Errorf("%q from %d: PlainRun %d, want %d", b, from, got, want)
		}
	})
}

// ValidObject is Valid for an object, and passes the members EachMember
// finds.
func TestValidObject(t *testing.T) {
	t.Parallel()
	for _, c := range append(validCases, `{"a":1,"b\"c":{"x":[1,"]"]},"d":"}"}`, ` { "k" : [ ] , "k" : null } `, `{"a":1`, `{"a":{"b":[}}`, `{"a" 1}`, `{} x`, `{"\u0041":true}`) {
		checkValidObject(t, []byte(c))
	}
}

func FuzzValidObject(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":1,"b":{"c":[true,null,"x\"y"]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkValidObject(t, b)
	})
}

func checkValidObject(t *testing.T, b []byte) {
	t.Helper()
	var got []string
	ok := ValidObject(b, func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
	i := SkipSpace(b, 0)
	want := json.Valid(b) && b[i] == '{'
	if ok != want {
		t.Fatalf("%q: ValidObject %v, want %v", b, ok, want)
	}
	if !ok {
		return
	}
	var members []string
	EachMember(b[i:], func(k, v []byte) bool {
		members = append(members, string(k)+"="+string(v))
		return true
	})
	if strings.Join(got, "\x00") != strings.Join(members, "\x00") {
		t.Fatalf("%q: members %q, EachMember %q", b, got, members)
	}
}

// SkipValue ends a valid value where it ends, strings with escapes and
// brackets in them included.
func FuzzSkipValue(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":["]\"}",{"b":"\\"}],"c":"{"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		end := len(strings.TrimRight(string(b), " \t\r\n"))
		if got := SkipValue(b, SkipSpace(b, 0)); got != end {
			t.Errorf("%q: SkipValue %d, want %d", b, got, end)
		}
	})
}
