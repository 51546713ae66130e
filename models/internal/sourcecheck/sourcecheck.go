// Package sourcecheck lists the figures of the capability table that carry
// no source: token counts (integer literals of 1000 and more), effort sets
// ([]string literals) and dates ("2026-07-24"). A figure is sourced when a
// comment holding "src:" ends on the line above it or above the statement
// (or table entry) that holds it, or trails that line. Declarations whose
// doc comment says "nosource:" (defaults and shares, not any model's
// figures) are skipped.
package sourcecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Figure is one literal without a source.
type Figure struct {
	File  string
	Line  int
	Value string
}

func (f Figure) String() string {
	return fmt.Sprintf("%s:%d: %s has no src: comment", f.File, f.Line, f.Value)
}

var date = regexp.MustCompile(`^"\d{4}-\d{2}-\d{2}"$`)

// Unsourced parses the non-test Go files of dir and returns the figures
// without a source, in file and line order.
func Unsourced(dir string) ([]Figure, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var out []Figure
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		figs, err := file(name, src)
		if err != nil {
			return nil, err
		}
		out = append(out, figs...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

func file(name string, src []byte) ([]Figure, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	// Lines a src: comment starts on (a trailing comment) and ends on.
	starts, ends := map[int]bool{}, map[int]bool{}
	lines := strings.Split(string(src), "\n")
	for _, g := range f.Comments {
		if !strings.Contains(g.Text(), "src:") {
			continue
		}
		p := fset.Position(g.Pos())
		starts[p.Line] = true
		if strings.TrimSpace(lines[p.Line-1][:p.Column-1]) == "" {
			// A comment on lines of its own speaks of what follows; one
			// trailing code speaks of that line only.
			ends[line(g.End())] = true
		}
	}
	sourced := func(n ast.Node) bool { l := line(n.Pos()); return starts[l] || ends[l-1] }
	var out []Figure
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if exempt(n) {
			return false
		}
		stack = append(stack, n)
		v, ok := figure(n)
		if !ok {
			return true
		}
		found := sourced(n)
		// Up to the statement, or the table entry, that holds the figure.
		for i := len(stack) - 2; i >= 0 && !found; i-- {
			a := stack[i]
			found = sourced(a)
			if _, isStmt := a.(ast.Stmt); isStmt {
				break
			}
			if _, entry := a.(*ast.CompositeLit); entry && i > 0 {
				if _, inTable := stack[i-1].(*ast.CompositeLit); inTable {
					break // one entry of a table: its own line says
				}
			}
		}
		if !found {
			out = append(out, Figure{File: filepath.Base(name), Line: line(n.Pos()), Value: v})
		}
		return true
	})
	return out, nil
}

// figure reports whether n is a figure, and how it reads.
func figure(n ast.Node) (string, bool) {
	switch x := n.(type) {
	case *ast.BasicLit:
		switch x.Kind {
		case token.INT:
			v, err := strconv.ParseInt(strings.ReplaceAll(x.Value, "_", ""), 0, 64)
			return x.Value, err == nil && v >= 1000
		case token.STRING:
			return x.Value, date.MatchString(x.Value)
		}
	case *ast.CompositeLit:
		if at, ok := x.Type.(*ast.ArrayType); ok {
			if id, ok := at.Elt.(*ast.Ident); ok && id.Name == "string" && len(x.Elts) > 0 {
				return "effort set", allEfforts(x.Elts)
			}
		}
	}
	return "", false
}

func exempt(n ast.Node) bool {
	var doc *ast.CommentGroup
	switch d := n.(type) {
	case *ast.FuncDecl:
		doc = d.Doc
	case *ast.GenDecl:
		doc = d.Doc
	}
	return doc != nil && strings.Contains(doc.Text(), "nosource:")
}

// allEfforts reports whether every element is an effort word (a list of
// vendor prefixes is no figure).
func allEfforts(elts []ast.Expr) bool {
	for _, e := range elts {
		b, ok := e.(*ast.BasicLit)
		if !ok {
			return false
		}
		switch b.Value {
		case `"none"`, `"minimal"`, `"low"`, `"medium"`, `"high"`, `"xhigh"`, `"max"`:
		default:
			return false
		}
	}
	return true
}
