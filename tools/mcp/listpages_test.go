package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/agent-dev/agent/config"
)

// divert runs s through a capReader whose listing waits for a page, in
// one read, a byte a read, in one read with keepRun and divRun off, and in
// reads of a few bytes (the four must agree, pages included: the last
// two read the arrays into their pages, capReader.pageSpace, by runs
// shorter than a string or a member), and returns the output and the
// pages it diverted, by number.
func divert(t *testing.T, s string, lines bool) (string, map[int]*listPage) {
	t.Helper()
	var outs []string
	var got map[int]*listPage
	for i, r := range []io.Reader{strings.NewReader(s), iotest.OneByteReader(strings.NewReader(s)), strings.NewReader(s), &fewReader{strings.NewReader(s), 5}} {
		var p listPages
		p.expect(true)
		cr := newCapReader(r, 1<<20, lines)
		cr.pages = &p
		cr.byteAtATime = i == 2 // keepRun and divRun off
		out, err := io.ReadAll(cr)
		if err != nil {
			t.Fatal(err)
		}
		// The pages' tools, with the output: the runs write them too.
		for n := 1; n <= len(p.done); n++ {
			if pg := p.done[n]; pg != nil {
				checkTight(t, pg, i == 2)
				out = append(append(out, 0), bytes.Join(pg.elems, []byte{0})...)
				out = fmt.Appendf(out, "\x00other %d size %d %q", pg.other, pg.size, bytes.Join(pg.chunks, nil))
			}
		}
		outs = append(outs, string(out))
		got = p.done
	}
	for _, o := range outs[1:] {
		if o != outs[0] {
			t.Fatalf("chunking or the string runs changed the output:\n%.300s\n%.300s", outs[0], o)
		}
	}
	out, _, _ := strings.Cut(outs[0], "\x00")
	return out, got
}

// fewReader reads at most n bytes a read.
type fewReader struct {
	r io.Reader
	n int
}

func (f *fewReader) Read(p []byte) (int, error) { return f.r.Read(p[:min(len(p), f.n)]) }

// checkTight holds a page's tight marks to encoding/json: a valid tool is
// tight when compacting it changes nothing, as divRun reads it (a page
// read byte by byte by feed, notTight, marks none).
func checkTight(t *testing.T, pg *listPage, notTight bool) {
	t.Helper()
	if len(pg.tight) != len(pg.elems) {
		t.Fatalf("%d tight marks for %d tools", len(pg.tight), len(pg.elems))
	}
	for i, e := range pg.elems {
		if !json.Valid(e) {
			continue
		}
		if want := !notTight && isTight(e); pg.tight[i] != want {
			t.Errorf("%q: tight %v, want %v", e, pg.tight[i], want)
		}
	}
}

// isTight: valid JSON b has no space outside its strings.
func isTight(b []byte) bool {
	var c bytes.Buffer
	return json.Compact(&c, b) == nil && bytes.Equal(c.Bytes(), b)
}

// FuzzDivert holds the tools array's fast path (divRun) to feed's byte by
// byte reading, on malformed arrays too: the same output, the same pages.
func FuzzDivert(f *testing.F) {
	for _, s := range []string{
		"[" + toolJSON(1) + "," + toolJSON(2) + "]",
		"[\n  " + toolJSON(1) + ",\n\t" + toolJSON(2) + "\r\n]",
		`[{"a":"x\\\"y\u00e9\\"},"s",1,true,[{"b":2}],{"c":[1,{"d":"}"}]}]`,
		spacedTools,
		`[{"a":1]`, `[{"a":1}}]`, `[{"a":"b` + "\x01" + `c"},{"e":"f\` + "\n" + `"}]`, `[{"a":1}:2]`, `[{"n":"\u12`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, tools string, lines bool) {
		divert(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":`+tools+`,"nextCursor":"n"}}`+"\n"+`{"result":{"tools":`+tools+`}}`, lines)
	})
}

