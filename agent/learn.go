package agent

import (
	"context"
	"strings"
)

// Learner is told what the model used, so tool search can learn from it:
// the tools each search found, and each call of a tool that a search of the
// session had found, with that search's query. It is called from a turn's
// goroutines (tool calls run concurrently): implementations must be safe for
// concurrent use, and quick.
type Learner interface {
	Learn(ctx context.Context, u ToolUse)
}

// ToolUse is one thing a Learner is told.
type ToolUse struct {
	// Called is false when a search found Tools, true when the model called
	// Tools[0], which a search for Query had found.
	Called bool
	Query  string
	// Where the search ran: WhereClient or WhereProvider.
	Where string
	Tools []UsedTool
}

// UsedTool is a tool by its name and server.
type UsedTool struct{ Name, Server string }

// foundBy is the search that found a tool, for learning.
type foundBy struct{ query, where string }

// noteSearch tells the Learner what a search found and keeps, for each tool,
// the query of the last search that found it. Only searches with words
// count: a regular expression or a select: list says nothing about what
// the user asked in words. A provider search that loads by path alone
// (OpenAI's hosted search) is learned with the user's latest prompt.
func (s *Session) noteSearch(ctx context.Context, c SearchCall, found []string, where string) {
	if s.Learner == nil || len(found) == 0 {
		return
	}
	q := strings.TrimSpace(c.Query)
	if q == "" && where == WhereProvider && len(c.Names) > 0 && c.Pattern == "" {
		// OpenAI's hosted search loads namespaces by path and reports no
		// words: the request that led to it is the user's.
		q = s.lastUserText()
	}
	if q == "" || c.Pattern != "" || strings.HasPrefix(strings.ToLower(q), "select:") {
		return
	}
	u := ToolUse{Query: q, Where: where}
	s.learnMu.Lock()
	if s.found == nil {
		s.found = map[string]foundBy{}
	}
	for _, name := range found {
		t, ok := s.Tools.Lookup(name)
		if !ok {
			continue
		}
		s.found[t.Name] = foundBy{q, where}
		u.Tools = append(u.Tools, UsedTool{t.Name, t.Server})
	}
	s.learnMu.Unlock()
	if len(u.Tools) > 0 {
		s.Learner.Learn(context.WithoutCancel(ctx), u)
	}
}

// noteCall tells the Learner about a call of a tool a search had found.
func (s *Session) noteCall(ctx context.Context, name, server string) {
	if s.Learner == nil {
		return
	}
	s.learnMu.Lock()
	f, ok := s.found[name]
	s.learnMu.Unlock()
	if ok {
		s.Learner.Learn(context.WithoutCancel(ctx), ToolUse{Called: true, Query: f.query, Where: f.where, Tools: []UsedTool{{name, server}}})
	}
}

// lastUserText is the text of the newest user message that has any, cut
// to 2,048 bytes at a rune boundary.
func (s *Session) lastUserText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.history) - 1; i >= 0; i-- {
		if m := s.history[i]; m.Role == RoleUser {
			if t := strings.TrimSpace(m.Text()); t != "" {
				if len(t) > 2048 {
					t = strings.ToValidUTF8(t[:2048], "")
				}
				return t
			}
		}
	}
	return ""
}
