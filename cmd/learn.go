package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/tools/search"
)

// loadHistoryFile reads JSONL {"query", "tool": id or name} lines.
func loadHistoryFile(path string) ([]search.Use, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	defer f.Close()
	var out []search.Use
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var u search.Use
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return nil, fmt.Errorf("history %s line %d: %w", path, line, err)
		}
		if strings.TrimSpace(u.Query) == "" || strings.TrimSpace(u.Tool) == "" {
			return nil, fmt.Errorf(`history %s line %d: want {"query": ..., "tool": ...}`, path, line)
		}
		out = append(out, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read history %s: %w", path, err)
	}
	return out, nil
}

func newToolsForgetCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "forget",
		Short: "Forget what tool search learned from use: every recorded search and call",
		Long: `Tool search learns from use: each search a session runs, and each call of a tool a search
found, is kept in the session database and ranks that tool higher for a similar request
later. forget deletes all of it (the sessions themselves stay). --no-learn or "learn": false
in the config stop the recording.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := g.settings()
			if err != nil {
				return err
			}
			n, err := app.ForgetToolUses(cmd.Context(), s)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(g.Stdout, "forgot %d recorded searches and calls\n", n)
			return err
		},
	}
}
