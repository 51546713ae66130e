package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/agent-dev/agent/internal/rawjson"
	"github.com/agent-dev/agent/tools"
)

// Reading tools/list without mcp-go's buffers. mcp-go reads a response
// whole (a json.Decoder whose buffer doubles, or a line read by
// bufio.Reader.ReadString and converted to []byte) and then copies its
// result into a json.RawMessage: a list of thousands of tools was
// allocated three to four times over before a tool was parsed, and at
// start every server lists at once. So while listTools waits for a page,
// the capReader (capread.go), which every byte from the server already
// passes through, takes the result's tools array out of the stream into a
// listPage and puts a marker in its place: mcp-go buffers
// {"tools":[],"_agentToolsPage":N,"nextCursor":...} and listTools claims
// page N. A page's bytes are kept in chunks that each hold whole tools, so
// each tool is a view of its chunk: no copy when the list is parsed, and
// when its hash matches the cached list's, nothing but the chunks was
// allocated.

// pageMarker is what replaces a diverted tools array in the result mcp-go
// reads; the page's number follows.
const pageMarker = `[],"_agentToolsPage":`

// listPages hands a server's diverted tools arrays from its capReaders to
// listTools. Arrays are diverted only while listTools waits for a page, so
// every other response passes untouched.
type listPages struct {
	mu      sync.Mutex
	waiting bool
	next    int
	done    map[int]*listPage
}

// expect starts (on) or ends a listing. Ending it drops the pages nobody
// claimed.
func (p *listPages) expect(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waiting = on
	if !on {
		p.done = nil
	}
}

func (p *listPages) expecting() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting
}

func (p *listPages) start() *listPage {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	return &listPage{n: p.next, elem: -1}
}

func (p *listPages) finish(pg *listPage) {
	pg.close()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.waiting {
		return
	}
	if p.done == nil {
		p.done = map[int]*listPage{}
	}
	p.done[pg.n] = pg
}

// claim takes page n, and drops the older pages still unclaimed (a
// response that carried a tools array without being the listing).
func (p *listPages) claim(n int) *listPage {
	p.mu.Lock()
	defer p.mu.Unlock()
	pg := p.done[n]
	for k := range p.done {
		if k <= n {
			delete(p.done, k)
		}
	}
	return pg
}

// listPage is one diverted tools array: its bytes in order over chunks,
// each tool (an object element) whole in one chunk.
type listPage struct {
	n      int
	chunks [][]byte
	cur    []byte
	size   int
	elem   int // offset in cur of the element being read, -1 between elements
	elems  [][]byte
	// tight[i]: elems[i] has no space outside its strings, as divRun
	// read it (false when any of it went through feed), so its schema
	// needs no compact check (parseToolView).
	tight  []bool
	spaced bool // the element being read may have space outside strings
	other  int  // elements that are not objects
	// inOther: inside such an element
	inOther bool
}

// pageChunk is a page's first chunk; later ones grow with the page up to
// maxPageChunk, so a page takes at most one chunk more than its size.
const (
	pageChunk    = 64 << 10
	maxPageChunk = 1 << 20
)

func (pg *listPage) write(b byte) {
	if len(pg.cur) == cap(pg.cur) {
		pg.grow()
	}
	pg.cur = append(pg.cur, b)
	pg.size++
}

// writeRun is write for each byte of p, a run inside a string. A run
// read into the page's free end (capReader.pageSpace) is there already.
func (pg *listPage) writeRun(p []byte) {
	if len(p) > 0 && len(p) <= cap(pg.cur)-len(pg.cur) && &pg.cur[len(pg.cur):cap(pg.cur)][0] == &p[0] {
		pg.cur = pg.cur[:len(pg.cur)+len(p)]
		pg.size += len(p)
		return
	}
	for len(p) > 0 {
		if len(pg.cur) == cap(pg.cur) {
			pg.grow()
		}
		n := min(len(p), cap(pg.cur)-len(pg.cur))
		pg.cur = append(pg.cur, p[:n]...)
		pg.size += n
		p = p[n:]
	}
}

// grow starts a chunk, moving the part of the element being read into it.
func (pg *listPage) grow() {
	var carry []byte
	if pg.elem >= 0 {
		carry = pg.cur[pg.elem:]
		pg.cur = pg.cur[:pg.elem:pg.elem]
		pg.elem = 0
	}
	if len(pg.cur) > 0 {
		pg.chunks = append(pg.chunks, pg.cur)
	}
	size := min(max(pageChunk, pg.size), maxPageChunk)
	size = max(size, 2*len(carry))
	pg.cur = append(make([]byte, 0, size), carry...)
}

