package commands

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		name, file, text string
		want             Command
		err              string // part of the one-line error, with file:line
	}{
		{"plain", "fix.md", "Fix the failing test.\nThen run it.", Command{Name: "fix", Description: "Fix the failing test.", Body: "Fix the failing test.\nThen run it."}, ""},
		{"front matter", "review.md", "---\ndescription: Review a PR\nargument-hint: [pr] [priority]\nmodel: claude-opus-4-5\nallowed-tools: github__get_pr, server:git\n---\nReview PR #$1 at $2.\n",
			Command{Name: "review", Description: "Review a PR", ArgumentHint: "[pr] [priority]", Model: "claude-opus-4-5", AllowedTools: []string{"github__get_pr", "server:git"}, Body: "Review PR #$1 at $2."}, ""},
		{"tools as a list, CRLF, Claude Code's own field", "t.md", "---\r\nallowed-tools:\r\n  - a\r\n  - b*\r\ndisable-model-invocation: true\r\n---\r\n# Title\r\nbody", Command{Name: "t", Description: "Title", AllowedTools: []string{"a", "b*"}, Body: "# Title\nbody"}, ""},
		{"only a hint", "h.md", "---\nargument-hint: <file>\n---\nRead $1", Command{Name: "h", Description: "Read $1", ArgumentHint: "<file>", Body: "Read $1"}, ""},
		{"unknown field", "u.md", "---\ndescription: x\ncolour: red\n---\nbody", Command{}, "u.md:3: custom command: field colour: unknown field"},
		{"bad YAML", "y.md", "---\ndescription: [x\n---\nbody", Command{}, "y.md:"},
		{"not a string", "s.md", "---\ndescription:\n  a: b\n---\nbody", Command{}, "s.md:3: custom command: field description: must be a string"},
		{"never closed", "c.md", "---\ndescription: x\nbody", Command{}, "c.md:1: custom command: the front matter opened with --- is never closed"},
		{"no body", "e.md", "---\ndescription: x\n---\n", Command{}, "e.md: custom command: the file has no prompt"},
		{"bad name", "a:b.md", "body", Command{}, "the file name must be"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse(c.file, []byte(c.text))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line with %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.want.Path = c.file
			if strings.Join(got.AllowedTools, ",") != strings.Join(c.want.AllowedTools, ",") {
				t.Errorf("allowed-tools %q, want %q", got.AllowedTools, c.want.AllowedTools)
			}
			got.AllowedTools, c.want.AllowedTools = nil, nil
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	cases := []struct{ body, args, want string }{
		{"Fix issue #$ARGUMENTS now.", "123 and 456", "Fix issue #123 and 456 now."},
		{"Review PR #$1 with priority $2; all: $ARGUMENTS", `456 "very high"`, `Review PR #456 with priority very high; all: 456 "very high"`},
		{"Missing: [$3]", "a b", "Missing: []"},
		{"No placeholder.", "keep me", "No placeholder.\n\nARGUMENTS: keep me"},
		{"No placeholder.", "", "No placeholder."},
		{"$12 is the twelfth", "a", " is the twelfth"},
	}
	for _, c := range cases {
		if got := (Command{Body: c.body}).Expand(c.args); got != c.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", c.body, c.args, got, c.want)
		}
	}
}

func TestCall(t *testing.T) {
	cases := []struct {
		text, name, args string
		ok               bool
	}{
		{"/review 12 high", "review", "12 high", true},
		{"  /fix", "fix", "", true},
		{"/fix\nline two", "fix", "line two", true},
		{"/etc/passwd is what?", "", "", false},
		{"/github:prompt x", "", "", false},
		{"hello /fix", "", "", false},
	}
	for _, c := range cases {
		name, args, ok := Call(c.text)
		if name != c.name || args != c.args || ok != c.ok {
			t.Errorf("Call(%q) = %q %q %v", c.text, name, args, ok)
		}
	}
}

// The user's and the project's directories, subdirectories as namespaces;
// the user's command wins a name both have; a bad file is an error and the
// others still load.
func TestLoad(t *testing.T) {
	user, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(user, "review.md"), "---\ndescription: mine\n---\nMy review of $ARGUMENTS")
	write(t, filepath.Join(proj, "review.md"), "The project's review")
	write(t, filepath.Join(proj, "frontend", "component.md"), "Make a component called $1")
	write(t, filepath.Join(proj, "bad.md"), "---\nmodel: [\n---\nx")
	write(t, filepath.Join(proj, "notes.txt"), "not a command")
	s := Load(Dirs{User: user, Project: proj})
	var names []string
	for _, c := range s.List() {
		names = append(names, c.Name+"="+c.Label())
	}
	if strings.Join(names, " ") != "component=project:frontend review=user" {
		t.Fatalf("commands %v", names)
	}
	if len(s.Errors) != 1 || !strings.Contains(s.Errors[0].Error(), filepath.Join(proj, "bad.md")+":") {
		t.Fatalf("errors %v", s.Errors)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], filepath.Join(proj, "review.md")) {
		t.Fatalf("warnings %q", s.Warnings)
	}
	if c, ok := s.Find("review"); !ok || c.Expand("x") != "My review of x" {
		t.Fatalf("find: %+v %v", c, ok)
	}
}
