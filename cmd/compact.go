package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
)

// compactReport is what `agent sessions compact --json` prints.
type compactReport struct {
	SessionID string           `json:"session_id"`
	Compacted agent.Compaction `json:"compaction"`
	// Messages is the whole history, which the store keeps.
	Messages int `json:"messages"`
}

func newSessionsCompactCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "compact ID [FOCUS...]",
		Short: "Summarise a session's turns so far; later requests send the summary instead (the history is kept)",
		Long: `Compact a stored session: the model writes a summary of the conversation so far (a request of
its own, counted in the session's usage), and from then on the summary is sent in place of those
turns. The tools found before stay found without a new search. The store keeps every message:
agent sessions show still prints them all. FOCUS, when given, says what the summary should keep.
The session is resumed with its stored provider, model and servers (the flags override them).`,
		Args: sessionsMinArgs(1, "a session ID (see agent sessions)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			g.Resume = args[0]
			rt, err := buildRuntime(ctx, g, nil)
			if err != nil {
				return err
			}
			defer rt.Close()
			for _, w := range rt.Warnings {
				fmt.Fprintln(g.Stderr, "warning: "+sanitize.Line(w))
			}
			cp, err := rt.Session.Compact(ctx, strings.Join(args[1:], " "), nil)
			if err != nil {
				return err
			}
			rep := compactReport{SessionID: rt.Session.ID, Compacted: *cp, Messages: len(rt.Session.Messages())}
			if asJSON {
				e := json.NewEncoder(g.Stdout)
				e.SetIndent("", "  ")
				return e.Encode(rep)
			}
			writeCompaction(g.Stdout, rep)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the compaction as JSON")
	return c
}

// compactionLine is the one-line account of a compaction, shared by the
// shell command and the TUI's notices.
func compactionLine(c agent.Compaction) string {
	kept := ""
	if n := len(c.Found); n > 0 {
		kept = fmt.Sprintf("; %d found tools stay loaded", n)
	}
	return fmt.Sprintf("%d messages summarised: context about %d → %d tokens (estimated)%s; the summary took %d input and %d output tokens",
		c.Boundary, c.Before, c.After, kept, c.Usage.InputTokens+c.Usage.CacheReadTokens+c.Usage.CacheWriteTokens, c.Usage.OutputTokens)
}

func writeCompaction(w io.Writer, rep compactReport) {
	sw := sanitize.NewWriter(w) // the summary is model output
	defer sw.Flush()
	fmt.Fprintf(sw, "Compacted session %s (compaction %d): %s.\n", rep.SessionID, rep.Compacted.Seq, compactionLine(rep.Compacted))
	fmt.Fprintf(sw, "The store keeps all %d messages (agent sessions show %s).\n\n%s\n", rep.Messages, rep.SessionID, rep.Compacted.Summary)
}
