package tools

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ServerInfo is what a catalog says of one server: its configured name, one
// line on what it offers, and how many of the tools given are its.
type ServerInfo struct {
	Name string
	// Description is the server's own one line (MCP instructions or
	// serverInfo title, or the configured description), or, when it has
	// none, one drawn from its tools' names. It is at most about
	// MaxDescriptionTokens long.
	Description string
	Tools       int
}

// MaxDescriptionTokens bounds a ServerInfo's description, so a directory
// line (name, count and description) stays within about 40 tokens.
const MaxDescriptionTokens = 30

// Servers summarises ts by server, sorted by name; tools without a server
// (built-in ones) are left out. The result depends only on ts, not on
// their order, so the same catalog always gives the same bytes.
func Servers(ts []Tool) []ServerInfo {
	type acc struct {
		desc  string
		names []string
	}
	by := map[string]*acc{}
	for _, t := range ts {
		if t.Server == "" {
			continue
		}
		a := by[t.Server]
		if a == nil {
			a = &acc{}
			by[t.Server] = a
		}
		if d := firstLine(t.ServerDescription); d != "" && (a.desc == "" || d < a.desc) {
			a.desc = d // the smallest, should a server's tools disagree
		}
		name := t.Orig
		if name == "" {
			name = strings.TrimPrefix(t.Name, t.Server+"__")
		}
		a.names = append(a.names, name)
	}
	out := make([]ServerInfo, 0, len(by))
	for srv, a := range by {
		d := a.desc
		if d == "" {
			d = fromNames(a.names)
		}
		out = append(out, ServerInfo{Name: srv, Description: clip(d, MaxDescriptionTokens), Tools: len(a.names)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Directory is the text that tells a model what waits behind tool search:
// one line a server, "- NAME (N tools): DESCRIPTION". Empty when no tool
// has a server.
func Directory(ts []Tool) string {
	servers := Servers(ts)
	if len(servers) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Servers whose tools tool search finds:")
	for _, s := range servers {
		unit := "tools"
		if s.Tools == 1 {
			unit = "tool"
		}
		fmt.Fprintf(&b, "\n- %s (%d %s)", s.Name, s.Tools, unit)
		if s.Description != "" {
			b.WriteString(": " + s.Description)
		}
	}
	return b.String()
}

// fromNames describes a server that says nothing of itself by its first
// tools' names, in sorted order: "tools such as create_issue, get_file, …".
func fromNames(names []string) string {
	names = append([]string(nil), names...)
	sort.Strings(names)
	names = slices.Compact(names)
	const most = 3
	more := ""
	if len(names) > most {
		more = ", …"
		names = names[:most]
	}
	return "tools such as " + strings.Join(names, ", ") + more
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return ""
}

// clip cuts s to about n tokens, counting a token as four characters of
// Latin text or one of any other script (CJK costs about a token a
// character), at a word boundary where there is one, and marks the cut.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	budget := 4 * n
	used, lastSpace := 0, -1
	for i, r := range s {
		cost := 1
		if r >= utf8.RuneSelf {
			cost = 4
		}
		if used+cost > budget {
			cut := i
			if lastSpace > i/2 {
				cut = lastSpace
			}
			return strings.TrimRight(s[:cut], " ,;:.-") + "…"
		}
		used += cost
		if r == ' ' {
			lastSpace = i
		}
	}
	return s
}
