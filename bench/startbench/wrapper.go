package startbench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// wrapper is the small parent every measured program runs under
// (bench/internal/wrap); BuildWrapper sets it.
var wrapper string

// BuildWrapper builds the wrapper (bench/internal/wrap) of the module the
// go command sees from the working directory into dir, and runs every
// measured program under it from then on. The wrapper is its own small
// binary, not the bench re-executed: Linux keeps the exec'ing process's
// high-water RSS in the child's ru_maxrss, and the bench's is about 26 MB.
func BuildWrapper(ctx context.Context, dir string) error {
	out := filepath.Join(dir, "wrap")
	build := exec.CommandContext(ctx, "go", "build", "-o", out, "github.com/agent-dev/agent/bench/internal/wrap")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build the bench's wrapper: %w", err)
	}
	wrapper = out
	return nil
}
