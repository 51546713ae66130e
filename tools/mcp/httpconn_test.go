package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/agent-dev/agent/config"
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

// sizeReader serves body and records the size of each Read's buffer.
type sizeReader struct {
	body  []byte
	sizes []int
}

func (r *sizeReader) Read(p []byte) (int, error) {
	r.sizes = append(r.sizes, len(p))
	if len(r.body) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.body)
	r.body = r.body[n:]
	return n, nil
}

// TestCapReaderReadSizes: the capReader reads a short body whose length
// is known in one read of that length (plus one byte), a longer one in
// reads of maxRead, another in reads that start at minRead and are of
// maxRead from the one that fills, and passes every byte through either
// way; at the body's end its buffer is given back (firstBuf, release).
// The reads were 32 KB each whatever the body: 1 MB of fresh memory in a
// first run's listing of eleven servers, mostly for answers of a few
// hundred bytes.
func TestCapReaderReadSizes(t *testing.T) {
	t.Parallel()
	body := func(n int) []byte {
		b := []byte(`{"jsonrpc":"2.0","id":1,"result":{"pad":"`)
		b = append(b, strings.Repeat("x", max(0, n-len(b)-3))...)
		return append(b, `"}}`...)
	}
	tests := []struct {
		name   string
		size   int
		length int64 // the Content-Length the capReader is told (0: none)
		first  int   // the first read's buffer
	}{
		{"small, length known", 300, 300, 301},
		{"small, no length", 300, 0, minRead},
		{"long, length known", 200 << 10, 200 << 10, maxRead},
		{"between the sizes, length known", 10 << 10, 10 << 10, maxRead},
		{"long, no length", 200 << 10, 0, minRead},
		{"exactly minRead, no length", minRead, 0, minRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := body(tt.size)
			r := &sizeReader{body: want}
			cr := newCapReader(r, 1<<20, false)
			cr.length = tt.length
			got, err := io.ReadAll(cr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes, want the %d of the body unchanged", len(got), len(want))
			}
			if r.sizes[0] != tt.first {
				t.Errorf("first read of %d bytes, want %d", r.sizes[0], tt.first)
			}
			for i, n := range r.sizes {
				if n > maxRead {
					t.Errorf("read %d of %d bytes, over maxRead (%d)", i, n, maxRead)
				}
				if i > 0 && n < r.sizes[i-1] {
					t.Errorf("read %d of %d bytes after one of %d: reads only grow", i, n, r.sizes[i-1])
				}
			}
			if tt.size > 2*maxRead && r.sizes[len(r.sizes)-1] != maxRead {
				t.Errorf("reads of a long body end at %d bytes, want maxRead (%d)", r.sizes[len(r.sizes)-1], maxRead)
			}
			for i, n := range r.sizes[1:] {
				if n != r.sizes[0] && n != maxRead {
					t.Errorf("read %d of %d bytes: after the first, reads are of maxRead (%d)", i+1, n, maxRead)
				}
			}
			if cr.in != nil || cr.buf != ownBuf {
				t.Errorf("the body was read to its end and its reader still holds a %d-byte buffer", len(cr.in))
			}
		})
	}
}

