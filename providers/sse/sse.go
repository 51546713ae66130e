// Package sse reads a text/event-stream body as the providers send it.
package sse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// Event is one server-sent event.
type Event struct {
	Name string
	Data []byte
}

// Reader yields events from a stream.
type Reader struct {
	sc       *bufio.Scanner
	progress func()
}

// Progresser is a body told when the stream makes progress: the providers'
// HTTP layer counts its idle timeout from the last event with content, so
// that a stream of keep-alives, or of one byte a second, still times out.
type Progresser interface{ Progress() }

// NewReader wraps r. Lines may be long (a whole tool_search_output), so the
// buffer grows up to 64 MiB. When r is a Progresser, it is told of each
// event that is not a keep-alive (see KeepAlive).
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	rd := &Reader{sc: sc}
	if p, ok := r.(Progresser); ok {
		rd.progress = p.Progress
	}
	return rd
}

// KeepAlive reports whether ev carries nothing but liveness: Anthropic's
// ping event, an event named or typed keepalive, or one without data.
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

func (r *Reader) done(ev Event) (Event, error) {
	if r.progress != nil && !KeepAlive(ev) {
		r.progress()
	}
	return ev, nil
}

// Next returns the next event, io.EOF at a clean end, or
// io.ErrUnexpectedEOF if the stream stopped inside an event.
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data [][]byte
	seen := false
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if len(line) == 0 {
			if seen {
				ev.Data = bytes.Join(data, []byte("\n"))
				return r.done(ev)
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Name = string(value)
			seen = true
		case "data":
			data = append(data, append([]byte(nil), value...))
			seen = true
		}
	}
	if err := r.sc.Err(); err != nil {
		return Event{}, err
	}
	if seen {
		// A final event without its blank line still counts.
		ev.Data = bytes.Join(data, []byte("\n"))
		return r.done(ev)
	}
	return Event{}, io.EOF
}
