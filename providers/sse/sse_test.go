package sse

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// readAll reads events until an error; io.EOF is the clean end.
func readAll(r *Reader) ([]Event, error) {
	var out []Event
	for {
		ev, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func ev(name, data, id string) Event { return Event{Name: name, Data: []byte(data), ID: id} }

// The cases follow the WHATWG HTML standard, §9.2.5 "Parsing an event
// stream" and §9.2.6 "Interpreting an event stream", with the one
// documented difference (a complete last event without its blank line).
var cases = []struct {
	name, in string
	want     []Event
	err      error // after the events; io.EOF for a clean end
}{
	{"empty stream", "", nil, io.EOF},
	{"one event", "data: hello\n\n", []Event{ev("", "hello", "")}, io.EOF},
	{"named events", "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\n",
		[]Event{ev("add", "73857293", ""), ev("remove", "2153", "")}, io.EOF},
	{"multi-line data joined with LF", "data: first\ndata: second\ndata: third\n\n", []Event{ev("", "first\nsecond\nthird", "")}, io.EOF},
	{"one space after the colon is dropped, no more", "data:x\n\ndata:  x\n\n", []Event{ev("", "x", ""), ev("", " x", "")}, io.EOF},
	{"colon in the value is kept", "data: {\"a\":1}\n\n", []Event{ev("", `{"a":1}`, "")}, io.EOF},
	// The standard's own example: two events ("" and "\n"), the third
	// line never ends.
	{"field without colon; the spec's example", "data\n\ndata\ndata\n\ndata:", []Event{ev("", "", ""), ev("", "\n", "")}, io.ErrUnexpectedEOF},
	{"comments are skipped", ": this is a comment\ndata: x\n: another\n\n", []Event{ev("", "x", "")}, io.EOF},
	{"keep-alives between events", ":\n\n\n: ping\n\ndata: a\n\n\n\n:keep-alive\n\ndata: b\n\n", []Event{ev("", "a", ""), ev("", "b", "")}, io.EOF},
	{"CRLF", "event: a\r\ndata: b\r\ndata: c\r\n\r\n", []Event{ev("a", "b\nc", "")}, io.EOF},
	{"lone CR", "event: a\rdata: b\rdata: c\r\r", []Event{ev("a", "b\nc", "")}, io.EOF},
	{"mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", []Event{ev("", "a\nb\nc", "")}, io.EOF},
	{"CR then LF is one line end, LF then CR two", "data: a\n\rdata: b\r\n\n", []Event{ev("", "a", ""), ev("", "b", "")}, io.EOF},
	{"id carries over to later events", "id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n",
		[]Event{ev("", "a", "1"), ev("", "b", "1"), ev("", "c", "2")}, io.EOF},
	{"an empty id resets it", "id: 7\ndata: a\n\nid\ndata: b\n\n", []Event{ev("", "a", "7"), ev("", "b", "")}, io.EOF},
	{"an id holding NUL is ignored", "id: 7\ndata: a\n\nid: 8\x009\ndata: b\n\n", []Event{ev("", "a", "7"), ev("", "b", "7")}, io.EOF},
	{"id set without data waits for the next event", "id: 3\n\ndata: a\n\n", []Event{ev("", "a", "3")}, io.EOF},
	{"an event without data is not dispatched, and its name is forgotten", "event: ping\n\ndata: x\n\n", []Event{ev("", "x", "")}, io.EOF},
	{"an empty data line dispatches empty data", "event: e\ndata:\n\n", []Event{ev("e", "", "")}, io.EOF},
	{"unknown fields are ignored", "foo: bar\ndata: x\nretry-after: 5\n\n", []Event{ev("", "x", "")}, io.EOF},
	{"field names are case-sensitive", "Data: x\nEVENT: y\n\n", nil, io.EOF},
	{"a space before the colon makes another field", "data : x\n\n", nil, io.EOF},
	{"a leading BOM is skipped", "\xef\xbb\xbfdata: x\n\n", []Event{ev("", "x", "")}, io.EOF},
	{"only the first BOM is", "data: a\n\n\xef\xbb\xbfdata: b\n\n", []Event{ev("", "a", "")}, io.EOF},
	// The documented difference: the last event's lines are whole, its
	// blank line never came.
	{"final event without a blank line", "data: a\n\nevent: last\ndata: b\n", []Event{ev("", "a", ""), ev("last", "b", "")}, io.EOF},
	{"final event without a blank line, CRLF", "data: a\r\n", []Event{ev("", "a", "")}, io.EOF},
	{"stream cut inside a data line", "data: a\n\ndata: {\"type\":\"mess", []Event{ev("", "a", "")}, io.ErrUnexpectedEOF},
	{"stream cut inside an event line", "data: a\n\nevent: mess", []Event{ev("", "a", "")}, io.ErrUnexpectedEOF},
	{"a cut comment after a finished event is a clean end", "data: a\n\n: keep", []Event{ev("", "a", "")}, io.EOF},
	{"a trailing name without data is no event", "data: a\n\nevent: x\n", []Event{ev("", "a", "")}, io.EOF},
}

// Every case gives the same events however the body arrives: whole, a
// byte at a time (a CR at the end of a read must wait for its LF), or in
// halves.
func TestParse(t *testing.T) {
	t.Parallel()
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"halves":   iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	}
	for _, c := range cases {
		for rname, wrap := range readers {
			got, err := readAll(NewReader(wrap(strings.NewReader(c.in))))
			if !errors.Is(err, c.err) {
				t.Errorf("%s (%s): error %v, want %v", c.name, rname, err, c.err)
			}
			if !reflect.DeepEqual(normal(got), normal(c.want)) {
				t.Errorf("%s (%s):\n got %q\nwant %q", c.name, rname, got, c.want)
			}
		}
	}
}

// normal makes nil and empty data compare equal.
func normal(evs []Event) []Event {
	out := make([]Event, len(evs))
	for i, e := range evs {
		if len(e.Data) == 0 {
			e.Data = []byte{}
		}
		out[i] = e
	}
	return out
}

func TestRetry(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"retry: 1500\ndata: a\n\n", 1500 * time.Millisecond},
		{"retry: 1500\n\nretry: 1s\ndata: a\n\n", 1500 * time.Millisecond}, // not digits: ignored
		{"retry:\ndata: a\n\n", 0},
		{"retry: -5\ndata: a\n\n", 0},
		{"retry: 99999999999999999999999\ndata: a\n\n", 0}, // overflows: ignored
		{"retry: 10\nretry: 20\ndata: a\n\n", 20 * time.Millisecond},
	} {
		r := NewReader(strings.NewReader(c.in))
		if _, err := readAll(r); !errors.Is(err, io.EOF) {
			t.Errorf("%q: %v", c.in, err)
		}
		if r.Retry() != c.want {
			t.Errorf("%q: retry %v, want %v", c.in, r.Retry(), c.want)
		}
	}
}

