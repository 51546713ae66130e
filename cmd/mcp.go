package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/tools"
	mcptools "github.com/agent-dev/agent/tools/mcp"
)

func init() {
	loadMCPTools = func(ctx context.Context, g *Globals, names []string) ([]tools.Tool, error) {
		m, warnings, err := startMCP(ctx, g, names, nil, mcpStart{})
		if err != nil {
			return nil, err
		}
		for _, w := range warnings {
			fmt.Fprintln(g.Stderr, "agent: warning: "+sanitize.Line(w.Error()))
		}
		// The tools' executors need the servers; they stop with ctx.
		context.AfterFunc(ctx, func() { _ = m.Close() })
		return m.Tools(false), nil
	}
}

// mcpConfigured reads the configured MCP servers, later sources winning:
// the user's mcp.json, mcpServers inline in the config file, the project's
// ./.mcp.json, then --mcp-config (which must exist).
func mcpConfigured(g *Globals) (map[string]config.MCPServer, error) {
	paths := config.DefaultMCPConfigPaths(g.Workdir)
	user, project := paths[:len(paths)-1], paths[len(paths)-1]
	out, err := config.LoadMCPConfig(user...)
	if err != nil {
		return nil, &UsageError{err}
	}
	layers := []func() (map[string]config.MCPServer, error){
		func() (map[string]config.MCPServer, error) {
			if len(g.Config.MCPServers) == 0 {
				return nil, nil
			}
			src := g.ConfigPath
			if src == "" {
				src = config.DefaultPath()
			}
			return config.ParseMCPServers(g.Config.MCPServers, src)
		},
		func() (map[string]config.MCPServer, error) { return config.LoadMCPConfig(project) },
		func() (map[string]config.MCPServer, error) {
			if g.MCPConfig == "" {
				return nil, nil
			}
			return config.ReadMCPConfigFile(g.MCPConfig)
		},
	}
	for _, layer := range layers {
		servers, err := layer()
		if err != nil {
			return nil, &UsageError{err}
		}
		for n, s := range servers {
			out[n] = s
		}
	}
	return out, nil
}

// startMCP connects the servers of a run: every enabled configured server
// plus those named (configured or preset), with --defer applied to the
// named ones (to all when none is named). Servers that fail are returned as
// warnings; err is for a bad config or name.
func startMCP(ctx context.Context, g *Globals, names []string, onEvent func(mcptools.Event), o mcpStart) (*mcptools.Manager, []error, error) {
	configured, err := mcpConfigured(g)
	if err != nil {
		return nil, nil, err
	}
	servers, err := config.SelectMCP(configured, config.MCPPresets(g.Workdir), names)
	if err != nil {
		return nil, nil, &UsageError{err}
	}
	if g.Defer == "true" {
		servers = config.DeferAll(servers, names)
	}
	m := mcptools.NewManager(servers, mcptools.Options{
		Workdir: g.Workdir, OnEvent: onEvent, ClientName: "agent", ClientVersion: versionString(),
		Cache: o.cache, Background: o.background,
	})
	return m, m.Start(ctx), nil
}

// attachMCP starts the run's MCP servers (--mcp, or the configured ones),
// registers their tools in the session's set with --defer applied, and
// makes rt close them. Call the manager's Sync before each turn so that
// tools/list_changed takes effect at turn boundaries.
func attachMCP(ctx context.Context, g *Globals, rt *runtime, onEvent func(mcptools.Event)) (*mcptools.Manager, error) {
	m, warnings, err := startMCP(ctx, g, g.MCP, onEvent, mcpStart{cache: rt.catalogCache(ctx, g), background: g.interactive})
	if err != nil {
		return nil, err
	}
	rt.closers = append(rt.closers, func() { _ = m.Close() })
	if !g.interactive {
		// A server the user asked for by name must run: a -p answer
		// without its tools would be wrong, so it is an error (exit 1).
		for _, st := range m.Status() {
			if st.State == mcptools.StateFailed && slices.Contains(g.MCP, st.Name) {
				return nil, fmt.Errorf("%s; it was named with --mcp, so the run stops (fix the server, or leave out --mcp %s)", st.Error, st.Name)
			}
		}
	}
	for _, w := range warnings {
		rt.Warnings = append(rt.Warnings, w.Error())
	}
	// --defer is already in the servers' settings (startMCP); an agent
	// profile's tool list and deferral list filter what registers.
	rt.Session.Tools.SetPolicy(toolPolicy(g))
	if err := m.Register(rt.Session.Tools, false); err != nil {
		return nil, err
	}
	for _, q := range rt.Session.Tools.Quarantined() {
		rt.Warnings = append(rt.Warnings, fmt.Sprintf("tool %s of server %s left out: its input schema is invalid (%s); every request would be rejected with it (agent tools lists it)",
			q.Tool.Name, orDash(q.Tool.Server), q.Problem))
	}
	return m, nil
}

