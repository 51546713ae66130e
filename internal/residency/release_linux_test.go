package residency

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// written is data the test changes before releasing: a writable mapping
// must keep what was written (DONTNEED would reset a private one).
var written = []int{1, 2, 3}

func rssFileKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(l, []byte("RssFile:")); ok {
			n, err := strconv.Atoi(strings.Fields(string(v))[0])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// The executable's read-only pages leave the resident set, the program
// keeps running from them (they come back on a touch), and written data
// stays written.
func TestReleaseDropsTheBinarysPages(t *testing.T) {
	written[1] = 42
	before := rssFileKB(t)
	n, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := rssFileKB(t)
	if n <= 0 || after >= before {
		t.Fatalf("released %d bytes of address space; RssFile %d KB before, %d KB after", n, before, after)
	}
	if written[1] != 42 || strings.Repeat("ab", 2) != "abab" {
		t.Fatalf("the program changed after Release: %v", written)
	}
}
