package blocktab

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// lines is a sorted table of n keys, key i having i%3+1 lines, long enough
// that a small block size splits it into many blocks.
func lines(n int) []string {
	var out []string
	for i := range n {
		for j := range i%3 + 1 {
			out = append(out, fmt.Sprintf("k%05d\tvalue %d of key %d", i, j, i))
		}
	}
	return out
}

func TestLookupFindsEveryKeyAndNothingElse(t *testing.T) {
	in := lines(200)
	for _, size := range []int{1, 64, 1024, 1 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			src, err := Write(in, '\t', size)
			if err != nil {
				t.Fatal(err)
			}
			tab := New(string(src), '\t')
			if size == 1 && tab.Blocks() != 200 {
				t.Errorf("%d blocks at size 1, want one a key (200)", tab.Blocks())
			}
			want := map[string][]string{}
			for _, l := range in {
				k, rest, _ := strings.Cut(l, "\t")
				want[k] = append(want[k], rest)
			}
			for k, rests := range want {
				var got []string
				tab.Lookup(k, func(r string) bool { got = append(got, r); return true })
				if !slices.Equal(got, rests) {
					t.Errorf("Lookup(%q) = %q, want %q", k, got, rests)
				}
			}
			for _, k := range []string{"", "a", "k", "k0000", "k00001x", "k00199 ", "k00200", "z"} {
				tab.Lookup(k, func(r string) bool { t.Errorf("Lookup(%q) found %q", k, r); return true })
			}
			var all []string
			tab.All(func(k, rest string) { all = append(all, k+"\t"+rest) })
			if !slices.Equal(all, in) {
				t.Errorf("All gave %d lines, not the %d written", len(all), len(in))
			}
		})
	}
}

func TestLookupStopsWhenAsked(t *testing.T) {
	src, err := Write([]string{"a 1", "a 2", "a 3"}, ' ', 1024)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	New(string(src), ' ').Lookup("a", func(string) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("fn called %d times, want 2", n)
	}
}

func TestWriteRefuses(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
	}{
		{"unsorted", []string{"b 1", "a 2"}},
		{"no separator", []string{"a"}},
		{"empty key", []string{" 1"}},
		{"newline", []string{"a 1\nb 2"}},
	} {
		if _, err := Write(tt.lines, ' ', 1024); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestMalformedTableFindsNothing(t *testing.T) {
	src, err := Write(lines(50), '\t', 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"", "\x01\x00", string(src[:20]), "\xff\xff\xff\x7f" + string(src[4:])} {
		tab := New(s, '\t')
		if tab.Open() == nil {
			t.Errorf("Open(%.20q) = nil, want an error", s)
		}
		tab.Lookup("k00001", func(r string) bool { t.Errorf("found %q", r); return true })
	}
}
