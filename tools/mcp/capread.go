package mcp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/internal/rawjson"
	"github.com/agent-dev/agent/internal/starttrace"
)

// DefaultMaxToolResultBytes is the max_tool_result_bytes default: what one
// tool result may take before it is cut on the way in.
const DefaultMaxToolResultBytes = 4 << 20

// capMargin is what a result may still take past its cap for the small
// members after a cut string ("type":"text" after a long "text"); past it
// further array elements and object members are dropped too, so a flood
// of small items is as bounded as one long string.
const capMargin = 64 << 10

// minKept is what a string keeps past the cap: short ones (a key, a
// block's "type") stay whole, so the cut message still parses.
const minKept = 256

// capReader caps tool results as they are read, before mcp-go's transport
// buffers a message: it rewrites the JSON-RPC stream so that the strings
// of a result's content and structuredContent stop at limit bytes (with a
// note saying by how much they were cut) and, past limit plus capMargin,
// drops the remaining elements. The JSON stays valid and every other part
// of a message (id, tools/list, notifications) passes untouched, so the
// memory a reply can take is bounded whatever the server sends.
//
// In line mode (stdio, an SSE stream) each line is a message; otherwise
// (a JSON body) a message ends where its outermost value closes.
type capReader struct {
	r     io.Reader
	limit int
	lines bool

	in, out []byte
	buf     bufClass // where in came from
	pos     int      // of out, copied so far
	err     error
	// length is the body's length when the server said it (HTTP's
	// Content-Length), else 0: the first read's buffer (firstBuf).
	length int64

	stack []capFrame
	str   bool // in a string
	bs    bool // after a backslash in it
	hex   int  // hex digits of a \u escape still to come
	key   bool // the string is an object key
	cut   bool // the string's remaining bytes are dropped, its note to come
	mute  bool // the string is dropped whole (an element after a cut)
	kept  int  // bytes of the string kept

	used    int // bytes of the message's result kept so far
	dropped int // bytes dropped from the string being cut
	skipped int // bytes of dropped elements not yet reported
	skip    int // dropping until the frame at this depth closes (0: not)

	// pages, when set, receives the tools array of a tools/list result
	// while a listing waits for one (listpages.go); div is the array being
	// diverted and divDepth the depth inside it.
	pages    *listPages
	div      *listPage
	divDepth int

	// byteAtATime turns keepRun off: the tests hold the runs to feed.
	byteAtATime bool

	// ended: the outermost value of a JSON body (not lines) has closed;
	// rest counts what Read took of the body after it.
	ended bool
	rest  int
}

type capFrame struct {
	obj   bool
	value bool   // past the key's ':' (objects)
	name  []byte // the current key, its first bytes (depth 1 and 2 only)
}

func newCapReader(r io.Reader, limit int, lines bool) *capReader {
	if limit <= 0 {
		limit = DefaultMaxToolResultBytes
	}
	return &capReader{r: r, limit: limit, lines: lines}
}

func (c *capReader) Read(p []byte) (int, error) {
	for c.pos == len(c.out) {
		if c.err != nil {
			return 0, c.err
		}
		if space := c.pageSpace(); space != nil {
			// Inside a tools array being diverted: read where its bytes
			// go (pageSpace).
			n, err := c.r.Read(space)
			c.out, c.pos, c.err = c.out[:0], 0, err
			c.take(space[:n])
		} else {
			if c.in == nil {
				c.firstBuf()
			}
			n, err := c.r.Read(c.in)
			c.out, c.pos, c.err = c.out[:0], 0, err
			c.take(c.in[:n])
			if n == len(c.in) && n < maxRead {
				// A long body: read it in larger reads (take keeps nothing
				// of in).
				c.release()
				c.in, c.buf = readBuf(largeBuf)
			}
		}
		// A JSON body's value has closed: its rest (the newline after it,
		// a chunked body's last chunk) is read now, before the caller has
		// what it waits for. mcp-go stops reading where the value ends and
		// cancels the request before it closes the body, so an unread rest
		// closed the connection and the server's next request dialled a
		// new one (a tools/list page is chunked: every listing did).
		for c.ended && !c.lines && c.err == nil && c.rest < maxRest {
			if c.in == nil {
				c.firstBuf()
			}
			n, err := c.r.Read(c.in)
			c.err, c.rest = err, c.rest+n
			c.take(c.in[:n])
		}
		if c.err != nil {
			// Nothing is read any more: the buffer goes to the next body.
			c.release()
		}
	}
	n := copy(p, c.out[c.pos:])
	c.pos += n
	return n, nil
}

