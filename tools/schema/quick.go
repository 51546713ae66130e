package schema

import (
	"bytes"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agent-dev/agent/internal/rawjson"
)

// quickValid reports whether check(s) certainly returns nil, reading s in
// place: the same rules as check's (a top-level object schema, every
// "type" a JSON Schema type, the keywords of the 2020-12 meta-schema the
// right shape, every local $ref resolving), without decoding s into maps.
// The decode was most of a cold start's schema check: 282 tools' schemas
// made 55,000 allocations and 3 MB of garbage before the first request.
// It answers false whenever it is not sure (an escape in a key or in a
// string it compares, a keyword metaValid2020 leaves to the library, a
// $schema of another draft), and Check then runs check, whose message
// names the problem. Where s repeats a key, the decoder keeps the last
// value; quickValid holds every value to the rule, which is stricter.
// TestQuickValidAgreesWithCheck and FuzzQuickValid hold it to check.
//
// It is one pass over s, validating it as rawjson.Valid does and holding
// each value to what the walks of check (walkRole) and the meta-schema
// (metaRole) want of it where it is: each value's end is found as it is
// read, so nested values are not scanned again per depth (the walks over
// rawjson.EachMember did: 20 M instructions of a cold start's listing).
func quickValid(s []byte) bool {
	if len(s) == 0 || s[0] != '{' || !metaWalk {
		return false
	}
	if len(s) > math.MaxInt32 {
		return false // spans keep offsets as int32
	}
	q := quick{root: s}
	end, ok := q.value(0, 0, walkOn|walkTypes, metaTop)
	if !ok || rawjson.SkipSpace(s, end) != len(s) || !fastDialects[metaURL(q.url)] {
		return false
	}
	// The local $refs, resolved now that the root is known to be valid
	// JSON (resolve reads it with rawjson.EachMember).
	for i := range q.locals.n {
		if at := q.locals.at(i); !q.resolves(unsafeString(s[at[0]:at[1]])) {
			return false
		}
	}
	return true
}

type quick struct {
	root []byte
	// url is the top level's $schema.
	url string
	// locals are the local $refs met (where they are in root, without
	// their quotes), to resolve after the pass.
	locals few[[2]int32]
	// spans are the members of the objects at depth 1 and 2 (the top
	// level and its $defs...), as the pass read them, for resolve: it
	// went through them again to find each value's end. Offsets, not
	// slices: no pointer for the garbage collector to follow or guard.
	spans few[span]
	// refs remembers resolves' answers: a schema refers to the same
	// definition many times over, and each answer walked the root again.
	refs map[string]bool
	// objs are the objects resolve went through, by where they start.
	objs map[*byte]map[string][]byte
}

// span is a member of the object starting at root[obj], its key at
// root[k:ke] and its value at root[v:ve]; with ke 0, the mark that all of
// obj's members are among the spans.
type span struct{ obj, k, ke, v, ve int32 }

// few is a list whose first items are kept in place: a quick holding a
// slice of its own array would be moved to the heap, 282 of them a cold
// start.
type few[T any] struct {
	n    int
	buf  [32]T
	more []T
}

func (l *few[T]) add(x T) {
	if l.n < len(l.buf) {
		l.buf[l.n] = x
	} else {
		l.more = append(l.more, x)
	}
	l.n++
}

func (l *few[T]) at(i int) T {
	if i < len(l.buf) {
		return l.buf[i]
	}
	return l.more[i-len(l.buf)]
}

// walkRole is what checkTypes and checkRefs do with a value: nothing
// (walkNone: it is a value of enum, const, default or examples, not a
// schema), or walk it (walkOn), as a name→schema map whose names are not
// keywords (walkMap: properties, $defs...), checking its "type"s
// (walkTypes: checkTypes skips example's value, checkRefs does not).
type walkRole uint8

const (
	walkNone walkRole = 0
	walkOn   walkRole = 1 << (iota - 1)
	walkMap
	walkTypes
)

// metaRole is what metaValid2020 wants of a value.
type metaRole uint8

