package cmd

import (
	"context"
	"fmt"
)

func runTUI(ctx context.Context, g *Globals) error {
	return fmt.Errorf("the TUI is not wired yet")
}
