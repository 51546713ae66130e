package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/config/agents"
	"github.com/agent-dev/agent/sanitize"
	"github.com/agent-dev/agent/tools"
)

// agentProfiles loads the profiles this run sees: the config file's
// "agents", the user's and the project's directories.
func agentProfiles(g *Globals) *agents.Set {
	path := g.ConfigPath
	if path == "" {
		path = config.DefaultPath()
	}
	return agents.Load(agents.DefaultDirs(g.Workdir), path)
}

// useProfile applies the named profile under the flags given.
func useProfile(g *Globals, name string) error {
	p, err := agentProfiles(g).Find(name)
	if err != nil {
		return &UsageError{err}
	}
	applyProfile(g, p)
	return nil
}

// applyProfile puts a profile's settings over the config file and the
// environment, wherever no flag was given: flags still win.
func applyProfile(g *Globals, p agents.Profile) {
	c := &g.Config
	set := func(flag string, dst *string, v string) {
		if v != "" && !g.changed[flag] {
			*dst = v
		}
	}
	set("provider", &c.Provider, p.Provider)
	if p.Provider != "" && p.Model == "" && !g.changed["model"] {
		c.Model = "" // the provider's default, not a model of another provider
	}
	set("model", &c.Model, p.Model)
	set("fallback-model", &c.FallbackModel, p.FallbackModel)
	set("effort", &c.Effort, p.Effort)
	set("system", &c.System, p.System)
	set("search", &c.Search, p.Search)
	set("theme", &c.Theme, p.Theme)
	if p.MaxTokens > 0 && !g.changed["max-tokens"] {
		c.MaxTokens = p.MaxTokens
	}
	if len(p.ProviderTools) > 0 {
		c.ProviderTools = append(append([]string(nil), p.ProviderTools...), g.ProviderTools...)
	}
	c.RequireApproval = append(append([]string(nil), c.RequireApproval...), p.RequireApproval...)
	if len(p.MCP) > 0 && !g.changed["mcp"] {
		g.MCP = append([]string(nil), p.MCP...)
	}
	if p.Defer != "" && len(p.DeferTools) == 0 && !g.changed["defer"] {
		g.Defer = p.Defer
	}
	g.Agent = p.Name
	g.profile = &p
}

// toolPolicy is the profile's allow list and deferral list as the tool
// set's registration policy; nil functions when the profile has none.
func toolPolicy(g *Globals) (allow, deferIf func(tools.Tool) bool) {
	p := g.profile
	if p == nil {
		return nil, nil
	}
	if len(p.Tools) > 0 {
		allow = func(t tools.Tool) bool {
			return p.Allows(t.Name, t.Server) || (t.Orig != "" && p.Allows(t.Orig, t.Server))
		}
	}
	if len(p.DeferTools) > 0 && !g.changed["defer"] {
		deferIf = func(t tools.Tool) bool {
			return p.Defers(t.Name, t.Server) || (t.Orig != "" && p.Defers(t.Orig, t.Server))
		}
	}
	return allow, deferIf
}

// agentRow is one profile of `agent agents --json`.
type agentRow struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Source      string   `json:"source"`
	Path        string   `json:"path"`
	Provider    string   `json:"provider,omitempty"`
	Model       string   `json:"model,omitempty"`
	MCP         []string `json:"mcp,omitempty"`
	Defer       string   `json:"defer,omitempty"`
	DeferTools  []string `json:"defer_tools,omitempty"`
	Tools       []string `json:"tools,omitempty"`
	Search      string   `json:"search,omitempty"`
	PromptChars int      `json:"prompt_chars"`
}

type agentsReport struct {
	Agents []agentRow `json:"agents"`
	Errors []string   `json:"errors"`
}

func newAgentsCmd(g *Globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "agents",
		Short: "List agent profiles (.agent/agents/NAME.md, ~/.config/agent/agents/NAME.md, the config's agents) and where each comes from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			set := agentProfiles(g)
			rep := agentsReport{Agents: []agentRow{}, Errors: []string{}}
			for _, p := range set.List() {
				rep.Agents = append(rep.Agents, agentRow{Name: p.Name, Description: p.Description, Source: p.Source, Path: p.Path,
					Provider: p.Provider, Model: p.Model, MCP: p.MCP, Defer: p.Defer, DeferTools: p.DeferTools, Tools: p.Tools,
					Search: p.Search, PromptChars: len(p.System)})
			}
			for _, err := range set.Errors {
				rep.Errors = append(rep.Errors, err.Error())
			}
			if asJSON {
				e := json.NewEncoder(g.Stdout)
				e.SetIndent("", "  ")
				return e.Encode(rep)
			}
			for _, e := range rep.Errors {
				fmt.Fprintln(g.Stderr, "warning: "+sanitize.Line(e))
			}
			if len(rep.Agents) == 0 {
				fmt.Fprintln(g.Stdout, "No agent profiles. Add one as .agent/agents/NAME.md: YAML front matter (description, model, mcp, defer, tools, ...), then the system prompt.")
				return nil
			}
			tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tMODEL\tMCP\tDESCRIPTION")
			for _, a := range rep.Agents {
				model := strings.TrimPrefix(a.Provider+":"+a.Model, ":")
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sanitize.Line(a.Name), a.Source+" "+sanitize.Line(shortPath(g, a.Path)),
					orDash(sanitize.Line(model)), orDash(sanitize.Line(strings.Join(a.MCP, ","))), sanitize.Line(a.Description))
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// shortPath shows a profile's file relative to the working directory when
// it is inside it.
func shortPath(g *Globals, p string) string {
	if rel, err := filepath.Rel(g.Workdir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