const (
	metaNone       metaRole = iota // nothing, or a leaf keyword's shape (leafValid, once the value is read)
	metaTop                        // the top level: a schema, its type "object", its $schema any string
	metaSchema                     // a schema: true, false or an object of valid keywords
	metaSchemas                    // an object of schemas ($defs, properties...)
	metaSchemaList                 // a non-empty array of schemas (allOf...)
	metaDeps                       // dependencies: an object of string arrays and schemas
)

// value reads the value at root[i] (not at space), nested in depth arrays
// and objects, as w and m want it, and returns its end. A value neither
// walk looks into is skipped by rawjson.ValueEnd, which validates it.
func (q *quick) value(i, depth int, w walkRole, m metaRole) (int, bool) {
	s := q.root
	if i >= len(s) {
		return i, false
	}
	c := s[i]
	switch m {
	case metaSchema:
		if c != '{' && c != 't' && c != 'f' {
			return i, false
		}
	case metaSchemas, metaDeps:
		if c != '{' {
			return i, false
		}
	case metaSchemaList:
		if c != '[' {
			return i, false
		}
	}
	if w != walkNone || m != metaNone {
		switch c {
		case '{':
			return q.object(i, depth+1, w, m)
		case '[':
			return q.array(i, depth+1, w, m)
		}
	}
	return rawjson.ValueEnd(s, i, depth)
}

func (q *quick) object(i, depth int, w walkRole, m metaRole) (int, bool) {
	s := q.root
	if depth > rawjson.MaxDepth {
		return i, false
	}
	obj := i
	if depth <= 2 {
		q.spans.add(span{obj: int32(obj)})
	}
	i = rawjson.SkipSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		ke, ok := rawjson.StringEnd(s, i)
		if !ok {
			return ke, false
		}
		k := s[i+1 : ke-1]
		i = rawjson.SkipSpace(s, ke)
		if i >= len(s) || s[i] != ':' {
			return i, false
		}
		vs := rawjson.SkipSpace(s, i+1)
		if vs >= len(s) {
			return vs, false
		}
		kind := kwOther
		if w != walkNone || m == metaTop || m == metaSchema {
			if bytes.IndexByte(k, '\\') >= 0 {
				// The name decides what comes next, and a keyword
				// may be spelled with an escape: check decodes it.
				return vs, false
			}
			kind = keyword(k)
		}
		cw, cm := member(kind, s[vs], w, m)
		if i, ok = q.value(vs, depth, cw, cm); !ok || !q.read(kind, vs, s[vs:i:i], w, m) {
			return i, false
		}
		if depth <= 2 {
			q.spans.add(span{int32(obj), int32(ke - len(k) - 1), int32(ke - 1), int32(vs), int32(i)})
		}
		i = rawjson.SkipSpace(s, i)
		switch {
		case i >= len(s):
			return i, false
		case s[i] == '}':
			return i + 1, true
		case s[i] != ',':
			return i, false
		}
		i = rawjson.SkipSpace(s, i+1)
	}
}

func (q *quick) array(i, depth int, w walkRole, m metaRole) (int, bool) {
	s := q.root
	if depth > rawjson.MaxDepth {
		return i, false
	}
	cw := walkNone
	if w != walkNone {
		cw = walkOn | w&walkTypes
	}
	cm := metaNone
	if m == metaSchemaList {
		cm = metaSchema
	}
	i = rawjson.SkipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return i + 1, m != metaSchemaList // allOf and the others want one schema
	}
	for {
		var ok bool
		if i, ok = q.value(i, depth, cw, cm); !ok {
			return i, false
		}
		i = rawjson.SkipSpace(s, i)
		switch {
		case i >= len(s):
			return i, false
		case s[i] == ']':
			return i + 1, true
		case s[i] != ',':
			return i, false
		}
		i = rawjson.SkipSpace(s, i+1)
	}
}