// take runs in through the reader.
func (c *capReader) take(in []byte) {
	for len(in) > 0 {
		if k := c.divRun(in); k > 0 {
			in = in[k:]
			continue
		}
		if k := c.dropRun(in); k > 0 {
			in = in[k:]
			continue
		}
		if k := c.keepRun(in); k > 0 {
			in = in[k:]
			continue
		}
		c.feed(in[0])
		in = in[1:]
	}
}

// maxRest is the most of a JSON body read past the end of its value.
const maxRest = 4 << 10

// dropRun drops at once the plain bytes of a string being dropped (the
// bulk of a cut reply), up to the next quote, backslash or newline, and
// returns how many it took.
func (c *capReader) dropRun(in []byte) int {
	if !c.str || !(c.cut || c.mute) || c.bs || c.hex > 0 {
		return 0
	}
	k := bytes.IndexAny(in, "\"\\\n")
	if k < 0 {
		k = len(in)
	}
	if c.mute {
		c.skipped += k
	} else {
		c.dropped += k
	}
	return k
}

// keepRun keeps at once the plain bytes of a string that stays (most of
// a tools/list page: descriptions, schemas' keys and strings), up to the
// next quote, backslash or newline, and returns how many it took: feed
// took them one call at a time, a tenth of a cold start's CPU. It takes
// none where feedString has more to do than keep a byte: in an escape, in
// a cut or dropped string, in the keys whose names the reader tracks, and
// past what a result may keep before its strings are cut (the run stops
// where feedString could begin the cut).
func (c *capReader) keepRun(in []byte) int {
	if !c.str || c.cut || c.mute || c.bs || c.hex > 0 || c.byteAtATime {
		return 0
	}
	if depth := len(c.stack); c.key && depth > 0 && depth <= 2 {
		return 0
	}
	// PlainRun stops at any control byte, '\n' among them: feedString
	// takes those one at a time.
	k := rawjson.PlainRun(in, 0)
	result := c.inResult()
	if result {
		k = min(k, c.limit-c.used)
	}
	if k <= 0 {
		return 0
	}
	c.kept += k
	if c.div != nil {
		c.div.writeRun(in[:k])
		return k
	}
	c.out = append(c.out, in[:k]...)
	if result {
		c.used += k
	}
	return k
}

// divRun takes at once the bytes of a tools array being diverted (most
// of a cold start's bytes: every server's tools/list page) and returns how
// many it took: feed took them a call per byte, each written to the page
// on its own, a third of the listing's CPU. It keeps the state feed keeps
// (the stack of frames, whether in a string and after a backslash, where
// each object element begins and ends) and writes each run to the page
// whole. It takes none where feed has more to do: the array's own end, an
// element that is not an object (counted by divElem), a newline (the end
// of a line-delimited message, or one in a string: feed starts again), a
// control byte in a string.
func (c *capReader) divRun(in []byte) int {
	pg := c.div
	if pg == nil || c.byteAtATime || c.skip > 0 || c.cut || c.mute || len(c.stack) < c.divDepth {
		return 0
	}
	i, from := 0, 0 // in[from:i] is still to be written to the page
loop:
	for i < len(in) {
		if c.str {
			if c.bs || c.hex > 0 {
				// An escape's bytes, whatever they are (as feedString).
				if in[i] == '\n' {
					break loop // feed starts again at a raw newline, even here
				}
				if c.bs {
					c.bs = false
					if in[i] == 'u' {
						c.hex = 4
					}
				} else {
					c.hex--
				}
				i++
				continue
			}
			if i = rawjson.PlainRun(in, i); i >= len(in) {
				break
			}
			switch in[i] {
			case '"':
				c.str = false
			case '\\':
				c.bs = true
			default:
				break loop // a control byte
			}
			i++
			continue
		}
		depth := len(c.stack)
		b := in[i]
		if depth == c.divDepth {
			// Between the array's elements: divElem's cases.
			switch b {
			case '{':
				pg.writeRun(in[from:i])
				from = i
				pg.beginElem()
				c.stack = append(c.stack, capFrame{obj: true})
			case ',':
				c.stack[depth-1].value = false
			case ' ', '\t', '\r':
			default:
				break loop // the array's end, or an element that is not an object
			}
			pg.inOther = false
			i++
			continue
		}
		switch b {
		case '"':
			top := c.stack[depth-1]
			c.str, c.key = true, top.obj && !top.value
			c.cut, c.dropped, c.kept = false, 0, 0
		case '{', '[':
			c.stack = append(c.stack, capFrame{obj: b == '{'})
		case '}', ']':
			c.stack = c.stack[:depth-1]
			if depth-1 == c.divDepth && b == '}' {
				i++
				pg.writeRun(in[from:i])
				from = i
				pg.endElem()
				continue
			}
		case ':':
			c.stack[depth-1].value = true
		case ',':
			c.stack[depth-1].value = false
		case ' ', '\t', '\r':
			pg.spaced = true
		case '\n':
			break loop
		}
		i++
	}
	pg.writeRun(in[from:i])
	return i
}

