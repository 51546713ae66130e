package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/app"
	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/tools/search"
)

type toolsSearchOpts struct {
	limit   int
	asJSON  bool
	catalog string
	queries string
	mode    string
	history string
}

func newToolsSearchCmd(g *Globals) *cobra.Command {
	var o toolsSearchOpts
	c := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search tools with the agent's own engine (client-side search)",
		Long: `Ranks the tools of the MCP servers (configured, plus those named with --mcp) or
of a catalog file for QUERY, and prints rank, name, server, score and the first
line of each description.

QUERY is words describing the tool, "select:NAME,NAME" for exact names, or
"/regex/" (see --mode). --catalog reads a JSON array or JSONL of {id?, name,
description, input_schema | inputSchema, server?}, or an MCP tools/list result
{"tools": [...]}. --queries answers each line {id, query} of a JSONL file with a
line {id, results: [tool id or name, ...]}, for evaluating a catalog. --history
reads earlier use, {"query", "tool"} a line, as if those requests had led to
those tools; searching MCP servers also uses what sessions recorded (unless
--no-learn). A server whose tool list is cached is searched without being
started (--refresh starts every server).`,
		Example: `  agent tools search --mcp github "open a pull request"
  agent tools search --catalog tools.jsonl --limit 5 --json \
    "convert a docx to pdf"
  agent tools search --catalog tools.jsonl --queries queries.jsonl > run.jsonl
  agent tools search --catalog tools.jsonl --history history.jsonl \
    --queries queries.jsonl > run.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runToolsSearch(cmd.Context(), g, o, args, cmd.OutOrStdout())
		},
	}
	f := c.Flags()
	f.IntVar(&o.limit, "limit", search.DefaultLimit, "most tools to show per query")
	f.BoolVar(&o.asJSON, "json", false, "print the hits as a JSON array")
	f.StringVar(&o.catalog, "catalog", "", "search this catalog file instead of MCP servers")
	f.StringVar(&o.queries, "queries", "", "answer every {id, query} line of this JSONL file with {id, results}")
	f.StringVar(&o.mode, "mode", "auto", "how QUERY is read: auto, bm25, regex or select")
	f.StringVar(&o.history, "history", "", `learn from this JSONL file of earlier use first: {"query": ..., "tool": id or name} a line`)
	refreshFlag(c, g)
	return c
}

func runToolsSearch(ctx context.Context, g *Globals, o toolsSearchOpts, args []string, out io.Writer) error {
	mode, err := search.ParseMode(o.mode)
	if err != nil {
		// Named as the other flags' bad values are (config.FlagValueError).
		return &UsageError{Err: &config.FlagValueError{Flag: "mode", Value: o.mode, What: "search mode",
			Allowed: []string{string(search.ModeAuto), string(search.ModeBM25), string(search.ModeRegex), string(search.ModeSelect)}}}
	}
	if o.limit <= 0 {
		return usagef("--limit must be at least 1, got %d", o.limit)
	}
	query := strings.Join(args, " ")
	switch {
	case o.queries == "" && strings.TrimSpace(query) == "":
		return usagef("give a QUERY to search for, or --queries FILE")
	case o.queries != "" && query != "":
		return usagef("give either a QUERY or --queries, not both")
	}
	s, err := g.settings()
	if err != nil {
		return err
	}
	ix, err := app.SearchIndex(ctx, s, o.catalog, o.history, versionString(), func(w string) {
		fmt.Fprintln(g.Stderr, "agent: warning: "+sanitize.Line(w))
	})
	if err != nil {
		return err
	}
	opts := search.Options{Limit: o.limit, Mode: mode}
	if o.queries != "" {
		return app.AnswerQueries(ix, opts, o.queries, out)
	}
	hits, err := ix.Search(query, opts)
	if err != nil {
		return &UsageError{Err: err}
	}
	if o.asJSON {
		return app.WriteJSON(out, hits)
	}
	return app.WriteHits(out, hits, query, ix.Len(), termWidth(out))
}
