package sourcecheck

import (
	"strings"
	"testing"
)

func TestFile(t *testing.T) {
	t.Parallel()
	src := `package m

var table = []entry{
	{"a", known(128_000, 8192)}, // src: a's card
	{"b", known(64_000, 999)},
}

func f(c *C) {
	// src: the docs
	c.Max = 32_000
	c.Ctx = 200_000
	c.Efforts = []string{"low", "high"}
	c.Retired = "2026-02-19" // src: deprecations
	c.Vendors = []string{"anthropic."}
	// src: above the statement
	c := C{
		Ctx: 1_000_000,
	}
}

// nosource: defaults.
func g() int { return 4096 }
`
	figs, err := file("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range figs {
		got = append(got, f.String())
	}
	want := []string{
		"x.go:5: 64_000 has no src: comment",
		"x.go:11: 200_000 has no src: comment",
		"x.go:12: effort set has no src: comment",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEveryFigureHasASource keeps the capability table honest: a figure
// added without a "src:" comment fails here (go run ./models/cmd/check
// lists them).
func TestEveryFigureHasASource(t *testing.T) {
	t.Parallel()
	figs, err := Unsourced("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		t.Error(f)
	}
}
