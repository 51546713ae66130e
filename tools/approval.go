package tools

import (
	"fmt"
	"path"
	"strings"
)

// Approval is the require_approval policy: glob patterns ("*" any run of
// characters, "?" one, "[a-z]" a class) matched against every name a tool
// has, or "server:GLOB" for every tool of the servers it matches.
//
// A tool's names are its wire name ("bad_2-dcf9__delete_everything"), the
// server's own tool name ("delete_everything") and the displayed
// "server__tool" with the configured server name ("bad.2__delete_everything"),
// so a pattern written with any name the user sees holds.
//
// "@destructive" matches every MCP tool whose annotations say it may
// destroy (destructiveHint true, or readOnlyHint not true).
type Approval struct {
	patterns []string
	// ApproveReadOnly lets a tool whose server marks it readOnlyHint run
	// without asking, whatever pattern matches it (approve_read_only).
	ApproveReadOnly bool
}

// Destructive is the require_approval pattern of tools that may destroy.
const Destructive = "@destructive"

// NewApproval checks the patterns' syntax.
func NewApproval(patterns []string) (*Approval, error) {
	a := &Approval{}
	for _, p := range patterns {
		if p == Destructive {
			a.patterns = append(a.patterns, p)
			continue
		}
		if strings.HasPrefix(p, "@") {
			return nil, fmt.Errorf("require_approval: unknown pattern %q: the only @ pattern is %s", p, Destructive)
		}
		g := strings.TrimPrefix(p, "server:")
		if g == "" {
			return nil, fmt.Errorf("require_approval: empty pattern %q", p)
		}
		if _, err := path.Match(escapeSlash(g), ""); err != nil {
			return nil, fmt.Errorf("require_approval: bad pattern %q: %v", p, err)
		}
		a.patterns = append(a.patterns, p)
	}
	return a, nil
}

// Names lists every name t answers to, once each.
func Names(t Tool) []string {
	out := []string{t.Name}
	add := func(n string) {
		for _, o := range out {
			if o == n {
				return
			}
		}
		out = append(out, n)
	}
	if t.Orig != "" {
		add(t.Orig)
		if t.Server != "" {
			add(t.Server + "__" + t.Orig)
		}
	}
	return out
}

// Needs reports whether a call of t waits for the user's approval.
func (a *Approval) Needs(t Tool) bool {
	if a == nil {
		return false
	}
	if a.ApproveReadOnly && t.Annotations.IsReadOnly() {
		return false
	}
	for _, p := range a.patterns {
		if matches(p, t) {
			return true
		}
	}
	return false
}

// Unmatched returns the patterns that match no tool of ts and, for
// "server:" patterns, no server of servers: most likely a typo, so the
// tools they meant run without asking.
func (a *Approval) Unmatched(ts []Tool, servers []string) []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, p := range a.patterns {
		if p == Destructive {
			continue // a class of tools, not a name that could be misspelt
		}
		hit := false
		if g, ok := strings.CutPrefix(p, "server:"); ok {
			for _, s := range servers {
				if glob(g, s) {
					hit = true
					break
				}
			}
		}
		for i := 0; !hit && i < len(ts); i++ {
			hit = matches(p, ts[i])
		}
		if !hit {
			out = append(out, p)
		}
	}
	return out
}

func matches(p string, t Tool) bool {
	if p == Destructive {
		return t.Server != "" && t.Annotations.IsDestructive()
	}
	if g, ok := strings.CutPrefix(p, "server:"); ok {
		return t.Server != "" && glob(g, t.Server)
	}
	for _, n := range Names(t) {
		if glob(p, n) {
			return true
		}
	}
	return false
}

// glob is path.Match with "/" an ordinary character: server and tool names
// may contain one.
func glob(pattern, name string) bool {
	ok, _ := path.Match(escapeSlash(pattern), escapeSlash(name))
	return ok
}

func escapeSlash(s string) string { return strings.ReplaceAll(s, "/", "\x00") }