// spacedTools has tools with space outside their strings, each somewhere
// else, and tight ones around them.
const spacedTools = `[{"name":"t1","description":"a b\tc","inputSchema":{"type":"object"}},` +
	`{"name": "t2"},{"name":"t3" ,"inputSchema":{"type":"object"}},{"name":"t4","inputSchema":{"type":` + "\t" + `"object"}},` +
	`{"name":"t5","inputSchema":{"type":"object"}` + "\r" + `},{"name":"t6","inputSchema":{"type":"object","required":[ ]}}, ` +
	`{"name":"t7","inputSchema":{"type":"object","properties":{}}}` + "\n" + `]`

// Each tool of a page is marked tight or not as it is read (checkTight,
// in divert): a schema with space outside its strings is compacted, and
// only those.
func TestDivertMarksTightTools(t *testing.T) {
	_, pages := divert(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":`+spacedTools+`}}`, false)
	if pg := pages[1]; pg == nil || len(pg.elems) != 7 {
		t.Fatalf("page %+v", pg)
	}
	var p listPages
	p.expect(true)
	cr := newCapReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":{"tools":`+spacedTools+`}}`), 1<<20, false)
	cr.pages = &p
	if _, err := io.ReadAll(cr); err != nil {
		t.Fatal(err)
	}
	pg := p.claim(1)
	if want := []bool{true, false, false, false, false, false, true}; !slices.Equal(pg.tight, want) {
		t.Errorf("tight %v, want %v", pg.tight, want)
	}
	for i, e := range pg.elems {
		tool, err := parseToolView(e, pg.tight[i])
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := parseTool(json.RawMessage(e)); string(tool.Schema) != string(want.Schema) {
			t.Errorf("%s: schema %s, want %s", e, tool.Schema, want.Schema)
		}
	}
}

func toolJSON(i int) string {
	return fmt.Sprintf(`{"name":"t%d","description":"tool \"%d\" does things","inputSchema":{"type":"object","properties":{"a%d":{"type":"string"}}}}`, i, i, i)
}

func TestListPagesDivertToolsArrays(t *testing.T) {
	tools := "[" + toolJSON(1) + "," + toolJSON(2) + "]"
	pretty := "[\n  " + toolJSON(1) + ",\n  " + toolJSON(2) + "\n]"
	tests := []struct {
		name, in, want, array string
		lines                 bool
		tools                 int
	}{
		{"JSON body, id first", `{"jsonrpc":"2.0","id":"agent-tools-list-1","result":{"tools":` + tools + `}}`,
			`{"jsonrpc":"2.0","id":"agent-tools-list-1","result":{"tools":` + pageMarker + `1}}`, tools, false, 2},
		// The TypeScript SDK writes the id after the result, and a cursor.
		{"stdio line, id last", `{"result":{"tools":` + tools + `,"nextCursor":"c2"},"jsonrpc":"2.0","id":"x"}` + "\n",
			`{"result":{"tools":` + pageMarker + `1,"nextCursor":"c2"},"jsonrpc":"2.0","id":"x"}` + "\n", tools, true, 2},
		{"SSE event", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"nextCursor\":\"n\",\"tools\":" + tools + "}}\n\n",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"nextCursor\":\"n\",\"tools\":" + pageMarker + "1}}\n\n", tools, true, 2},
		{"pretty body", "{\n \"jsonrpc\": \"2.0\",\n \"id\": 1,\n \"result\": {\n  \"tools\": " + pretty + "\n }\n}",
			"{\n \"jsonrpc\": \"2.0\",\n \"id\": 1,\n \"result\": {\n  \"tools\": " + pageMarker + "1\n }\n}", pretty, false, 2},
		{"empty list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, `{"jsonrpc":"2.0","id":1,"result":{"tools":` + pageMarker + `1}}`, `[]`, false, 0},
		// Only result.tools is taken: a tool result, a request's params
		// and a nested tools key pass.
		{"tool result", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"tools":[1,2]}}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"tools":[1,2]}}}`, "", false, 0},
		{"request", `{"jsonrpc":"2.0","id":2,"method":"x","params":{"tools":[1]}}`, `{"jsonrpc":"2.0","id":2,"method":"x","params":{"tools":[1]}}`, "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, pages := divert(t, tt.in, tt.lines)
			if out != tt.want {
				t.Fatalf("output\n got %s\nwant %s", out, tt.want)
			}
			if tt.array == "" {
				if len(pages) != 0 {
					t.Fatalf("diverted %d pages", len(pages))
				}
				return
			}
			pg := pages[1]
			if pg == nil || string(bytes.Join(pg.chunks, nil)) != tt.array || len(pg.elems) != tt.tools {
				t.Fatalf("page %+v", pg)
			}
			for i, e := range pg.elems {
				if string(e) != toolJSON(i+1) {
					t.Errorf("element %d = %s", i, e)
				}
			}
		})
	}
	// With no listing waiting, nothing is diverted.
	in := `{"jsonrpc":"2.0","id":1,"result":{"tools":` + tools + `}}`
	if out := capAll(t, in, 1<<20, false); out != in {
		t.Fatalf("not waiting: %s", out)
	}
}

// The page as the server sent it comes back from the marked result and
// the page's chunks: the list's hash is the one the catalog cache holds.
func TestClaimPageRebuildsTheServersPage(t *testing.T) {
	var big strings.Builder
	big.WriteString("[")
	for i := range 3000 {
		if i > 0 {
			big.WriteString(",")
		}
		if i == 1500 {
			// one tool larger than a chunk
			fmt.Fprintf(&big, `{"name":"huge","description":%q,"inputSchema":{"type":"object"}}`, strings.Repeat("x", 3*maxPageChunk))
			continue
		}
		big.WriteString(toolJSON(i))
	}
	big.WriteString("]")
	result := `{"_meta":{"a":1},"tools": ` + big.String() + `,"nextCursor":"abc"}`
	var p listPages
	p.expect(true)
	cr := newCapReader(strings.NewReader(`{"result":`+result+`,"jsonrpc":"2.0","id":"agent-tools-list-9"}`+"\n"), 1<<20, true)
	cr.pages = &p
	out, err := io.ReadAll(cr)
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(out, &msg); err != nil {
		t.Fatal(err)
	}
	c := &conn{}
	c.pages.done = p.done
	c.pages.waiting = true
	res, at, pg, err := c.claimPage(msg.Result)
	if err != nil || pg == nil {
		t.Fatal(pg, err)
	}
	if len(pg.chunks) < 3 || len(pg.elems) != 3000 {
		t.Fatalf("%d chunks, %d tools", len(pg.chunks), len(pg.elems))
	}
	rebuilt := string(res[:at]) + string(bytes.Join(pg.chunks, nil)) + string(res[at+2:])
	if rebuilt != result {
		t.Fatalf("rebuilt page differs:\n%.200s\n%.200s", rebuilt, result)
	}
	if string(res) != `{"_meta":{"a":1},"tools": [],"nextCursor":"abc"}` {
		t.Fatalf("result %s", res)
	}
	for i, e := range pg.elems {
		if !json.Valid(e) || cap(e) != len(e) {
			t.Fatalf("tool %d: %.100s", i, e)
		}
	}
	if _, _, _, err := c.claimPage(msg.Result); err == nil {
		t.Fatal("a page claimed twice")
	}
}

// parseToolView gives what parseTool gives, and fails where it fails.
func TestParseToolViewMatchesParseTool(t *testing.T) {
	tests := []string{
		toolJSON(1),
		`{"name":"a","description":"plain","inputSchema":{"type":"object","properties":{"x":{"type":"string","description":"a \"quoted\" word"}}}}`,
		`{"name":"b","description":"line\nbreak \u00e9","inputSchema": { "type" : "object" }}`,
		`{"name":"c"}`,
		`{"name":"d","description":null,"inputSchema":[1]}`,
		`{"name":"e","description":"x","inputSchema":"nope"}`,
		`{"inputSchema":{"type":"object"},"description":"last wins","name":"f","description":"second","icons":[{"src":"data:image/png;base64,AAAA"}]}`,
		`{"name":"g","annotations":{"readOnlyHint":true},"outputSchema":{ "type": "object" },"execution":{"taskSupport":"required"},"inputSchema":{}}`,
		`{"name":"","description":"x"}`,
		`{"name":"h","description":12}`,
		`{"name":"i","description":"bad utf8 ` + "\xff" + `"}`,
		`[1]`,
		// Keys match fields without regard to case, escaped or not;
		// a repeated object member merges, as json.Unmarshal has it.
		`{"NAME":"j","description":"x"}`,
		`{"n\u0061me":"k","inputSchema":{"type":"object"}}`,
		`{"name":"l","Name":"l2"}`,
		`{"name":"m\u00e9"}`,
		`{"name":5}`,
		`{"name":"n","annotations":"yes"}`,
		`{"name":"o","Annotations":{"title":"T"},"annotations":{"readOnlyHint":true},"EXECUTION":{"taskSupport":"optional"}}`,
		`{"name":"p","execution":{"taskSupport":"required"},"execution":{}}`,
		`{"name":"q","outputSchema":{ "type" : "object" },"icons":[{"src":"data:image/png;base64,AAAA"}],"title":"Q"}`,
		// MCP Apps: an app-only tool, either way.
		`{"name":"ap","_meta":{"ui":{"visibility":["app"],"resourceUri":"ui://x/app.html"}},"inputSchema":{"type":"object"}}`,
		`{"name":"aq","_META":{"ui":{"visibility":["model","app"]}}}`,
		"{\"name\":\"r\",\"description\":\"raw\u0001control\"}",
		"{\"name\":\"s\",\"description\":\"ctl \x01\"}",
		`{"name":"t",}`,
		`{"name":"u"} {}`,
		`"v"`,
		// Annotations as an mcp-go server sends them, decoded without
		// json.Unmarshal, and the ones left to it.
		`{"name":"x1","description":"d","inputSchema":{"type":"object"},"annotations":{}}`,
		`{"annotations":{"title":"T \"q\"","readOnlyHint":true,"destructiveHint":false,"idempotentHint":null,"openWorldHint":true,"other":[1]},"name":"x2"}`,
		`{"name":"x3","annotations":null}`,
		`{"name":"x4","annotations":{"readOnlyHint":true,"readOnlyHint":false,"title":"a","title":null}}`,
		`{"name":"x5","annotations":{"ReadOnlyHint":true}}`,
		`{"name":"x6","annotations":{"readOnlyHint":"yes"}}`,
		`{"name":"x7","annotations":{"title":5}}`,
		`{"name":"x8","annotations":{"readOnlyHint":true},"annotations":{"title":"merged"}}`,
		`{"name":"x9","annotations":{"r\u0065adOnlyHint":true}}`,
		`{"name":"x10","annotations":[true]}`,
		`{"name":"x11","annotations":{"readOnlyHint":true},"outputSchema":{"type":"object"}}`,
		`{"name":"x12","annotations":{"title":"bad ` + "\xff" + `"}}`,
		// description and inputSchema under another case or escaped.
		`{"name":"y1","desCription":"d","inputschema":{ "type" : "object" }}`,
		`{"name":"y2","description":"first","Description":"last","inputSchema":{},"INPUTSCHEMA":{"type":"object"}}`,
		`{"name":"y3","descr\u0069ption":"escaped key"}`,
		// Escapes rawjson.Unquote decodes as json.Unmarshal does.
		`{"name":"w","description":"pair \ud83d\ude00, alone \ud83d, \\ \/ \b\f\r\t bad ` + "\xff\xe2\x82" + ` \"q\""}`,
	}
	for _, raw := range tests {
		checkParseToolView(t, []byte(raw))
	}
}

// FuzzParseToolView holds parseToolView to parseTool (json.Unmarshal).
func FuzzParseToolView(f *testing.F) {
	f.Add([]byte(toolJSON(1)))
	f.Add([]byte(`{"name":"x","annotations":{"title":"T","readOnlyHint":true,"openWorldHint":null},"description":"a\nb"}`))
	f.Add([]byte(`{"NAME":"y","annotations":{"ReadOnlyHint":false},"outputSchema":{ "type": "object" },"execution":{"taskSupport":"optional"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkParseToolView(t, raw)
	})
}

