package sanitize

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "hello\n\tworld é 日本", "hello\n\tworld é 日本"},
		{"osc52 clipboard", "a\x1b]52;c;ZWNobyBwd25lZA==\x07b", "ab"},
		{"osc52 with ST", "a\x1b]52;c;ZWNobw==\x1b\\b", "ab"},
		{"title", "\x1b]0;pwned\x07x", "x"},
		{"clear screen", "\x1b[2J\x1b[Hx", "x"},
		{"colour", "\x1b[1;31mred\x1b[0m", "red"},
		{"osc8 link", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"reset", "a\x1bcb", "ab"},
		{"charset", "a\x1b(Bb", "ab"},
		{"8-bit csi", "a\u009b2Jb", "ab"},
		{"8-bit osc", "a\u009d0;t\u0007b", "ab"},
		{"bell visible", "ding\x07", "ding␇"},
		{"backspace visible", "a\bb", "a␈b"},
		{"del visible", "a\x7fb", "a␡b"},
		{"carriage return", "safe\rEVIL\r\n", "safeEVIL\n"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"unterminated osc stops at newline", "a\x1b]0;title\nnext", "a\nnext"},
		{"lone esc at end", "a\x1b", "a"},
		{"esc then control", "a\x1b\x07b", "a␇b"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("%s: Text(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestWriterAcrossWrites(t *testing.T) {
	in := "x\x1b]52;c;ZWNobyBwd25lZA==\x07y\x1b[2Jz日本\x1b]8;;http://e\x1b\\w"
	want := "xyz日本w"
	// Every split point, including inside escape sequences and characters.
	for i := 0; i <= len(in); i++ {
		var b bytes.Buffer
		w := NewWriter(&b)
		_, _ = w.Write([]byte(in[:i]))
		_, _ = w.Write([]byte(in[i:]))
		_ = w.Flush()
		if b.String() != want {
			t.Fatalf("split at %d: %q", i, b.String())
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b[2J"); got != "a b c" {
		t.Fatalf("Line = %q", got)
	}
}

func FuzzText(f *testing.F) {
	f.Add("\x1b]52;c;x\x07\x1b[2J\u009b")
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if strings.ContainsRune(got, 0x1b) || strings.ContainsRune(got, 0x9b) || strings.ContainsRune(got, 0x9d) || strings.ContainsRune(got, '\r') || !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q", s, got)
		}
		for _, r := range got {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) {
				t.Fatalf("control %U left in %q", r, got)
			}
		}
	})
}