// TestCapReaderReusedBuffers: bodies read one after the other through
// buffers the ones before them gave back get their own bytes, whatever
// the buffers held: a short body after a long one, line-delimited or not,
// and a body cut by its reader's error keeps what it read.
func TestCapReaderReusedBuffers(t *testing.T) {
	t.Parallel()
	msg := func(fill string, n int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"result":{"pad":"` + strings.Repeat(fill, n) + `"}}`)
	}
	tests := []struct {
		name  string
		body  []byte
		lines bool
		err   error // the reader's error after the body (nil: io.EOF)
	}{
		{"long", msg("a", 100<<10), false, nil},
		{"short after long", msg("b", 10), false, nil},
		{"a few KB", msg("c", 6<<10), false, nil},
		{"lines", append(append(msg("d", 5<<10), '\n'), msg("e", 3)...), true, nil},
		{"cut by an error", msg("f", 40<<10)[:30<<10], false, io.ErrUnexpectedEOF},
		{"short again", msg("g", 1), false, nil},
	}
	// In order: each reader takes what the one before gave back.
	for _, tt := range tests {
		var r io.Reader = bytes.NewReader(tt.body)
		if tt.err != nil {
			r = io.MultiReader(r, iotest.ErrReader(tt.err))
		}
		cr := newCapReader(r, 1<<20, tt.lines)
		got, err := io.ReadAll(cr)
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.err)
		}
		if !bytes.Equal(got, tt.body) {
			t.Errorf("%s: read %d bytes (%.40q...), want the %d of the body unchanged", tt.name, len(got), got, len(tt.body))
		}
		if cr.in != nil {
			t.Errorf("%s: the reader kept its buffer after the body's end", tt.name)
		}
	}
}

// TestHTTPInitializeTimeout: a remote server that takes the initialize
// request and never answers fails after InitTimeout, not the start's
// timeout, and says so.
func TestHTTPInitializeTimeout(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// With the body read, the server notices the client closing
		// the connection (r's context ends then).
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	start := time.Now()
	_, _, errs := startManager(t, Options{StartTimeout: time.Minute, InitTimeout: 300 * time.Millisecond},
		config.MCPServer{Name: "mute", Type: config.MCPHTTP, URL: srv.URL + "/mcp", Source: "test"})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "initialize: no answer within 300ms") {
		t.Fatalf("start errors %v, want the initialize timeout", errs)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("failed after %s: the start's timeout, not initialize's", d)
	}
}

// TestCapClientContentLengths: a body is read whatever Content-Length the
// server sends, true or not. net/http takes any length up to 2^63-1, and
// the capReader's first read, sized from it plus one byte, overflowed at
// that one: makeslice panicked in the reading goroutine and the agent
// died of a remote server's header. A length the body falls short of is
// io.ErrUnexpectedEOF (net/http's), one it exceeds is where the body ends.
func TestCapClientContentLengths(t *testing.T) {
	t.Parallel()
	value := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name    string
		header  string // the length header, as the server writes it
		want    string // what the client reads
		wantErr error
	}{
		{"the largest length net/http takes", "Content-Length: 9223372036854775807", value, io.ErrUnexpectedEOF},
		{"longer than the body", "Content-Length: 100000", value, io.ErrUnexpectedEOF},
		{"shorter than the body", "Content-Length: 10", value[:10], nil},
		{"the body's", "Content-Length: " + strconv.Itoa(len(value)), value, nil},
		{"chunked", "Transfer-Encoding: chunked", value, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := value
			if strings.HasPrefix(tt.header, "Transfer-Encoding") {
				body = strconv.FormatInt(int64(len(value)), 16) + "\r\n" + value + "\r\n0\r\n\r\n"
			}
			url := rawHTTPServer(t, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"+tt.header+"\r\n\r\n"+body)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := capClient(0, nil).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if string(got) != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("read %q (%v), want %q (%v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// rawHTTPServer answers every connection with answer, written as it is,
// once it has the request's headers, and closes it.
func rawHTTPServer(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if line == "\r\n" {
						break
					}
				}
				_, _ = io.WriteString(c, answer)
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/mcp"
}

// A server given a "timeout" longer than initialize's own (InitTimeout)
// gets it for initialize too, as initialize's failure tells the user to
// do ("a server that needs longer to start can be given a longer
// "timeout""): that timeout bounded only the rest of the start, and the
// server failed at InitTimeout whatever its "timeout" said.
func TestServerTimeoutLongerThanInitialize(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	_, _, errs := startManager(t, Options{StartTimeout: time.Minute, InitTimeout: 100 * time.Millisecond},
		config.MCPServer{Name: "slow", Type: config.MCPHTTP, URL: srv.URL + "/mcp", Source: "test", Timeout: 800 * time.Millisecond})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no answer within 800ms") {
		t.Fatalf("start errors %v, want no answer within the server's timeout (800ms)", errs)
	}
}