// member is what the walks want of the value of a member named k (kind)
// of an object they read as w and m, whose first byte is c.
func member(k kw, c byte, w walkRole, m metaRole) (walkRole, metaRole) {
	cw := walkNone
	if w != walkNone {
		cw = walkOn | w&walkTypes
		if w&walkMap == 0 {
			switch k {
			case kwEnum, kwConst, kwExamples:
				cw = walkNone // values, not schemas
			case kwExample:
				cw = walkOn // checkTypes skips it, checkRefs does not
			}
		}
		// As check has it (isSchemaMap), by the name alone: a property
		// named "properties" is read as a map too.
		if cw != walkNone && k == kwSchemas {
			cw |= walkMap
		}
	}
	cm := metaNone
	switch m {
	case metaTop, metaSchema:
		cm = k.role()
	case metaSchemas:
		cm = metaSchema
	case metaDeps:
		if c != '[' {
			cm = metaSchema
		}
	}
	return cw, cm
}

// read holds the value x of a member named k, at root[vs], read as member
// had it, to the rules that need it whole: a "type" of a schema, a $ref,
// a leaf keyword's shape.
func (q *quick) read(k kw, vs int, x []byte, w walkRole, m metaRole) bool {
	if w&(walkOn|walkMap) == walkOn {
		switch k {
		case kwType:
			if w&walkTypes != 0 && !typeValid(x) {
				return false
			}
		case kwRef:
			if x[0] == '"' {
				ref, plain := plainString(x)
				if !plain {
					return false
				}
				if strings.HasPrefix(ref, "#") {
					q.locals.add([2]int32{int32(vs + 1), int32(vs + 1 + len(ref))})
				}
			}
		}
	}
	switch m {
	case metaTop:
		switch k {
		case kwType:
			return string(x) == `"object"`
		case kwSchemaURL:
			var plain bool
			q.url, plain = plainString(x)
			return plain
		}
		return leafValid(k, x)
	case metaSchema:
		return leafValid(k, x)
	case metaDeps:
		return x[0] != '[' || uniquePlainStrings(x, nil, true)
	}
	return true
}

// resolves is resolve(root, ref) != nil over the raw root: each segment is
// the last member of that name, and the end an object.
func (q *quick) resolves(ref string) bool {
	if ref == "#" {
		return true
	}
	if ok, seen := q.refs[ref]; seen {
		return ok
	}
	ok := q.resolve(ref)
	if q.refs == nil {
		q.refs = map[string]bool{}
	}
	q.refs[ref] = ok
	return ok
}

// resolve is resolves without the memory.
func (q *quick) resolve(ref string) bool {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	cur := q.root
	for {
		seg, rest, more := strings.Cut(p, "/")
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if cur[0] != '{' {
			return false
		}
		next, found := q.members(cur)[seg]
		if !found {
			return false
		}
		cur = next
		if !more {
			break
		}
		p = rest
	}
	return cur[0] == '{'
}

// members is the object o of the root by key, the last member of each
// name; nil when a key may decode to other bytes (an escape, or invalid
// UTF-8 read as U+FFFD), which may name any segment: check decodes them.
// Each object is read once: the refs of a schema mostly go through the
// same few ($defs), and each went through all of their members.
func (q *quick) members(o []byte) map[string][]byte {
	at := unsafe.SliceData(o)
	if m, ok := q.objs[at]; ok {
		return m
	}
	m := map[string][]byte{}
	add := func(k, x []byte) bool {
		if bytes.IndexByte(k, '\\') >= 0 || !utf8.Valid(k) {
			m = nil
			return false
		}
		m[unsafeString(k)] = x
		return true
	}
	if q.spanned(at) {
		for i := range q.spans.n {
			if sp := q.spans.at(i); sp.ke != 0 && &q.root[sp.obj] == at && !add(q.root[sp.k:sp.ke], q.root[sp.v:sp.ve:sp.ve]) {
				break
			}
		}
	} else {
		rawjson.EachMember(o, add)
	}
	if q.objs == nil {
		q.objs = map[*byte]map[string][]byte{}
	}
	q.objs[at] = m
	return m
}

// spanned reports whether the members of the object starting at at are
// among q.spans.
func (q *quick) spanned(at *byte) bool {
	for i := range q.spans.n {
		if sp := q.spans.at(i); sp.ke == 0 && &q.root[sp.obj] == at {
			return true
		}
	}
	return false
}
