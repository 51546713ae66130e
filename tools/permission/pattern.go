package permission

import (
	"fmt"
	"path"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// A pattern names tools:
//
//   - a glob ("*" any run of characters, "?" one, "[a-z]" a class) matched
//     against every name a tool has (tools.Names): its wire name, the
//     server's own tool name and SERVER__TOOL with the configured server
//     name, so a pattern written with any name the user sees holds;
//   - "server:GLOB", every tool of the servers it matches;
//   - "@read-only" and "@destructive", the tools their MCP server
//     annotates so (readOnlyHint; destructiveHint, or not read-only);
//   - Claude Code's "mcp__SERVER__TOOL" and "mcp__SERVER" (every tool of
//     SERVER), so rules copied from its settings hold.
const (
	ReadOnly    = "@read-only"
	Destructive = "@destructive"
)

// Check reports a pattern that cannot match as written; what names the
// list it is in ("permissions.deny") for the error.
func Check(what, p string) error {
	switch {
	case p == ReadOnly || p == Destructive:
		return nil
	case strings.HasPrefix(p, "@"):
		return fmt.Errorf("%s: unknown pattern %q: the @ patterns are %s and %s", what, p, ReadOnly, Destructive)
	}
	g := strings.TrimPrefix(normalize(p), "server:")
	if g == "" {
		return fmt.Errorf("%s: empty pattern %q", what, p)
	}
	if _, err := path.Match(escapeSlash(g), ""); err != nil {
		return fmt.Errorf("%s: bad pattern %q: %v", what, p, err)
	}
	return nil
}

// normalize turns Claude Code's mcp__ spellings into this package's.
func normalize(p string) string {
	rest, ok := strings.CutPrefix(p, "mcp__")
	if !ok || rest == "" {
		return p
	}
	if _, _, tool := strings.Cut(rest, "__"); !tool {
		return "server:" + rest
	}
	return rest
}

// Match reports whether pattern p names tool t.
func Match(p string, t tools.Tool) bool {
	switch p {
	case ReadOnly:
		return t.Annotations.IsReadOnly()
	case Destructive:
		return t.Server != "" && t.Annotations.IsDestructive()
	}
	p = normalize(p)
	if g, ok := strings.CutPrefix(p, "server:"); ok {
		return t.Server != "" && glob(g, t.Server)
	}
	for _, n := range tools.Names(t) {
		if glob(p, n) {
			return true
		}
	}
	return false
}

// Unmatched returns the patterns that match no tool of ts and, for server
// patterns, no server of servers: most likely a typo, so the tools they
// meant are not governed by them.
func Unmatched(patterns []string, ts []tools.Tool, servers []string) []string {
	var out []string
	for _, p := range patterns {
		if p == ReadOnly || p == Destructive {
			continue // a class of tools, not a name that could be misspelt
		}
		hit := false
		if g, ok := strings.CutPrefix(normalize(p), "server:"); ok {
			for _, s := range servers {
				if glob(g, s) {
					hit = true
					break
				}
			}
		}
		for i := 0; !hit && i < len(ts); i++ {
			hit = Match(p, ts[i])
		}
		if !hit {
			out = append(out, p)
		}
	}
	return out
}

// ToolPattern is the pattern an "always" answer saves for one tool: its
// SERVER__TOOL name with the configured server name (stable across runs,
// unlike a wire name), or its name for a built-in tool.
func ToolPattern(t tools.Tool) string {
	if t.Server != "" && t.Orig != "" {
		return quote(t.Server + "__" + t.Orig)
	}
	return quote(t.Name)
}

// ServerPattern is the pattern an "always" answer saves for a whole server.
func ServerPattern(server string) string { return "server:" + quote(server) }

// quote escapes the glob characters of a literal name.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// glob is path.Match with "/" an ordinary character: server and tool names
// may contain one.
func glob(pattern, name string) bool {
	ok, _ := path.Match(escapeSlash(pattern), escapeSlash(name))
	return ok
}

func escapeSlash(s string) string { return strings.ReplaceAll(s, "/", "\x00") }
