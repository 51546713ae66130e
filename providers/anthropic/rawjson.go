package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// field is one member of a JSON object, kept in the order it arrived so a
// block can be rebuilt (a streamed block's input filled in, an option
// merged into a tool) without reordering what the API or the user wrote.
type field struct {
	Key   string
	Value json.RawMessage
}

type object []field

// parseObject splits a JSON object into its members, in order.
func parseObject(raw []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, field{k, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o object) get(k string) json.RawMessage {
	for _, f := range o {
		if f.Key == k {
			return f.Value
		}
	}
	return nil
}

// set replaces k in place, or appends it.
func (o object) set(k string, v json.RawMessage) object {
	for i, f := range o {
		if f.Key == k {
			o[i].Value = v
			return o
		}
	}
	return append(o, field{k, v})
}

func (o object) without(k string) object {
	out := o[:0:0]
	for _, f := range o {
		if f.Key != k {
			out = append(out, f)
		}
	}
	return out
}

// MarshalJSON writes the members compactly, in order, without HTML escaping.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := marshal(f.Key)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		if err := json.Compact(&b, f.Value); err != nil {
			return nil, fmt.Errorf("member %q: %w", f.Key, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v compactly without escaping <, > and &, so text and raw
// blocks go out exactly as they came in.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func mustMarshal(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		panic(err) // only used on values built here, which always encode
	}
	return b
}

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

// blockType reads the "type" member of a block.
func blockType(raw []byte) string {
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &t)
	return t.Type
}