// beginElem marks where an object element starts (before its '{').
func (pg *listPage) beginElem() {
	if len(pg.cur) == cap(pg.cur) {
		pg.grow()
	}
	pg.elem = len(pg.cur)
	pg.spaced = false
}

// endElem marks the end of the element begun (after its '}').
func (pg *listPage) endElem() {
	if pg.elem < 0 {
		return
	}
	pg.elems = append(pg.elems, pg.cur[pg.elem:len(pg.cur):len(pg.cur)])
	pg.tight = append(pg.tight, !pg.spaced)
	pg.elem = -1
}

func (pg *listPage) close() {
	if len(pg.cur) > 0 {
		pg.chunks = append(pg.chunks, pg.cur[:len(pg.cur):len(pg.cur)])
	}
	pg.cur = nil
}

// claimPage takes the diverted tools array out of a tools/list result
// (nil when the result carries none) and returns the result as the
// server sent it but for that array, which stays [], the point where the
// array was, and the page.
func (c *conn) claimPage(res json.RawMessage) (json.RawMessage, int, *listPage, error) {
	i := bytes.Index(res, []byte(pageMarker))
	if i < 0 {
		return res, -1, nil, nil
	}
	j := i + len(pageMarker)
	k := j
	for k < len(res) && res[k] >= '0' && res[k] <= '9' {
		k++
	}
	n, err := strconv.Atoi(string(res[j:k]))
	if err != nil {
		return nil, 0, nil, errors.New("tools/list: a diverted tools array without its page number")
	}
	pg := c.pages.claim(n)
	if pg == nil {
		return nil, 0, nil, errors.New("tools/list: the tools array of the answer was lost on the way in")
	}
	out := make(json.RawMessage, 0, len(res)-(k-i)+2)
	out = append(append(out, res[:i+2]...), res[k:]...)
	return out, i, pg, nil
}

// parseToolView is parseTool for a tool of a diverted page: its
// description and input schema are views of the page (the schema when it
// is already compact) rather than copies. The tool is validated once
// (rawjson.Valid) and only its small members are decoded: json.Unmarshal
// of the whole tool scanned it twice through encoding/json's state
// machine, schema and description included, for a name. tight says raw
// has no space outside its strings (listPage.tight), so neither has its
// schema: the compact check, a third pass over the schema's strings, is
// skipped.
func parseToolView(raw []byte, tight bool) (rawTool, error) {
	var desc, in, name []byte
	var small []byte // the members decoded into t below, as an object
	names, anns := 0, 0
	var ann []byte // the value of the annotations member
	whole := false
	member := func(k, v []byte) {
		if whole {
			return
		}
		switch {
		// members' rule: the last of each, its key as written.
		case string(k) == "description":
			desc = v
		case string(k) == "inputSchema":
			in = v
		case bytes.IndexByte(k, '\\') >= 0 || bytes.EqualFold(k, []byte("description")) || bytes.EqualFold(k, []byte("inputSchema")):
			// json.Unmarshal matches keys to fields without regard to
			// case, and an escaped key may name any: rare enough for
			// parseTool to decode this tool whole.
			whole = true
		case foldsToField(k):
			if bytes.EqualFold(k, []byte("name")) {
				names++
				name = v
			}
			if string(k) == "annotations" {
				anns++
				ann = v
			}
			small = append(small, ',', '"')
			small = append(small, k...)
			small = append(small, '"', ':')
			small = append(small, v...)
		}
	}
	// Validated and its members read in one pass.
	if len(raw) == 0 || raw[0] != '{' || !rawjson.ValidObject(raw, member) {
		// encoding/json says what is wrong.
		var t struct{ Name string }
		if err := json.Unmarshal(raw, &t); err != nil {
			return rawTool{}, errors.New("decode tool: " + err.Error())
		}
		return rawTool{}, errors.New("decode tool: not a JSON object")
	}
	if whole {
		return parseTool(raw)
	}
	type wire struct {
		Name string `json:"name"`
		toolMetaWire
	}
	var t wire
	s, plain := plainString(name)
	plain = plain && names == 1
	var a *tools.Annotations
	if plain && len(small) == len(name)+len(`,"name":`) {
		t.Name = s // the usual tool: a plain name and nothing for the agent
	} else if plain && anns == 1 && len(small) == len(name)+len(`,"name":`)+len(ann)+len(`,"annotations":`) && plainAnnotations(ann, &a) {
		// The other usual one (every tool of an mcp-go server has
		// annotations, "{}" when none was set).
		t.Name, t.Annotations = s, a
	} else if len(small) > 0 {
		small[0] = '{'
		// Decoded into a value of its own: t, handed to json.Unmarshal,
		// would be on the heap for every tool, not only this rare one.
		u := new(wire)
		if err := json.Unmarshal(append(small, '}'), u); err != nil {
			return rawTool{}, errors.New("decode tool: " + err.Error())
		}
		t = *u
	}
	if t.Name == "" {
		return rawTool{}, errors.New("tool without a name")
	}
	out := rawTool{Name: t.Name, Schema: json.RawMessage(`{"type":"object","properties":{}}`), Meta: t.toolMetaWire.meta()}
	switch {
	case len(desc) == 0 || string(desc) == "null":
	case desc[0] != '"':
		return rawTool{}, errors.New("decode tool: description is not a string")
	default:
		// The tool is valid JSON: Unquote fails only where json.Unmarshal
		// would, which then says why. Its bytes are desc's own or new.
		d, ok := rawjson.Unquote(desc)
		if !ok {
			// Into a string of its own, as t above: out stays off the heap.
			s := new(string)
			if err := json.Unmarshal(desc, s); err != nil {
				return rawTool{}, errors.New("decode tool: " + err.Error())
			}
			out.Description = *s
			break
		}
		out.Description = aliasString(d)
	}
	if len(in) > 0 && in[0] == '{' {
		if tight || compact(in) {
			out.Schema = json.RawMessage(in)
		} else {
			var buf bytes.Buffer
			if err := json.Compact(&buf, in); err == nil {
				out.Schema = buf.Bytes()
			}
		}
	}
	return out, nil
}

