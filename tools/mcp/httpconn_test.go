package mcp

import (
	"encoding/json"
	"io"
	"testing"
)

// endReader hands out its parts one Read at a time, then io.EOF, and
// says whether a Read has returned io.EOF.
type endReader struct {
	parts []string
	eof   bool
}

func (r *endReader) Read(p []byte) (int, error) {
	if len(r.parts) == 0 {
		r.eof = true
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	if r.parts[0] == "" {
		r.parts = r.parts[1:]
	}
	return n, nil
}

// TestCapReaderReadsBodyToEnd: a JSON body is read to its end (io.EOF) by
// the time a json.Decoder over the capReader has its value, as mcp-go
// decodes an answer: a body left short of its end (the newline after the
// value, a chunked body's last chunk) closed its connection when mcp-go
// cancelled the request. An event stream is never read past what the
// caller asks for.
func TestCapReaderReadsBodyToEnd(t *testing.T) {
	t.Parallel()
	value := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}`
	tests := []struct {
		name    string
		parts   []string
		lines   bool
		wantEOF bool
	}{
		{"the newline in the value's read", []string{value + "\n"}, false, true},
		{"the newline read apart", []string{value, "\n"}, false, true},
		{"value cut across reads", []string{value[:20], value[20:], "\n"}, false, true},
		{"event stream", []string{"data: " + value + "\n\n", "data: {}\n\n"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &endReader{parts: tt.parts}
			cr := newCapReader(r, 1<<20, tt.lines)
			if tt.lines {
				// As mcp-go reads an event: a line at a time.
				line := make([]byte, len("data: "+value+"\n"))
				if _, err := io.ReadFull(cr, line); err != nil {
					t.Fatal(err)
				}
			} else {
				var v map[string]any
				if err := json.NewDecoder(cr).Decode(&v); err != nil {
					t.Fatal(err)
				}
			}
			if r.eof != tt.wantEOF {
				t.Errorf("read to the end: %v, want %v", r.eof, tt.wantEOF)
			}
		})
	}
}
