package app

import (
	"os"
	"testing"
	"time"
)

// #14 case 10: -p with a prompt does not wait for the end of a stdin pipe
// that stays open and silent; piped input that arrives is still appended.
func TestPrintDoesNotWaitForAnOpenSilentPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	start := time.Now()
	got, err := ReadPrompt("review", r)
	if err != nil || got != "review" {
		t.Fatalf("ReadPrompt = %q, %v", got, err)
	}
	if d := time.Since(start); d > StdinGrace+3*time.Second {
		t.Fatalf("waited %s on a silent pipe", d)
	}

	r2, w2, _ := os.Pipe()
	defer r2.Close()
	go func() {
		_, _ = w2.Write([]byte("diff --git a b\n"))
		_, _ = w2.Write([]byte("+more\n"))
		w2.Close()
	}()
	got, err = ReadPrompt("review", r2)
	if err != nil || got != "review\n\ndiff --git a b\n+more" {
		t.Fatalf("piped input: %q, %v", got, err)
	}
}