func newMCPCmd(g *Globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "MCP servers: list configured and preset servers",
		Args:  cobra.NoArgs,
	}
	c.AddCommand(newMCPListCmd(g))
	return c
}

// mcpListEntry is one server of `agent mcp list --json`.
type mcpListEntry struct {
	mcptools.Status
	Preset    bool          `json:"preset,omitempty"`
	ToolNames []mcpListTool `json:"tool_list,omitempty"`
}

type mcpListTool struct {
	Name       string `json:"name"`
	ServerTool string `json:"server_tool"`
	Deferred   bool   `json:"deferred"`
}

func newMCPListCmd(g *Globals) *cobra.Command {
	var asJSON, all, showTools bool
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "list",
		Short: "Show configured and preset MCP servers, their status and tool counts",
		Long: `Connects the configured servers (and the presets named with --mcp, or every preset
with --all) to count their tools, each within --timeout. Other presets are listed as
"available" without being started.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			configured, err := mcpConfigured(g)
			if err != nil {
				return err
			}
			presets := config.MCPPresets(g.Workdir)
			named, err := config.ResolveMCPIn(configured, presets, g.MCP)
			if err != nil {
				return &UsageError{err}
			}
			merged := config.MergeMCP(configured, presets)
			var start []config.MCPServer
			for _, n := range sortedMCPNames(merged) {
				s := merged[n]
				_, isConfigured := configured[n]
				isNamed := slices.ContainsFunc(named, func(x config.MCPServer) bool { return x.Name == n })
				if isConfigured || isNamed || all {
					start = append(start, s)
				}
			}
			if g.Defer == "true" {
				start = config.DeferAll(start, g.MCP)
			}
			m := mcptools.NewManager(start, mcptools.Options{
				Workdir: g.Workdir, StartTimeout: timeout, ClientName: "agent", ClientVersion: versionString(),
				Logger: slog.New(slog.DiscardHandler),
			})
			defer m.Close()
			m.Start(cmd.Context())
			byServer := map[string][]tools.Tool{}
			for _, t := range m.Tools(false) {
				byServer[t.Server] = append(byServer[t.Server], t)
			}
			var entries []mcpListEntry
			started := map[string]mcptools.Status{}
			for _, st := range m.Status() {
				started[st.Name] = st
			}
			for _, n := range sortedMCPNames(merged) {
				s := merged[n]
				st, ok := started[n]
				if !ok {
					st = mcptools.Status{Name: n, Transport: s.Type, Source: s.Source, State: mcptools.State("available"), Target: mcpTarget(s), Error: s.Unavailable}
				}
				e := mcpListEntry{Status: st, Preset: s.Source == "preset"}
				e.Deferred = 0
				for _, t := range byServer[n] {
					ref, _ := m.Lookup(t.Name)
					e.ToolNames = append(e.ToolNames, mcpListTool{Name: t.Name, ServerTool: ref.Tool, Deferred: t.Deferred})
					if t.Deferred {
						e.Deferred++
					}
				}
				entries = append(entries, e)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			return writeMCPList(cmd.OutOrStdout(), entries, showTools)
		},
	}
	f := c.Flags()
	f.BoolVar(&asJSON, "json", false, "print JSON (with every tool and its deferral)")
	f.BoolVar(&all, "all", false, "also start the presets not named with --mcp")
	f.BoolVar(&showTools, "tools", false, "list each server's tools with their deferral")
	f.DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait for each server")
	return c
}

func writeMCPList(w io.Writer, entries []mcpListEntry, showTools bool) error {
	sw := sanitize.NewWriter(w) // server names, errors and tool names come from outside
	defer sw.Flush()
	w = sw
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tSTATUS\tTOOLS\tDEFERRED\tSOURCE\tDETAIL")
	for _, e := range entries {
		count, deferred := "-", "-"
		if e.State == mcptools.StateRunning || e.State == mcptools.StateDown {
			count, deferred = strconv.Itoa(e.Tools), strconv.Itoa(e.Deferred)
		}
		detail := e.Target
		if e.Error != "" {
			detail = e.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.Transport, e.State, count, deferred, e.Source, oneLine(detail))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !showTools {
		return nil
	}
	for _, e := range entries {
		if len(e.ToolNames) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: %d tools, %d deferred\n", e.Name, e.Tools, e.Deferred)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, t := range e.ToolNames {
			mark := "active"
			if t.Deferred {
				mark = "deferred"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.Name, mark, t.ServerTool)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func mcpTarget(s config.MCPServer) string {
	if s.Type == config.MCPStdio {
		return strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	return s.URL
}

func sortedMCPNames(m map[string]config.MCPServer) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
