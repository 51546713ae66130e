package mcp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// encodeCatalogBuilt is encodeCatalogExtras as it was before the list was
// streamed (writeCatalog): kept to hold the format to it byte for byte.
func encodeCatalogBuilt(listHash string, ts []cachedTool, extras []byte) []byte {
	n := len(catalogMagic) + len(listHash) + 16
	for _, t := range ts {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema) + len(t.Meta) + 5*binary.MaxVarintLen64
	}
	b := make([]byte, 0, n)
	b = append(b, catalogMagic...)
	b = binary.AppendUvarint(b, uint64(len(listHash)))
	b = append(b, listHash...)
	b = binary.AppendUvarint(b, uint64(len(ts)))
	for _, t := range ts {
		for _, f := range []string{t.Name, t.Description} {
			b = binary.AppendUvarint(b, uint64(len(f)))
			b = append(b, f...)
		}
		b = binary.AppendUvarint(b, uint64(len(t.InputSchema)))
		b = append(b, t.InputSchema...)
		b = binary.AppendUvarint(b, uint64(t.Tokens))
		var flags uint64
		if t.Checked {
			flags |= 1
		}
		b = binary.AppendUvarint(b, flags)
		b = binary.AppendUvarint(b, uint64(len(t.Meta)))
		b = append(b, t.Meta...)
	}
	b = binary.AppendUvarint(b, uint64(len(extras)))
	return append(b, extras...)
}

// smallWrites is a writer that takes at most 3 bytes a call, as a
// writer may.
type smallWrites struct{ bytes.Buffer }

func (s *smallWrites) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i += 3 {
		s.Buffer.Write(p[i:min(i+3, len(p))])
	}
	return len(p), nil
}

// The streamed encoding (writeCatalog, what the store writes) and its
// size (catalogSize) are the bytes the encoder wrote before, whatever the
// fields' lengths against writeCatalog's chunk.
func TestWriteCatalogMatchesBuilt(t *testing.T) {
	many := make([]cachedTool, 300)
	for i := range many {
		many[i] = cachedTool{Name: "tool_" + strings.Repeat("x", i%40), Description: strings.Repeat("d", i*7),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}}}`), Tokens: i * 37, Checked: i%2 == 0,
			Meta: []byte(`{"readOnly":true}`)}
	}
	for _, tc := range []struct {
		name   string
		hash   string
		ts     []cachedTool
		extras []byte
	}{
		{"empty", "", nil, nil},
		{"one tool", "abc", []cachedTool{{Name: "t", Description: "d", InputSchema: json.RawMessage(`{}`), Tokens: 1}}, nil},
		{"fields past the chunk", strings.Repeat("h", 64), []cachedTool{
			{Name: strings.Repeat("n", catalogChunk+1), Description: strings.Repeat("d", 3*catalogChunk),
				InputSchema: json.RawMessage(`{"description":"` + strings.Repeat("s", 2*catalogChunk) + `"}`), Tokens: 1 << 40, Checked: true,
				Meta: bytes.Repeat([]byte("m"), catalogChunk)},
			{Name: "after", Tokens: 300},
		}, bytes.Repeat([]byte("e"), catalogChunk-1)},
		{"many tools and extras", strings.Repeat("f", 64), many, []byte(`{"resources":[{"uri":"file:///a"}]}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := encodeCatalogBuilt(tc.hash, tc.ts, tc.extras)
			var w smallWrites
			if err := writeCatalog(&w, tc.hash, tc.ts, tc.extras); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(w.Bytes(), want) {
				t.Fatalf("streamed %d bytes differ from the %d built", w.Len(), len(want))
			}
			if got := encodeCatalogExtras(tc.hash, tc.ts, tc.extras); !bytes.Equal(got, want) {
				t.Fatalf("encoded %d bytes differ from the %d built", len(got), len(want))
			}
			if n := catalogSize(tc.hash, tc.ts, tc.extras); n != len(want) {
				t.Fatalf("catalogSize %d, wrote %d", n, len(want))
			}
			if _, ts, extras, err := decodeCatalogExtras(w.Bytes()); err != nil || len(ts) != len(tc.ts) || !bytes.Equal(extras, tc.extras) {
				t.Fatalf("read back %d tools, extras %d bytes, %v", len(ts), len(extras), err)
			}
		})
	}
}
