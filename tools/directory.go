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
		// raw is the last ServerDescription seen: a server's tools all
		// carry the same, read once rather than once a tool.
		raw  string
		seen bool
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
		if !a.seen || t.ServerDescription != a.raw {
			a.raw, a.seen = t.ServerDescription, true
			if d := firstLine(t.ServerDescription); d != "" && (a.desc == "" || d < a.desc) {
				a.desc = d // the smallest, should a server's tools disagree
			}
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

// fromNames describes a server that says nothing of itself by the words
// its tool names share most, leaving out the verbs every server has: a
// GitHub server's "get_issue", "list_issues", "create_pull_request" give
// "issue, pull, request". A server with one tool is described by its name.
func fromNames(names []string) string {
	count := map[string]int{}
	seen := map[string]bool{}
	var words []string
	for _, n := range names {
		clear(seen)
		words = appendNameWords(words[:0], n)
		for _, w := range words {
			if !genericWord[w] && !seen[w] {
				seen[w] = true
				count[w]++
			}
		}
	}
	words = MostFirst(count)
	const most = 6
	if len(words) > most {
		words = words[:most]
	}
	if len(words) == 0 {
		names = slices.Compact(slices.Sorted(slices.Values(names)))
		return "tools such as " + strings.Join(names[:min(3, len(names))], ", ")
	}
	return "tools for " + strings.Join(words, ", ")
}

// appendNameWords appends to out the words of a tool name: lower-case,
// split at underscores, dashes, dots, digits and camelCase humps, plurals
// folded ("issues": "issue"). out is reused across a server's names.
func appendNameWords(out []string, name string) []string {
	var buf [64]rune
	cur := buf[:0]
	flush := func() {
		if len(cur) > 2 {
			w := strings.ToLower(string(cur))
			switch {
			case len(w) > 4 && strings.HasSuffix(w, "ies"):
				w = strings.TrimSuffix(w, "ies") + "y"
			case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
				w = strings.TrimSuffix(w, "s")
			}
			out = append(out, w)
		}
		cur = cur[:0]
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// genericWord are the words of tool names that say what a tool does to
// something, not what: every server has them.
var genericWord = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`get list create update delete add remove set search find read write fetch
		run execute call make new edit modify show view open close start stop use do by for to of and or the a an
		all info detail data item api mcp tool server page result query take retrieve toggle allowed`) {
		m[w] = true
	}
	return m
}()

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