// plainAnnotations decodes annotations v into *a as json.Unmarshal does
// when v holds nothing it could read otherwise: null, or an object whose
// keys are plain and each exactly a field's name or no field's at all, its
// hints true, false or null and its title a string or null. It reports
// false for anything else (a json.Unmarshal then decides, or says what is
// wrong).
func plainAnnotations(v []byte, a **tools.Annotations) bool {
	switch v[0] {
	case 'n':
		return true // null: no annotations
	case '{':
	default:
		return false
	}
	var out tools.Annotations
	ok := true
	hint := func(p **bool, x []byte) {
		switch x[0] {
		case 't', 'f':
			b := x[0] == 't'
			*p = &b
		case 'n':
			*p = nil
		default:
			ok = false
		}
	}
	rawjson.EachMember(v, func(k, x []byte) bool {
		switch string(k) {
		case "title":
			switch x[0] {
			case '"':
				t, uok := rawjson.Unquote(x)
				out.Title, ok = string(t), uok
			case 'n':
			default:
				ok = false
			}
		case "readOnlyHint":
			hint(&out.ReadOnly, x)
		case "destructiveHint":
			hint(&out.Destructive, x)
		case "idempotentHint":
			hint(&out.Idempotent, x)
		case "openWorldHint":
			hint(&out.OpenWorld, x)
		default:
			// A key json.Unmarshal may match to a field anyway.
			ok = bytes.IndexByte(k, '\\') < 0 && !foldsToAnnotation(k)
		}
		return ok
	})
	if ok {
		*a = &out
	}
	return ok
}

// foldsToAnnotation tells whether key k names a field of tools.Annotations
// as json.Unmarshal matches them (bytes.EqualFold).
func foldsToAnnotation(k []byte) bool {
	for _, f := range []string{"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if bytes.EqualFold(k, []byte(f)) {
			return true
		}
	}
	return false
}

// foldsToField tells whether key k names a field of parseToolView's
// decode, as json.Unmarshal matches them (bytes.EqualFold).
func foldsToField(k []byte) bool {
	for _, f := range []string{"name", "annotations", "outputSchema", "execution", "_meta"} {
		if bytes.EqualFold(k, []byte(f)) {
			return true
		}
	}
	return false
}

// plainString is the value of a JSON string without escapes whose bytes
// are valid UTF-8, copied (what json.Unmarshal would make of it).
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", false
	}
	return string(v[1 : len(v)-1]), true
}

// compact tells whether valid JSON b has no space outside its strings.
func compact(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = rawjson.SkipValue(b, i) - 1
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return true
}

// repackSparse copies the descriptions and schemas of tools parsed from a
// page of size bytes into one slab of their own when they are less than
// half of it, so that a page mostly made of what the agent drops (icons
// as base64 images, titles, _meta) is not kept alive by its views.
func repackSparse(ts []rawTool, size int) {
	n := 0
	for _, t := range ts {
		n += len(t.Description) + len(t.Schema)
	}
	if 2*n >= size {
		return
	}
	slab := make([]byte, 0, n)
	for i := range ts {
		at := len(slab)
		slab = append(slab, ts[i].Description...)
		ts[i].Description = aliasString(slab[at:])
		at = len(slab)
		slab = append(slab, ts[i].Schema...)
		ts[i].Schema = slab[at:len(slab):len(slab)]
	}
}