func checkParseToolView(t *testing.T, raw []byte) {
	t.Helper()
	want, werr := parseTool(json.RawMessage(raw))
	// Read as a page read it: marked tight or not (listPage.tight).
	for _, tight := range []bool{false, json.Valid(raw) && isTight(raw)} {
		got, gerr := parseToolView(raw, tight)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s (tight %v): errors %v / %v", raw, tight, werr, gerr)
			return
		}
		if werr != nil {
			return
		}
		if got.Name != want.Name || got.Description != want.Description || string(got.Schema) != string(want.Schema) {
			t.Errorf("%s (tight %v):\n got %q %q %s\nwant %q %q %s", raw, tight, got.Name, got.Description, got.Schema, want.Name, want.Description, want.Schema)
		}
		if !got.Meta.equal(want.Meta) {
			t.Errorf("%s (tight %v): meta %+v, want %+v", raw, tight, got.Meta, want.Meta)
		}
	}
}

// A large tools/list is read once: mcp-go's reading (a doubling decoder
// buffer, then a copy of the result) and the parse that followed took
// eight times the list's size; the diverted page and its tools as views of
// it take about twice, the parsed names and metadata included.
func TestLargeListReadOnce(t *testing.T) {
	var page bytes.Buffer
	page.WriteString(`{"jsonrpc":"2.0","id":ID,"result":{"tools":[`)
	for i := range 4000 {
		if i > 0 {
			page.WriteString(",")
		}
		fmt.Fprintf(&page, `{"name":"tool_%d","description":"%s","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"%s"}}}}`,
			i, strings.Repeat("does a thing ", 40), strings.Repeat("a query ", 60))
	}
	page.WriteString(`]}}`)
	list := page.Bytes()
	// hugeHTTPServer's streamable HTTP, with this list as tools/list's answer.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil || req.Method != "tools/list" {
			r.Body = io.NopCloser(bytes.NewReader(body))
			hugeHTTPServer(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		i := bytes.Index(list, []byte("ID"))
		_, _ = w.Write(list[:i])
		_, _ = w.Write(req.ID)
		_, _ = w.Write(list[i+2:])
	}))
	t.Cleanup(srv.Close)
	cfg := config.MCPServer{Name: "big", Type: config.MCPHTTP, URL: srv.URL, Source: "test"}
	var m *Manager
	var errs []error
	alloc := allocated(func() { m, _, errs = startManager(t, Options{}, cfg) })
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	set := register(t, m)
	if n := len(set.All()); n != 4000 {
		t.Fatalf("%d tools", n)
	}
	t.Logf("listing %d KB allocated %d KB", len(list)>>10, alloc>>10)
	if alloc > 5*uint64(len(list))/2 {
		t.Errorf("listing %d KB allocated %d KB", len(list)>>10, alloc>>10)
	}
}

