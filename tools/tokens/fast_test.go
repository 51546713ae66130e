package tokens

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCountCachedMatchesCount holds the fast splitter to tiktoken-go's own
// result, on tricky text and on every real catalog.
func TestCountCachedMatchesCount(t *testing.T) {
	cases := []string{
		"", " ", "  ", "hello world", "  x", "a  b", "a \n\n  b", "x\t \u00a0y", "tail   ",
		"I'm here, they'll GO'S", "CamelCaseWordsAndHTTPServer", "12345678 ½ ٣٤",
		`{"type":"object","properties":{"a":{"type":"string"}}}`, "line\r\n\r\nnext\n", "path/to/file\n/",
		"日本語のテキスト and émojis 🎉🎉", "\u2028sep\u3000wide", "<|endoftext|> special",
	}
	root := filepath.Join("..", "..", "..", "shared", "catalogs")
	files, _ := filepath.Glob(filepath.Join(root, "*.json"))
	if len(files) == 0 {
		defer t.Skipf("checked the %d fixed texts only: the real catalogs come from ../shared/catalogs (the shared data beside the repository root, as in CI); put shared/ at ../shared to check them too", len(cases))
	}
	for _, f := range files {
		if strings.HasSuffix(f, "ALL.json") && testing.Short() {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		if got, want := CountCached(c), Count(c); got != want {
			name := c
			if len(name) > 40 {
				name = name[:40]
			}
			t.Errorf("CountCached(%q...) = %d, Count = %d", name, got, want)
		}
	}
}

// TestCountCachedRandomText compares on random mixes of the characters
// the pattern treats differently: cases, marks, digits, spaces of several
// kinds, line breaks, apostrophes, slashes and punctuation.
func TestCountCachedRandomText(t *testing.T) {
	alphabet := []rune("aZ9 \t\n\r'sSlLdDtT/{}\":,.-_\u00a0\u2003\u0301\u02b0\u01c5\u4e2d\u0663\u00bd\u0085\v\u2028é🎉")
	rng := rand.New(rand.NewPCG(8, 8))
	for i := 0; i < 3000; i++ {
		rs := make([]rune, 1+rng.IntN(24))
		for j := range rs {
			rs[j] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(rs)
		if got, want := CountCached(s), Count(s); got != want {
			t.Fatalf("CountCached(%q) = %d, Count = %d", s, got, want)
		}
	}
}

func BenchmarkCountCached(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "catalogs", "ALL.json"))
	if err != nil {
		b.Fatal(err)
	}
	s := string(data)
	CountCached(s)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		CountCached(s)
	}
}