// inResult tells whether the reader is inside a result's content or
// structuredContent: {"result": {"content": HERE}}.
func (c *capReader) inResult() bool {
	if len(c.stack) < 2 {
		return false
	}
	env, res := c.stack[0], c.stack[1]
	return env.obj && env.value && string(env.name) == "result" && res.obj && res.value &&
		(string(res.name) == "content" || string(res.name) == "structuredContent")
}

func (c *capReader) emit(b ...byte) {
	if c.div != nil {
		for _, x := range b {
			c.div.write(x)
		}
		return
	}
	c.out = append(c.out, b...)
	if c.inResult() {
		c.used += len(b)
	}
}

func (c *capReader) note(n int) string {
	return fmt.Sprintf("\n\n[tool result cut: %d more bytes dropped over max_tool_result_bytes (%d)]", n, c.limit)
}

func (c *capReader) reset() {
	c.div = nil // a message cut short: its page is never claimed
	c.stack, c.str, c.bs, c.hex, c.key, c.cut, c.mute = c.stack[:0], false, false, 0, false, false, false
	c.used, c.dropped, c.skipped, c.skip = 0, 0, 0, 0
}

func (c *capReader) feed(b byte) {
	if c.div != nil {
		// Only divRun looks for space in an element; one that starts
		// here (divElem) is reset.
		c.div.spaced = true
	}
	if b == '\n' && (c.lines || c.str) {
		// A raw newline ends a line-delimited message, and is never part of
		// a string: either way the state starts again.
		c.reset()
		c.out = append(c.out, b)
		return
	}
	if c.str {
		c.feedString(b)
		return
	}
	if c.skip > 0 {
		c.feedSkipped(b)
		return
	}
	depth := len(c.stack)
	if c.div != nil && depth == c.divDepth {
		c.divElem(b)
	}
	switch b {
	case '"':
		c.str, c.key = true, depth > 0 && c.stack[depth-1].obj && !c.stack[depth-1].value
		if c.key && depth <= 2 {
			c.stack[depth-1].name = c.stack[depth-1].name[:0]
		}
		c.cut, c.dropped, c.kept = false, 0, 0
		c.emit(b)
		return
	case '{', '[':
		if b == '[' && c.div == nil && c.pages != nil && c.inToolsValue() && c.pages.expecting() {
			c.div, c.divDepth = c.pages.start(), depth+1
		}
		c.emit(b)
		c.stack = append(c.stack, capFrame{obj: b == '{'})
		return
	case '}', ']':
		if depth == 0 {
			c.out = append(c.out, b)
			return
		}
		root := depth == 3 && c.inResult()
		if root && c.skipped > 0 {
			c.reportSkipped()
		}
		c.stack = c.stack[:depth-1]
		c.emit(b)
		if c.div != nil {
			c.divClosed(b)
		}
		if len(c.stack) == 0 {
			c.reset()
			c.ended = !c.lines
		}
		return
	case ':':
		if depth > 0 {
			c.stack[depth-1].value = true
		}
	case ',':
		// A content block's members all stay (its type may come last);
		// any other element or member after the margin goes.
		block := depth == 4 && c.stack[3].obj && string(c.stack[1].name) == "content"
		if depth >= 3 && !block && c.inResult() && c.used >= c.limit+capMargin {
			c.skip, c.skipped = depth, c.skipped+1
			return
		}
		if depth > 0 {
			c.stack[depth-1].value = false
		}
	}
	c.emit(b)
}

// inToolsValue tells whether the next value is a result's tools member:
// {"result": {"tools": HERE}}.
func (c *capReader) inToolsValue() bool {
	if len(c.stack) != 2 {
		return false
	}
	env, res := c.stack[0], c.stack[1]
	return env.obj && env.value && string(env.name) == "result" && res.obj && res.value && string(res.name) == "tools"
}

