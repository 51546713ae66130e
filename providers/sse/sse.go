// Package sse reads a text/event-stream body as the providers send it,
// following the WHATWG HTML standard's "Parsing an event stream" and
// "Interpreting an event stream" (§9.2.5–9.2.6): lines end in CRLF, LF or a
// lone CR; a leading byte order mark is skipped; a line starting with ":" is
// a comment (a keep-alive); "field: value" loses one space after the colon,
// and a line without a colon is a field with an empty value; "event",
// "data", "id" (ignored when it holds NUL) and "retry" (ASCII digits only)
// are read and other fields ignored; a blank line dispatches the event, or
// nothing when no data line came.
//
// One deliberate difference: an event whose last line is complete but
// whose blank line never came (the server closed right after it) is
// returned, where a browser would drop it; the adapters check their own end
// markers (message_stop, finishReason, [DONE]) anyway. A stream cut inside
// a line is io.ErrUnexpectedEOF, never a truncated event.
package sse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"time"
)

// Event is one server-sent event.
type Event struct {
	// Name is the event field ("" when none came: the standard's
	// "message").
	Name string
	// Data is the data lines joined with "\n".
	Data []byte
	// ID is the last event ID when the event was dispatched: the latest id
	// field of the stream so far, not only of this event.
	ID string
}

// MaxLine bounds one line: a whole tool_search_output can be long.
const MaxLine = 64 << 20

// Reader yields events from a stream.
type Reader struct {
	sc       *bufio.Scanner
	progress func()
	id       string        // the last event ID buffer
	retry    time.Duration // the last valid retry field
	first    bool          // the next line is the stream's first
	cut      bool          // the last line had no line end
}

// Progresser is a body told when the stream makes progress: the providers'
// HTTP layer counts its idle timeout from the last event with content, so
// that a stream of keep-alives, or of one byte a second, still times out.
type Progresser interface{ Progress() }

// NewReader wraps r; a line longer than MaxLine is an error. When r is a
// Progresser, it is told of each event that is not a keep-alive (see
// KeepAlive).
func NewReader(r io.Reader) *Reader { return newReader(r, MaxLine) }

func newReader(r io.Reader, maxLine int) *Reader {
	rd := &Reader{first: true}
	rd.sc = bufio.NewScanner(r)
	rd.sc.Buffer(make([]byte, 0, min(64<<10, maxLine)), maxLine)
	rd.sc.Split(rd.lines)
	if p, ok := r.(Progresser); ok {
		rd.progress = p.Progress
	}
	return rd
}

// KeepAlive reports whether ev carries nothing but liveness: Anthropic's
// ping event, an event named or typed keepalive, or one with empty data.
// (Comment lines, the other keep-alive form, never become events.)
func KeepAlive(ev Event) bool {
	if isKeepAliveWord(ev.Name) {
		return true
	}
	data := bytes.TrimSpace(ev.Data)
	if len(data) == 0 {
		return true
	}
	// Only a short object can be a bare {"type":"ping"}; a content event
	// is never parsed twice.
	if len(data) > 128 || data[0] != '{' {
		return false
	}
	var v struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(data, &v) == nil && isKeepAliveWord(v.Type)
}

func isKeepAliveWord(s string) bool {
	switch s {
	case "ping", "keepalive", "keep-alive", "keep_alive":
		return true
	}
	return false
}

// dispatch completes ev and tells the body of progress.
func (r *Reader) dispatch(ev Event, data []byte) (Event, error) {
	ev.Data, ev.ID = data, r.id
	if r.progress != nil && !KeepAlive(ev) {
		r.progress()
	}
	return ev, nil
}

// Retry is the reconnection time the stream last asked for (0: none).
func (r *Reader) Retry() time.Duration { return r.retry }

// lines splits at CRLF, LF or a lone CR. A CR that ends the buffered bytes
// waits for the next byte, which may be its LF.
func (r *Reader) lines(data []byte, atEOF bool) (int, []byte, error) {
	lf, cr := bytes.IndexByte(data, '\n'), bytes.IndexByte(data, '\r')
	switch {
	case lf >= 0 && (cr < 0 || lf < cr):
		return lf + 1, data[:lf], nil
	case cr >= 0 && cr+1 < len(data):
		if data[cr+1] == '\n' {
			return cr + 2, data[:cr], nil
		}
		return cr + 1, data[:cr], nil
	case cr >= 0 && atEOF:
		return cr + 1, data[:cr], nil
	case atEOF && len(data) > 0:
		r.cut = true
		return len(data), data, nil
	}
	return 0, nil, nil
}

var bom = []byte("\xef\xbb\xbf")

// Next returns the next event, io.EOF at a clean end, or
// io.ErrUnexpectedEOF if the stream stopped inside a line of an event.
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data []byte
	hasData, pending := false, false
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if r.first {
			r.first = false
			line = bytes.TrimPrefix(line, bom)
		}
		if len(line) == 0 {
			if hasData {
				return r.dispatch(ev, data)
			}
			// No data: nothing is dispatched, and the name is forgotten.
			ev, pending = Event{}, false
			continue
		}
		if line[0] == ':' {
			continue
		}
		pending = true
		field, value, found := bytes.Cut(line, []byte(":"))
		if found {
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			ev.Name = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, value...), true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.id = string(value)
			}
		case "retry":
			if ms, ok := digits(value); ok {
				r.retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	if err := r.sc.Err(); err != nil {
		return Event{}, err
	}
	if r.cut && pending {
		return Event{}, io.ErrUnexpectedEOF
	}
	if hasData {
		return r.dispatch(ev, data)
	}
	return Event{}, io.EOF
}

// digits reads a retry value: ASCII digits only, else it is ignored.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n > int64(time.Duration(1<<63-1)/time.Millisecond) {
		return 0, false
	}
	return n, true
}
