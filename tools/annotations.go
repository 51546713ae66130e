package tools

import "strings"

// Annotations are an MCP tool's hints about its behaviour. They are the
// server's claims, never a guarantee: they may relax an approval the user
// configured (approve_read_only) only because the user said so.
type Annotations struct {
	Title       string `json:"title,omitempty"`
	ReadOnly    *bool  `json:"readOnlyHint,omitempty"`
	Destructive *bool  `json:"destructiveHint,omitempty"`
	Idempotent  *bool  `json:"idempotentHint,omitempty"`
	OpenWorld   *bool  `json:"openWorldHint,omitempty"`
}

// IsReadOnly: the server says the tool does not modify its environment.
func (a *Annotations) IsReadOnly() bool { return a != nil && a.ReadOnly != nil && *a.ReadOnly }

// IsDestructive is what "@destructive" matches: a tool whose readOnlyHint
// is not true. The specification says destructiveHint is meaningful only
// when readOnlyHint is false, so a read-only tool is never destructive —
// which matters, as mcp-go, say, sends destructiveHint true on every tool
// whose author did not set it. A destructiveHint false ("only adds") does
// not take a writing tool out: a server's claim relaxes nothing the user
// did not ask it to.
func (a *Annotations) IsDestructive() bool { return !a.IsReadOnly() }

// String lists the hints that are set, for agent tools: "read-only,
// idempotent", "destructive, open-world".
func (a *Annotations) String() string {
	if a == nil {
		return ""
	}
	var out []string
	flag := func(p *bool, yes, no string) {
		switch {
		case p == nil:
		case *p && yes != "":
			out = append(out, yes)
		case !*p && no != "":
			out = append(out, no)
		}
	}
	flag(a.ReadOnly, "read-only", "")
	flag(a.Destructive, "destructive", "non-destructive")
	flag(a.Idempotent, "idempotent", "")
	flag(a.OpenWorld, "open-world", "closed-world")
	return strings.Join(out, ", ")
}
