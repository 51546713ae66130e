package tools

import "strings"

// SearchCall is a tool search a model asked for (agent.SearchCall). Where
// tells whether the provider runs it ("provider") or the agent does
// ("client"); a client search reads Names (exact names), else Pattern (a
// regular expression), else Query, and returns at most Limit tools.
type SearchCall struct {
	ID      string `json:"id"`
	Where   string `json:"where"`
	Query   string `json:"query,omitempty"`
	Pattern string `json:"pattern,omitempty"`
	// Names is set when the model selects tools by exact name (select:NAME or paths).
	Names []string `json:"names,omitempty"`
	Limit int      `json:"limit,omitempty"`
}

// Text is what was searched for, in the syntax the client tool_search
// tool's description teaches (words, "/regex/" or "select:A,B"): the
// adapters that send a search back as a tool_search call write it so, and
// the transcript, the TUI and the stored discoveries show it.
func (s SearchCall) Text() string {
	switch {
	case s.Query != "":
		return s.Query
	case s.Pattern != "":
		return "/" + s.Pattern + "/"
	case len(s.Names) > 0:
		return "select:" + strings.Join(s.Names, ",")
	}
	return ""
}