// divElem sees a byte directly inside the diverted array: an object
// element starts at '{'; any other value is counted and left to fail.
func (c *capReader) divElem(b byte) {
	switch b {
	case '{':
		c.div.beginElem()
	case ',', ']', ' ', '\t', '\r', '\n':
	default:
		if c.div.elem < 0 && !c.div.inOther {
			c.div.other++
			c.div.inOther = true
		}
		return
	}
	c.div.inOther = false
}

// divClosed follows a closing byte while diverting: the end of an element,
// or of the array, whose place in the stream takes the page's marker.
func (c *capReader) divClosed(b byte) {
	switch depth := len(c.stack); {
	case depth == c.divDepth && b == '}':
		c.div.endElem()
	case depth < c.divDepth:
		pg := c.div
		c.div = nil
		c.pages.finish(pg)
		c.out = append(c.out, pageMarker...)
		c.out = strconv.AppendInt(c.out, int64(pg.n), 10)
	}
}

// feedString takes a string's byte: kept, or dropped once the result is
// over its cap, at a character boundary and never inside an escape.
func (c *capReader) feedString(b byte) {
	inEscape := c.bs || c.hex > 0
	switch {
	case c.bs:
		c.bs = false
		if b == 'u' {
			c.hex = 4
		}
	case c.hex > 0:
		c.hex--
	case b == '\\':
		c.bs = true
	case b == '"':
		c.str = false
		switch {
		case c.mute:
			c.mute = false
			c.skipped++
			return
		case c.cut:
			c.emitString(c.note(c.dropped))
		}
		c.emit(b)
		return
	}
	if c.mute {
		c.skipped++
		return
	}
	if !c.cut && !inEscape && b&0xC0 != 0x80 && c.kept >= minKept && c.inResult() && c.used >= c.limit {
		c.cut = true
	}
	if c.cut {
		c.dropped++
		return
	}
	c.kept++
	if depth := len(c.stack); c.key && depth > 0 && depth <= 2 && len(c.stack[depth-1].name) < 32 {
		c.stack[depth-1].name = append(c.stack[depth-1].name, b)
	}
	c.emit(b)
}

// feedSkipped drops the bytes of the elements after a cut until the frame
// they are in closes.
func (c *capReader) feedSkipped(b byte) {
	depth := len(c.stack)
	switch b {
	case '"':
		c.str, c.mute = true, true
	case '{', '[':
		c.stack = append(c.stack, capFrame{obj: b == '{'})
	case '}', ']':
		if depth == c.skip {
			c.skip = 0
			c.feed(b)
			return
		}
		c.stack = c.stack[:depth-1]
	}
	c.skipped++
}

// reportSkipped writes the note for the dropped elements as one more
// element of the content array (a text block) or structuredContent.
func (c *capReader) reportSkipped() {
	n := c.skipped
	c.skipped = 0
	top := c.stack[len(c.stack)-1]
	switch {
	case !top.obj:
		c.emitRaw(`,{"type":"text","text":`)
	case top.obj:
		c.emitRaw(`,"_truncated":`)
	}
	c.emitRaw(`"`)
	c.emitString(c.note(n))
	c.emitRaw(`"`)
	if !top.obj {
		c.emitRaw(`}`)
	}
}

func (c *capReader) emitRaw(s string) { c.emit([]byte(s)...) }

// emitString writes s, plain ASCII with newlines, inside a JSON string.
func (c *capReader) emitString(s string) {
	c.emitRaw(strings.ReplaceAll(s, "\n", `\n`))
}

// capTransport caps the tool results of every HTTP response body.
type capTransport struct {
	base  http.RoundTripper
	limit int
	pages *listPages
}

func (t capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if starttrace.On() {
		starttrace.Markf("http begin", req.Method, req.URL.Host)
		defer starttrace.Markf("http headers", req.Method, req.URL.Host)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	lines := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	cr := newCapReader(resp.Body, t.limit, lines)
	cr.pages, cr.length = t.pages, resp.ContentLength
	resp.Body = capBody{capReader: cr, c: resp.Body}
	// The body's length is not what the server said any more.
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

type capBody struct {
	*capReader
	c io.Closer
}

func (b capBody) Close() error { return b.c.Close() }

// capClient is an HTTP client whose responses are capped, whose tools/list
// pages go to pages (nil: they stay in the stream), and whose redirects
// stay within the server's origin (sameOriginRedirects).
func capClient(limit int, pages *listPages) *http.Client {
	return &http.Client{Transport: capTransport{base: leaveDelete{http.DefaultTransport}, limit: limit, pages: pages}, CheckRedirect: sameOriginRedirects}
}
