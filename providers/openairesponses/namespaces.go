package openairesponses

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agent-dev/agent/agent"
)

// Deferred tools travel in namespaces when the request uses tool_search
// (hosted or client-executed). OpenAI shows the model the name and
// description of every searchable item: a deferred top-level function
// keeps its own name and description in context, a namespace only its name
// and description, so grouping cuts the first request's context from about
// a quarter of the eager cost to a few percent on large catalogs
// (developers.openai.com/api/docs/guides/tools-tool-search, "Use namespaces
// where possible").
//
// Member functions keep the agent's full names (github__create_issue), so a
// function_call's name maps straight back to the tool; its namespace field
// is the group's name, which replayed calls must carry.

const (
	// maxPerNamespace: OpenAI advises fewer than 10 functions per
	// namespace; 8 leaves room and splits evenly.
	maxPerNamespace = 8
	// maxNamespaceDesc caps a namespace description in bytes: it is
	// what the model reads of the group on every request.
	maxNamespaceDesc = 200
	// maxNamespaceBase leaves room for a "_NN" suffix within the API's
	// 64-character name limit.
	maxNamespaceBase = 56
	// unnamedGroup holds the deferred tools that have no server.
	unnamedGroup = "tools"
)

// namespaceGroup is one namespace of deferred tools, members sorted by name.
type namespaceGroup struct {
	Name        string
	Description string
	Tools       []agent.ToolDef
}

// namespaceTool is a namespace definition. Field order is fixed so the
// tools array is byte-identical on every request.
type namespaceTool struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Tools       []functionTool `json:"tools"`
}

func (g namespaceGroup) def() namespaceTool {
	return g.defOf(g.Tools)
}

// defOf is the group's definition with only the given members: a client
// tool_search_output loads just the matched functions, inside their
// namespace.
func (g namespaceGroup) defOf(members []agent.ToolDef) namespaceTool {
	fns := make([]functionTool, 0, len(members))
	for _, t := range members {
		fns = append(fns, fnDef(t, true))
	}
	return namespaceTool{Type: "namespace", Name: g.Name, Description: g.Description, Tools: fns}
}

// groupDeferred splits the deferred tools into namespaces: one per server
// (tools without one go to "tools"), servers in name order, each split into
// even chunks of at most maxPerNamespace tools sorted by name, named
// server, server_2, server_3… Names are valid for the API
// (^[a-zA-Z0-9_-]{1,64}$) and unique, also against reserved (the top-level
// function names). The result depends only on its inputs, never on their
// order, so the tools array stays byte-identical and a replayed call's
// namespace can be recomputed from the definitions alone.
func groupDeferred(deferred []agent.ToolDef, reserved map[string]bool) []namespaceGroup {
	byServer := map[string][]agent.ToolDef{}
	seen := map[string]bool{}
	for _, d := range deferred {
		if seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		byServer[d.Server] = append(byServer[d.Server], d)
	}
	servers := make([]string, 0, len(byServer))
	for s := range byServer {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	used := map[string]bool{}
	for n := range reserved {
		used[n] = true
	}
	var out []namespaceGroup
	for _, server := range servers {
		ts := byServer[server]
		sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
		chunks := splitEven(ts, maxPerNamespace)
		base := namespaceBase(server)
		for k, chunk := range chunks {
			name := base
			if k > 0 {
				name = fmt.Sprintf("%s_%d", base, k+1)
			}
			for n := k + 2; used[name]; n++ {
				name = fmt.Sprintf("%s_%d", base, n)
			}
			used[name] = true
			out = append(out, namespaceGroup{Name: name, Description: namespaceDesc(server, base, chunk, k, len(chunks)), Tools: chunk})
		}
	}
	return out
}

// splitEven splits ts into the fewest chunks of at most max, sizes
// differing by one at most (9 tools: 5 and 4, not 8 and 1).
func splitEven(ts []agent.ToolDef, max int) [][]agent.ToolDef {
	n := (len(ts) + max - 1) / max
	var out [][]agent.ToolDef
	start := 0
	for i := 0; i < n; i++ {
		size := len(ts) / n
		if i < len(ts)%n {
			size++
		}
		out = append(out, ts[start:start+size])
		start += size
	}
	return out
}

// namespaceBase makes a server name a valid namespace name: characters
// outside [a-zA-Z0-9_-] become "_", and the result is cut to leave room for
// a suffix.
func namespaceBase(server string) string {
	var b strings.Builder
	for _, r := range server {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if len(s) > maxNamespaceBase {
		s = s[:maxNamespaceBase]
	}
	if s == "" {
		return unnamedGroup
	}
	return s
}

// namespaceDesc says what a group holds: its server and its tools' short
// names, which is all the model (and the hosted search) sees of the group
// until it is loaded. It is capped at maxNamespaceDesc bytes, dropping the
// last names.
func namespaceDesc(server, base string, tools []agent.ToolDef, part, parts int) string {
	head := "Additional tools"
	if server != "" {
		srv := server
		if len(srv) > 60 {
			srv = srv[:60]
		}
		head = "Tools of the " + srv + " MCP server"
	}
	if parts > 1 {
		head += fmt.Sprintf(" (part %d of %d)", part+1, parts)
	}
	head += ": "
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = shortName(t.Name, server, base)
	}
	desc := head
	for i, n := range names {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		more := ""
		if rest := len(names) - i - 1; rest > 0 {
			more = fmt.Sprintf(" and %d more", rest)
		}
		// Keep this name only if the rest still fits as " and N more".
		if len(desc)+len(sep)+len(n)+len(more) > maxNamespaceDesc && i > 0 {
			return desc + fmt.Sprintf(" and %d more", len(names)-i)
		}
		desc += sep + n
	}
	return desc
}

// shortName strips the server prefix the agent puts on MCP tool names
// (server__tool).
func shortName(name, server, base string) string {
	for _, p := range []string{server, base} {
		if p == "" {
			continue
		}
		if s, ok := strings.CutPrefix(name, p+"__"); ok && s != "" {
			return s
		}
	}
	return name
}
