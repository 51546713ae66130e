package app

import (
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/config"
	"github.com/agent-dev/agent/store"
)

// serverDef is how a session remembers a server: no value of an
// environment variable, a header or a URL query is kept.
func serverDef(s config.MCPServer) store.MCPServerDef {
	// Args are copied: the definition goes to the store, the config stays
	// the running server's.
	d := store.MCPServerDef{Name: s.Name, Type: s.Type, Command: s.Command, Args: slices.Clone(s.Args), Cwd: s.Cwd,
		Env: slices.Sorted(maps.Keys(s.Env)), Headers: slices.Sorted(maps.Keys(s.Headers)), Source: s.Source,
		Protocol: s.Protocol, Start: s.Start}
	if s.URL != "" {
		d.URL = s.URL
		if u, err := url.Parse(s.URL); err == nil && (u.RawQuery != "" || u.User != nil) {
			u.RawQuery, u.User, u.Fragment = "", nil, ""
			d.URL, d.HasQuery = u.String(), true
		}
	}
	return d
}

// serverDefs are the servers' definitions as a session remembers them (nil
// for none).
func serverDefs(servers []config.MCPServer) []store.MCPServerDef {
	var out []store.MCPServerDef
	for _, srv := range servers {
		out = append(out, serverDef(srv))
	}
	return out
}

// sameDef reports whether two remembered definitions start the same server.
func sameDef(a, b store.MCPServerDef) bool {
	return a.Type == b.Type && a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.Cwd == b.Cwd &&
		a.URL == b.URL && slices.Equal(a.Env, b.Env) && slices.Equal(a.Headers, b.Headers)
}

// target is the command line or URL of a remembered server, for messages.
func (a *App) defTarget(d store.MCPServerDef) string {
	if d.Command != "" {
		return strings.Join(append([]string{d.Command}, d.Args...), " ")
	}
	return d.URL
}

// rememberServers brings back, on resume, the servers the session ran with
// that the configuration here does not define: a server that needs no
// value the session does not keep (environment variables are read again
// here by name; headers and a URL query are not kept) and that did not
// come from a project file is reconnected from its stored definition; the others, and servers whose definition changed,
// get one line naming them and what would bring them back. Names the
// session asked for with --mcp that cannot come back are dropped from the
// run, so it starts without them instead of failing.
func (a *App) rememberServers(configured map[string]config.MCPServer) {
	if len(a.remembered) == 0 {
		return
	}
	var gone []string
	before := len(a.warnings)
	for _, d := range a.remembered {
		if cur, ok := configured[d.Name]; ok {
			if now := serverDef(cur); !sameDef(now, d) {
				a.warnings = append(a.warnings, fmt.Sprintf("MCP server %s changed since this session used it (was %s, from %s; now %s, from %s): the current definition runs",
					d.Name, a.defTarget(d), orText(d.Source, "?"), a.defTarget(now), orText(now.Source, "?")))
			}
			continue
		}
		if d.Source == "preset" {
			continue // presets are found by name, as before
		}
		bring := "pass --mcp-config " + d.Source
		if a.projectFile(d.Source) {
			bring = "resume it in " + filepath.Dir(d.Source)
		}
		// An environment variable the server was given is read again from
		// this environment, by its name; one that is not set here is missing.
		var missing, unset []string
		env := map[string]string{}
		for _, n := range d.Env {
			if v := a.getenv(n); v != "" {
				env[n] = v
			} else {
				unset = append(unset, n)
			}
		}
		if len(unset) > 0 {
			missing = append(missing, "environment "+strings.Join(unset, ", "))
		}
		if len(d.Headers) > 0 {
			missing = append(missing, "headers "+strings.Join(d.Headers, ", "))
		}
		if d.HasQuery {
			missing = append(missing, "its URL's query")
		}
		switch {
		case a.projectFile(d.Source):
			// A project's server starts only from its project, where the
			// project's files are in force (and trusted).
			a.warnings = append(a.warnings, fmt.Sprintf("MCP server %s of this session is not configured here (it came from the project file %s): %s to bring it back", d.Name, d.Source, bring))
			gone = append(gone, d.Name)
		case len(missing) > 0:
			a.warnings = append(a.warnings, fmt.Sprintf("MCP server %s of this session is not configured here, and the session does not keep its %s: %s to bring it back", d.Name, strings.Join(missing, "; "), bring))
			gone = append(gone, d.Name)
		default:
			configured[d.Name] = config.MCPServer{Name: d.Name, Type: d.Type, Command: d.Command, Args: d.Args, Cwd: d.Cwd,
				URL: d.URL, Env: env, Source: d.Source, Protocol: d.Protocol, Start: d.Start}
			a.warnings = append(a.warnings, fmt.Sprintf("MCP server %s is not configured here: started from this session's definition (%s, from %s)", d.Name, a.defTarget(d), d.Source))
		}
	}
	a.gone = gone
	if a.opts.NoMCP {
		// Nothing starts (sessions compact): what could not come back
		// does not matter to this run.
		a.warnings = a.warnings[:before]
	}
	if len(gone) > 0 {
		a.settings.MCP = slices.DeleteFunc(slices.Clone(a.settings.MCP), func(n string) bool { return slices.Contains(gone, n) })
	}
}

func (a *App) getenv(k string) string {
	if a.opts.Getenv == nil {
		return ""
	}
	return a.opts.Getenv(k)
}

// projectFile reports whether a server's source is a project-level file
// (a .mcp.json or .agent/config.json beside a repository), which is
// untrusted input wherever the session is resumed.
func (a *App) projectFile(src string) bool {
	base := filepath.Base(src)
	return base == ".mcp.json" || (base == "config.json" && filepath.Base(filepath.Dir(src)) == ".agent")
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// MissingServerIn refuses a prompt that names a tool of a server the
// resumed session ran with and that could not come back (SERVER__TOOL):
// the answer would be wrong without it (exit 2). Other prompts run.
func (a *App) MissingServerIn(prompt string) error {
	for _, n := range a.gone {
		if strings.Contains(prompt, n+"__") {
			return Usagef("the prompt names a tool of MCP server %s, which this session used and which is not configured here (see the warning above)", n)
		}
	}
	return nil
}

// keptServers is what the session stores: the servers of this run, and
// those it remembered that could not come back (or, with no server
// started at all, everything it remembered), so a resume somewhere they
// are missing does not make the session forget them.
func (a *App) keptServers() []store.MCPServerDef {
	if a.opts.NoMCP {
		return a.remembered
	}
	out := slices.Clone(a.serverDefs)
	for _, d := range a.remembered {
		if slices.Contains(a.gone, d.Name) {
			out = append(out, d)
		}
	}
	return out
}