// A line far over bufio's 64 KiB default (a whole tool_search_output) is
// one event; one over the limit is an error, never a truncated event.
func TestHugeLines(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3<<20)
	got, err := readAll(NewReader(strings.NewReader("event: big\ndata: " + big + "\n\ndata: after\n\n")))
	if !errors.Is(err, io.EOF) || len(got) != 2 || string(got[0].Data) != big || string(got[1].Data) != "after" {
		t.Errorf("huge line: %d events, %v", len(got), err)
	}
	got, err = readAll(newReader(strings.NewReader("data: ok\n\ndata: "+strings.Repeat("y", 2048)+"\n\n"), 1024))
	if !errors.Is(err, bufio.ErrTooLong) || len(got) != 1 {
		t.Errorf("over the limit: %d events, %v", len(got), err)
	}
}

// An event's data survives reading the next one (the scanner's buffer is
// reused).
func TestDataIsOwned(t *testing.T) {
	t.Parallel()
	r := NewReader(iotest.OneByteReader(strings.NewReader("data: first\n\ndata: second\n\n")))
	a, _ := r.Next()
	b, _ := r.Next()
	if string(a.Data) != "first" || string(b.Data) != "second" {
		t.Errorf("got %q, %q", a.Data, b.Data)
	}
}

// reference is the standard's algorithm written out literally over the
// whole body, with the one documented difference, for the fuzz test to
// compare the streaming Reader against.
func reference(s string) ([]Event, error) {
	s = strings.TrimPrefix(s, "\ufeff")
	var out []Event
	var data, name, id strings.Builder
	hasData, pending := false, false
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 { // the last line never ended: a cut event, unless only a comment was cut
			if pending || !strings.HasPrefix(s, ":") {
				return out, io.ErrUnexpectedEOF
			}
			return out, io.EOF
		}
		line := s[:i]
		if strings.HasPrefix(s[i:], "\r\n") {
			s = s[i+2:]
		} else {
			s = s[i+1:]
		}
		switch {
		case line == "":
			if hasData {
				out = append(out, Event{Name: name.String(), Data: []byte(strings.TrimSuffix(data.String(), "\n")), ID: id.String()})
			}
			data.Reset()
			name.Reset()
			hasData, pending = false, false
		case line[0] == ':':
		default:
			pending = true
			field, value, found := strings.Cut(line, ":")
			if found {
				value = strings.TrimPrefix(value, " ")
			}
			switch field {
			case "event":
				name.Reset()
				name.WriteString(value)
			case "data":
				data.WriteString(value)
				data.WriteByte('\n')
				hasData = true
			case "id":
				if !strings.Contains(value, "\x00") {
					id.Reset()
					id.WriteString(value)
				}
			}
		}
	}
	if hasData {
		out = append(out, Event{Name: name.String(), Data: []byte(strings.TrimSuffix(data.String(), "\n")), ID: id.String()})
	}
	return out, io.EOF
}

func FuzzParse(f *testing.F) {
	for _, c := range cases {
		f.Add(c.in)
	}
	f.Add("retry: 10\r\nid: \x00\r\n\r\n")
	f.Add("data: \r")
	f.Fuzz(func(t *testing.T, in string) {
		want, werr := reference(in)
		for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
			got, err := readAll(NewReader(r))
			if !errors.Is(err, werr) {
				t.Fatalf("%q: error %v, reference %v", in, err, werr)
			}
			if !reflect.DeepEqual(normal(got), normal(want)) {
				t.Fatalf("%q:\n got %q\nwant %q", in, got, want)
			}
			for _, e := range got {
				if strings.ContainsAny(e.Name, "\r\n") || strings.ContainsRune(string(e.Data), '\r') || strings.ContainsAny(e.ID, "\r\n\x00") {
					t.Fatalf("%q: a line end or NUL leaked into %q", in, e)
				}
			}
		}
	})
}
