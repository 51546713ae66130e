// Package sanitize makes untrusted text (model output, tool results, MCP
// descriptions, provider error messages) safe to print on a terminal.
//
// Escape sequences are removed whole: CSI (ESC [ … and 8-bit CSI), OSC
// (clipboard writes with OSC 52, window titles, OSC 8 links), DCS, SOS, PM,
// APC and two-byte escapes such as ESC c (reset). Other control characters
// are made visible as Unicode control pictures (BEL becomes ␇), carriage
// returns are dropped (so a line cannot be overwritten), invalid UTF-8
// becomes U+FFFD, and newlines and tabs are kept. JSON output needs none of
// this: encoding/json escapes control characters itself.
package sanitize

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// Text returns s safe for a terminal.
func Text(s string) string {
	if clean(s) {
		return s
	}
	var b bytes.Buffer
	w := NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Flush()
	return b.String()
}

// Line is Text on one line: newlines and tabs become spaces, for table
// cells and one-line messages.
func Line(s string) string {
	s = Text(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", " ", "\t", " ").Replace(s)
	}
	return s
}

// clean reports whether s is printable as is: valid UTF-8 with no control
// character but newline and tab.
func clean(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) {
			return false
		}
	}
	return true
}

type state int

const (
	normal   state = iota
	esc            // after ESC
	escInter       // ESC followed by intermediate bytes, waiting for the final one
	csi            // inside a control sequence
	str            // inside OSC, DCS, SOS, PM or APC, until BEL or ST
	strEsc         // ESC inside a string: ST if "\" follows
)

// Writer sanitises text written to it in pieces: a sequence split across
// writes (a stream's deltas) is still removed whole. Call Flush at the end.
type Writer struct {
	w       io.Writer
	st      state
	pending []byte // an incomplete UTF-8 character
	out     []byte
}

// NewWriter returns a Writer printing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write sanitises p and writes the result. It reports len(p) on success.
func (s *Writer) Write(p []byte) (int, error) {
	s.out = s.out[:0]
	data := p
	if len(s.pending) > 0 {
		data = append(append([]byte(nil), s.pending...), p...)
		s.pending = s.pending[:0]
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 && !utf8.FullRune(data[i:]) {
			s.pending = append(s.pending, data[i:]...)
			break
		}
		s.rune(r, n == 1 && r == utf8.RuneError)
		i += n
	}
	if len(s.out) > 0 {
		if _, err := s.w.Write(s.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes an incomplete character left at the end as U+FFFD and ends
// any open sequence.
func (s *Writer) Flush() error {
	s.out = s.out[:0]
	for range s.pending {
		s.rune(utf8.RuneError, true)
	}
	s.pending = s.pending[:0]
	s.st = normal
	if len(s.out) == 0 {
		return nil
	}
	_, err := s.w.Write(s.out)
	return err
}

func (s *Writer) rune(r rune, invalid bool) {
	switch s.st {
	case esc:
		switch {
		case r == '[':
			s.st = csi
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			s.st = str
		case r >= 0x20 && r <= 0x2f:
			s.st = escInter
		case r >= 0x30 && r <= 0x7e:
			s.st = normal // a two-byte escape, dropped
		default:
			s.st = normal
			s.rune(r, invalid)
		}
		return
	case escInter:
		switch {
		case r >= 0x20 && r <= 0x2f:
		case r >= 0x30 && r <= 0x7e:
			s.st = normal
		default:
			s.st = normal
			s.rune(r, invalid)
		}
		return
	case csi:
		switch {
		case r >= 0x20 && r <= 0x3f:
		case r >= 0x40 && r <= 0x7e:
			s.st = normal
		default:
			s.st = normal
			s.rune(r, invalid)
		}
		return
	case str:
		switch r {
		case 0x07, 0x9c:
			s.st = normal
		case 0x1b:
			s.st = strEsc
		case '\n':
			// Terminals would swallow everything up to a terminator; text
			// after a line break is shown rather than lost.
			s.st = normal
			s.out = append(s.out, '\n')
		}
		return
	case strEsc:
		s.st = normal
		if r != '\\' {
			s.rune(r, invalid)
		}
		return
	}
	switch {
	case invalid:
		s.out = utf8.AppendRune(s.out, utf8.RuneError)
	case r == '\n' || r == '\t':
		s.out = append(s.out, byte(r))
	case r == '\r':
	case r == 0x1b:
		s.st = esc
	case r == 0x9b:
		s.st = csi
	case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
		s.st = str
	case r < 0x20:
		s.out = utf8.AppendRune(s.out, 0x2400+r)
	case r == 0x7f:
		s.out = utf8.AppendRune(s.out, 0x2421)
	case r >= 0x80 && r < 0xa0:
		s.out = utf8.AppendRune(s.out, utf8.RuneError)
	default:
		s.out = utf8.AppendRune(s.out, r)
	}
}
