// Package suggest finds the name a mistyped one was meant to be: a flag,
// a subcommand, a config key, a model id. Errors then say "did you mean".
package suggest

// Nearest returns the name in names closest to s, when it is near enough
// to be a typo of it: at most two edits, and fewer than half of s (so a
// short word is not "corrected" into an unrelated one). "" when none is.
func Nearest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if n == s {
			return ""
		}
		if d := Distance(s, n); d < bestD && 2*d < len(s) {
			best, bestD = n, d
		}
	}
	return best
}

// Distance is the optimal-string-alignment distance over bytes (names and
// ids are ASCII): insertions, deletions, substitutions and swaps of two
// neighbours (gtp for gpt) each count one.
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
