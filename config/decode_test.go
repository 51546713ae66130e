package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// #27: a config file error names the file, the line and column of the key,
// and what the key takes in the user's words, not Go's.
func TestReadErrorsSayWhereAndWhat(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"number given as a string", "{\n  \"model\": \"x\",\n\n\n\n\n\n\n\n\n\n    \"max_steps\": \"25\"\n}",
			`config.json:12:5: "max_steps" must be a whole number, got a string`},
		{"string given as a number", `{"model": 3}`, `config.json:1:2: "model" must be a string (in quotes), got a number`},
		{"fraction for a whole number", "{\n\t\"max_tokens\": 1.5}", `config.json:2:2: "max_tokens" must be a whole number, got 1.5`},
		{"list given as a string", `{"require_approval": "server:github"}`, `config.json:1:2: "require_approval" must be a list of strings (["…"]), got a string`},
		{"bool given as a string", `{"learn": "yes"}`, `config.json:1:2: "learn" must be true or false, got a string`},
		{"float given as a string", `{"defer_threshold": "0.1"}`, `config.json:1:2: "defer_threshold" must be a number, got a string`},
		{"a type's own check", `{"auto_compact": "0.8"}`, `config.json:1:2: "auto_compact": auto_compact must be false, true or a share`},
		{"object given as a list", `{"models": []}`, `config.json:1:2: "models" must be an object ({…}), got a list`},
		{"nested field", "{\"models\": {\"mine\": {\n  \"like\": 5}}}", `config.json:2:3: "models.like" must be a string (in quotes), got a number`},
		{"bad duration", "{\n \"first_byte_timeout\": \"soon\"}", `config.json:2:2: "first_byte_timeout": "soon" is not a duration`},
		{"unknown key", "{\n  \"modle\": \"x\"}", `config.json:2:3: unknown key "modle": did you mean "model"?`},
		{"unknown key, nothing near", "{\n  \"colour\": 1}", `config.json:2:3: unknown key "colour" (see`},
		// A comma after the last entry, which JSON does not allow: said in
		// those words, at the } or ] it comes before.
		{"syntax: trailing comma", "{\n  \"model\": \"x\",\n}", `config.json:3:1: not valid JSON: a comma before this }: JSON allows none after the last entry; remove it`},
		{"syntax: trailing comma on the line", `{"model": "x",}`, `config.json:1:15: not valid JSON: a comma before this }: JSON allows none after the last entry; remove it`},
		{"syntax: trailing comma in a list", `{"require_approval": ["a", "b" , ]}`, `config.json:1:34: not valid JSON: a comma before this ]: JSON allows none after the last entry; remove it`},
		{"syntax: a comma with no entry", `{"model": "x", , "learn": true}`, `config.json:1:15: not valid JSON: invalid character ','`},
		{"syntax: cut short", "{\n  \"model\": \"x\"", `config.json:2:15: not valid JSON: the file ends before its JSON does`},
		{"not an object", `["model"]`, `config.json:1:1: the file must be one JSON object ({ … }), got a list`},
		{"negative", "{\"max_steps\": -3}", `config.json:1:2: "max_steps" must be at least 1, got -3`},
		{"text after the object", `{"model": "x"} {"model": "y"}`, `config.json:1:16: text after the closing }`},
		// A closed set is checked where the value is written (the error came
		// after the merge, naming no file).
		{"not one of a closed set", "{\n  \"permission_mode\": \"yolo\"}", `config.json:2:22: "permission_mode": unknown permission mode "yolo": use default, accept-reads, plan or bypass`},
		{"search mode", `{"search": "sometimes"}`, `config.json:1:12: "search": unknown search mode "sometimes": use native, client or off`},
		{"a map's value of the wrong kind", `{"hooks": {"PreToolUse": "echo hi"}}`, `config.json:1:2: each value of "hooks" must be a list ([…]), got a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Read(path, true)
			if err == nil {
				t.Fatal("no error")
			}
			got := strings.TrimPrefix(err.Error(), filepath.Dir(path)+string(filepath.Separator))
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("got  %s\nwant %s…", got, tt.want)
			}
			if strings.Contains(got, " json:") || strings.Contains(got, "Go struct") || strings.Contains(got, "int64") {
				t.Errorf("Go's words in %q", got)
			}
		})
	}
}

// A valid file reads as before, keys in any order and the empty file as
// nothing.
func TestReadValid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	for _, body := range []string{"", "{}", `{"max_steps": 7, "model": "m", "require_approval": ["a"], "first_byte_timeout": 30, "models": {"x": {"like": "gpt-5.4"}}}`} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Read(path, true)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if body != "" && body != "{}" && (c.MaxSteps != 7 || c.Model != "m" || len(c.RequireApproval) != 1) {
			t.Errorf("%q read as %+v", body, c)
		}
	}
}
