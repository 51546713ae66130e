package openairesponses

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

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
	// maxNamespaceDesc caps a namespace description in bytes: it is what
	// the model (and the hosted search) reads of the server on every
	// request, so it says what the server is for, not what it lists.
	maxNamespaceDesc = 240
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

// groupDeferred puts the deferred tools into namespaces, one per MCP
// server, named after the server and described in its own words (tools
// without a server go to "tools"). The API documents no limit on a
// namespace's size (OpenAI advises small ones for functions defined by
// hand; a server is the unit its models are trained to search, like an MCP
// tool), so a server is never split: its namespace keeps its name when its
// tool list changes, and a replayed call's namespace stays valid. Names are
// valid for the API (^[a-zA-Z0-9_-]{1,64}$) and unique, also against
// reserved (the top-level function names). The result depends only on its
// inputs, never on their order, so the tools array stays byte-identical.
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
		base := namespaceBase(server)
		name := base
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		used[name] = true
		out = append(out, namespaceGroup{Name: name, Description: namespaceDesc(server, ts), Tools: ts})
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

// namespaceDesc describes a server's namespace in the server's own words
// (its MCP instructions or serverInfo, as its tools carry them), or, when
// it has none, by what its tools are for: the first clause of each tool's
// description, the most common first, until maxNamespaceDesc bytes.
func namespaceDesc(server string, tools []agent.ToolDef) string {
	own := ""
	for _, t := range tools {
		if d := firstLine(t.ServerDescription); d != "" && (own == "" || d < own) {
			own = d // the smallest, should the tools disagree
		}
	}
	head := "Additional tools"
	if server != "" {
		srv := server
		if len(srv) > 60 {
			srv = srv[:60]
		}
		head = "The " + srv + " MCP server"
	}
	if own != "" {
		return clipBytes(head+": "+own, maxNamespaceDesc)
	}
	// What the tools do, not what they are called: a purpose read from
	// each description, duplicates once, in the tools' name order.
	var purposes []string
	dup := map[string]bool{}
	for _, t := range tools {
		p := purpose(t.Description)
		if p == "" || dup[strings.ToLower(p)] {
			continue
		}
		dup[strings.ToLower(p)] = true
		purposes = append(purposes, p)
	}
	if len(purposes) == 0 {
		// The count is of the group's set, so the text stays the same on
		// every request while the set does (the tools array is cached).
		if len(tools) == 1 {
			return head + " (1 tool)"
		}
		return fmt.Sprintf("%s (%d tools)", head, len(tools))
	}
	desc := head + ", to: "
	for i, p := range purposes {
		sep := ""
		if i > 0 {
			sep = "; "
		}
		if len(desc)+len(sep)+len(p) > maxNamespaceDesc-len("; and more") && i > 0 {
			return desc + "; and more"
		}
		desc += sep + p
	}
	return clipBytes(desc, maxNamespaceDesc)
}

// purpose is the first clause of a tool description, lower-cased at the
// start and cut at about 60 bytes on a word.
func purpose(desc string) string {
	d := firstLine(desc)
	for _, stop := range []string{". ", "; ", " (", ": "} {
		if i := strings.Index(d, stop); i > 0 {
			d = d[:i]
		}
	}
	d = strings.TrimRight(strings.TrimSpace(d), ".;:,")
	if len(d) > 60 {
		cut := strings.LastIndex(d[:60], " ")
		if cut < 20 {
			cut = 60
		}
		d = d[:cut]
	}
	if d == "" {
		return ""
	}
	r := []rune(d)
	if len(r) > 1 && r[0] >= 'A' && r[0] <= 'Z' && !(r[1] >= 'A' && r[1] <= 'Z') {
		r[0] += 'a' - 'A'
	}
	return string(r)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

// clipBytes cuts s to at most n bytes on a rune boundary, with an ellipsis.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
