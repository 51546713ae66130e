package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/agent-dev/agent/internal/suggest"
)

// A config file is read key by key so that an error names the file, the
// line and column of the key, and what the key takes in the user's words:
// config.json:12:5: "max_steps" must be a whole number, got a string.

// decode reads the config file's bytes b (from path) into a Config.
func decode(path string, b []byte) (Config, error) {
	var f Config
	at := func(off int64, format string, a ...any) error {
		line, col := position(b, off)
		return fmt.Errorf("%s:%d:%d: %s (see docs/config.md)", path, line, col, fmt.Sprintf(format, a...))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err == io.EOF {
		return f, nil // an empty file sets nothing
	}
	if err != nil {
		return f, syntaxError(path, b, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return f, at(dec.InputOffset()-1, "the file must be one JSON object ({ … }), got %s", jsonKind(tok))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return f, syntaxError(path, b, err)
		}
		key, _ := tok.(string)
		keyAt := keyOffset(b, dec.InputOffset(), key)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return f, syntaxError(path, b, err)
		}
		valueAt := dec.InputOffset() - int64(len(raw))
		k, ok := Lookup(key)
		if !ok {
			if near := suggest.Nearest(key, keyNames()); near != "" {
				return f, at(keyAt, "unknown key %q: did you mean %q?", key, near)
			}
			return f, at(keyAt, "unknown key %q", key)
		}
		name, _ := json.Marshal(key)
		err = json.Unmarshal([]byte("{"+string(name)+":"+string(raw)+"}"), &f)
		var te *json.UnmarshalTypeError
		switch {
		case err == nil:
			// A closed set is checked here, where the file and the place are
			// known; Validate, after the merge, can only name the key.
			var v string
			if len(k.Enum) > 0 && json.Unmarshal(raw, &v) == nil {
				if err := k.check(v); err != nil {
					return f, at(valueAt, "%q: %v", key, err)
				}
			}
		case errors.As(err, &te):
			field, where := key, keyAt
			if te.Field != "" && te.Field != key {
				field = te.Field
				// The offset counts in the one-key document: after the bad
				// value, whose key is the field's last part.
				last := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
				where = keyOffset(b, valueAt+te.Offset-int64(len(name))-2, last)
			}
			if t := k.typ; field == key && t != nil && t.Kind() == reflect.Map && te.Type == t.Elem() {
				// encoding/json names the map, not the entry: "hooks":
				// {"PreToolUse": "echo hi"} is a value of the wrong kind.
				return f, at(where, "each value of %q must be %s, got %s", field, typeWords(te.Type, k), valueWords(te.Value))
			}
			return f, at(where, "%q must be %s, got %s", field, typeWords(te.Type, k), valueWords(te.Value))
		default:
			// A type's own check (a duration, a server entry).
			return f, at(keyAt, "%q: %v", key, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return f, syntaxError(path, b, err)
	}
	if dec.More() {
		return f, at(dec.InputOffset(), "text after the closing }")
	}
	return f, nil
}

// syntaxError places a JSON syntax error.
func syntaxError(path string, b []byte, err error) error {
	var se *json.SyntaxError
	off := int64(len(b))
	if errors.As(err, &se) {
		off = se.Offset - 1 // the offset counts the offending byte
	}
	msg := err.Error()
	// json.Unmarshal says "unexpected end of JSON input" as a SyntaxError
	// placed at the end; a Decoder says io.ErrUnexpectedEOF.
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || se != nil && se.Offset >= int64(len(b)) {
		msg = "the file ends before its JSON does (a missing } or ]?)"
	}
	if at, ok := trailingComma(b, off); ok {
		off, msg = at, trailingCommaText(b[at])
	}
	line, col := position(b, off)
	return fmt.Errorf("%s:%d:%d: not valid JSON: %s", path, line, col, msg)
}

// trailingComma reports whether the error at off is a comma right before
// the } or ] that closes an object or a list, the JSON error people make
// most (JavaScript and many examples allow it), and where that } or ] is:
// encoding/json places it at the comma, or past it, or at the closing
// byte, depending on the API. Told by the bytes, not by its wording.
func trailingComma(b []byte, off int64) (int64, bool) {
	if off < 0 || off > int64(len(b)) {
		return 0, false
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	j := off
	for j < int64(len(b)) && isSpace(b[j]) {
		j++
	}
	if j < int64(len(b)) && b[j] == ',' {
		j++
		for j < int64(len(b)) && isSpace(b[j]) {
			j++
		}
	}
	if j >= int64(len(b)) || (b[j] != '}' && b[j] != ']') {
		return 0, false
	}
	// A comma before it, after an entry: "{,}" is another mistake.
	prev := bytes.TrimRight(b[:j], " \t\r\n")
	if len(prev) == 0 || prev[len(prev)-1] != ',' {
		return 0, false
	}
	prev = bytes.TrimRight(prev[:len(prev)-1], " \t\r\n")
	return j, len(prev) > 0 && !bytes.ContainsAny(prev[len(prev)-1:], "{[,")
}

func trailingCommaText(c byte) string {
	return fmt.Sprintf("a comma before this %c: JSON allows none after the last entry; remove it", c)
}

// position is the 1-based line and column (in characters) of offset off.
func position(b []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(b))))
	before := b[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, len([]rune(string(before[lineStart:]))) + 1
}

// keyOffset finds where key is written before off (its opening quote).
func keyOffset(b []byte, off int64, key string) int64 {
	off = max(0, min(off, int64(len(b))))
	q, _ := json.Marshal(key)
	if i := bytes.LastIndex(b[:off], q); i >= 0 {
		return int64(i)
	}
	return off
}

// typeWords says what a value of type t is, as a user writes it.
func typeWords(t reflect.Type, k Key) string {
	if t == nil {
		return "another kind of value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		if len(k.Enum) > 0 && t == k.typ {
			return "one of " + orList(k.Enum)
		}
		return "a string (in quotes)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.String {
			return "a list of strings ([\"…\"])"
		}
		return "a list ([…])"
	case reflect.Map, reflect.Struct:
		return "an object ({…})"
	}
	return "another kind of value"
}

// valueWords says what the file has, from encoding/json's word for it.
func valueWords(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return n
	}
	return v
}

// jsonKind names a first token that is not an object.
func jsonKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "a list"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "true or false"
	}
	return "null"
}

// keyNames is every config key, for "did you mean".
func keyNames() []string {
	var names []string
	for _, k := range Keys() {
		names = append(names, k.Name)
	}
	return names
}

// Locate is where the file at path sets the top-level key: "path:line:col",
// or path alone when the file cannot be read or does not set it. A value
// checked above config (a theme, a provider) is named by its place, as
// the file's own errors are.
func Locate(path, key string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return path
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return path
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return path
		}
		k, _ := tok.(string)
		if k == key {
			line, col := position(b, keyOffset(b, dec.InputOffset(), k))
			return fmt.Sprintf("%s:%d:%d", path, line, col)
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return path
		}
	}
	return path
}