// Tools parsed from a page mostly made of icons are copied out of it; a
// page that is mostly their definitions stays what they are views of.
func TestRepackSparse(t *testing.T) {
	icon := strings.Repeat("A", 10_000)
	for _, tt := range []struct {
		name   string
		icons  bool
		repack bool
	}{{"icons", true, true}, {"definitions", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			var elems []string
			for i := range 20 {
				e := toolJSON(i)
				if tt.icons {
					e = e[:len(e)-1] + `,"icons":[{"src":"data:image/png;base64,` + icon + `"}]}`
				}
				elems = append(elems, e)
			}
			out, pages := divert(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[`+strings.Join(elems, ",")+`]}}`, false)
			if !strings.Contains(out, pageMarker) {
				t.Fatal(out)
			}
			pg := pages[1]
			var ts []rawTool
			for _, e := range pg.elems {
				tool, err := parseToolView(e, false)
				if err != nil {
					t.Fatal(err)
				}
				ts = append(ts, tool)
			}
			before := slices.Clone(ts)
			repackSparse(ts, pg.size)
			for i := range ts {
				want, _ := parseTool(json.RawMessage(elems[i]))
				if ts[i].Description != want.Description || string(ts[i].Schema) != string(want.Schema) || cap(ts[i].Schema) != len(ts[i].Schema) {
					t.Fatalf("tool %d: %q %s", i, ts[i].Description, ts[i].Schema)
				}
				inPage := unsafe.SliceData(ts[i].Schema) == unsafe.SliceData(before[i].Schema)
				if inPage == tt.repack {
					t.Fatalf("tool %d: still a view of the page: %v, want %v", i, inPage, !tt.repack)
				}
			}
		})
	}
}
