package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoRegexpAtInit keeps regexp compilation out of package init in the
// binary's own packages. Go runs every linked package's init before main,
// whatever the command, so a package-level regexp.MustCompile is paid by
// -p, --help and every subcommand (a `{0,63}` repetition alone compiles to
// about 60 KB and 900 allocations). Such a value goes behind sync.OnceValue
// and is compiled where it is first used.
func TestNoRegexpAtInit(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command on PATH to list the binary's packages")
	}
	out, err := exec.Command("go", "list", "-deps", "-f",
		`{{if not .Standard}}{{.ImportPath}}|{{.Dir}}|{{join .GoFiles ","}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	const module = "github.com/agent-dev/agent"
	fset := token.NewFileSet()
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 || (parts[0] != module && !strings.HasPrefix(parts[0], module+"/")) || parts[2] == "" {
			continue
		}
		for _, name := range strings.Split(parts[2], ",") {
			path := filepath.Join(parts[1], name)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parse %s: %v", path, err)
			}
			checked++
			for _, pos := range compilesAtInit(f) {
				p := fset.Position(pos)
				t.Errorf("%s:%d: regexp compiled in package init, which every start pays: put it behind sync.OnceValue", p.Filename, p.Line)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d files of the binary's own packages checked: go list answered %q", checked, out)
	}
}

// compilesAtInit returns where f compiles a regexp while its package
// initialises: in a package-level var's value or an init function, outside
// any function literal that is not called right there.
func compilesAtInit(f *ast.File) []token.Pos {
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "regexp" {
			name = "regexp"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" || name == "_" {
		return nil
	}
	var found []token.Pos
	walk := func(n ast.Node) {
		called := map[*ast.FuncLit]bool{}
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return called[n]
			case *ast.CallExpr:
				if fl, ok := n.Fun.(*ast.FuncLit); ok {
					called[fl] = true
				}
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && strings.Contains(sel.Sel.Name, "Compile") {
						found = append(found, n.Pos())
					}
				}
			}
			return true
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				walk(d)
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" && d.Body != nil {
				walk(d.Body)
			}
		}
	}
	return found
}

func TestCompilesAtInit(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want int
	}{
		{"package-level var", "var re = regexp.MustCompile(`a+`)", 1},
		{"in a var block, two", "var (\n\ta = regexp.MustCompile(`a`)\n\tb, _ = regexp.Compile(`b`)\n)", 2},
		{"behind sync.OnceValue", "var re = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`a+`) })", 0},
		{"function literal called at once", "var res = func() []*regexp.Regexp { return []*regexp.Regexp{regexp.MustCompile(`a`)} }()", 1},
		{"init function", "func init() { re = regexp.MustCompilePOSIX(`a`) }", 1},
		{"function body", "func f() bool { return regexp.MustCompile(`a`).MatchString(`a`) }", 0},
		{"a literal stored, not called", "var f = func() *regexp.Regexp { return regexp.MustCompile(`a`) }", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p\n\nimport (\n\t\"regexp\"\n\t\"sync\"\n)\n\nvar _ sync.Once\nvar re *regexp.Regexp\n\n" + tt.src + "\n"
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(compilesAtInit(f)); got != tt.want {
				t.Errorf("found %d, want %d in\n%s", got, tt.want, tt.src)
			}
		})
	}
	t.Run("renamed import", func(t *testing.T) {
		f, err := parser.ParseFile(token.NewFileSet(), "p.go", "package p\n\nimport re \"regexp\"\n\nvar x = re.MustCompile(`a`)\n", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(compilesAtInit(f)); got != 1 {
			t.Errorf("found %d, want 1", got)
		}
	})
}
