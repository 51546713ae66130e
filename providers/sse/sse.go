// Package sse reads a text/event-stream body as the providers send it.
package sse

import (
	"bufio"
	"bytes"
	"io"
)

// Event is one server-sent event.
type Event struct {
	Name string
	Data []byte
}

// Reader yields events from a stream.
type Reader struct {
	sc *bufio.Scanner
}

// NewReader wraps r. Lines may be long (a whole tool_search_output), so the
// buffer grows up to 64 MiB.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	return &Reader{sc: sc}
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
				return ev, nil
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
		return ev, nil
	}
	return Event{}, io.EOF
}
