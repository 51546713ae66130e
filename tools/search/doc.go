// Package search is the agent's own tool search engine: a lexical index over
// the deferred catalog that every client-side search mode uses. Everything
// ships in the binary: no network, no model.
//
// A tool is indexed in five fields, each weighted and length-normalised on
// its own and combined before term-frequency saturation (BM25F): its name
// split into words (snake_case, camelCase, kebab-case, dots, digits) plus
// adjacent words glued together, its description, the names, titles,
// descriptions and enum values of its parameters (nested ones too), its
// server's name and description, and pairs of adjacent terms (phrases,
// matched against each tool's first terms at query time). Terms are
// Porter-stemmed and stop words dropped. A query is expanded with action-word
// synonyms and with the best terms of its first-pass hits (pseudo-relevance
// feedback); a second pass over the first 30 hits adds a prior for tools
// whose name the query says in full. Tools named verbatim in the query, and
// select:NAME lists, come first. A regex mode matches names and descriptions.
//
// A tool's earlier requests (a search that found it, then a call of it) are
// indexed as a sixth field, learned (see Index.Learn): a user's own history
// is the strongest signal there is.
//
// Each signal is kept because it holds on both halves of every shared set;
// see README.md for the figures, including what was tried and dropped.
//
// The index is immutable once built; ReplaceServer swaps in a new one that
// re-analyses only that server's tools. Search is safe for concurrent use.
package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Doc is one tool as the engine sees it.
type Doc struct {
	// ID identifies the tool in results; Name is used when it is empty.
	ID                string          `json:"id,omitempty"`
	Name              string          `json:"name"`
	Description       string          `json:"description,omitempty"`
	Schema            json.RawMessage `json:"input_schema,omitempty"`
	Server            string          `json:"server,omitempty"`
	ServerDescription string          `json:"server_description,omitempty"`
}

// Key is what a Doc is known by: its ID, or its name.
func (d Doc) Key() string {
	if d.ID != "" {
		return d.ID
	}
	return d.Name
}

// Hit is one search result.
type Hit struct {
	ID          string  `json:"id,omitempty"`
	Name        string  `json:"name"`
	Server      string  `json:"server,omitempty"`
	Score       float64 `json:"score"`
	Description string  `json:"description,omitempty"`
}

// Mode picks how a query is read.
type Mode string

const (
	// ModeAuto reads "select:a,b" as ModeSelect, "/re/" as ModeRegex and
	// anything else as ModeBM25.
	ModeAuto Mode = "auto"
	// ModeBM25 is ranked lexical search.
	ModeBM25 Mode = "bm25"
	// ModeRegex matches a case-insensitive regular expression against each
	// tool's name and description.
	ModeRegex Mode = "regex"
	// ModeSelect takes a comma-separated list of exact tool names.
	ModeSelect Mode = "select"
)

// ParseMode validates a user-supplied mode; "" is ModeAuto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(s)); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeBM25, ModeRegex, ModeSelect:
		return m, nil
	}
	return "", fmt.Errorf("unknown search mode %q: use auto, bm25, regex or select", s)
}

// Options tune one search.
type Options struct {
	// Limit caps the hits; 0 means DefaultLimit.
	Limit int
	Mode  Mode
}

// DefaultLimit is the number of hits when Options.Limit is 0.
const DefaultLimit = 10

// ErrEmptyQuery is returned for a query with nothing to search for.
var ErrEmptyQuery = errors.New("empty search query: give words describing the tool, a /regex/, or select:NAME")

// maxPatternLen bounds a regular expression. Go's regexp runs in linear
// time, so this is about compile cost and memory, not catastrophic
// backtracking.
const maxPatternLen = 1000

// FromTools converts tools to documents. A tool's name is its ID.
func FromTools(ts []tools.Tool) []Doc {
	out := make([]Doc, 0, len(ts))
	for _, t := range ts {
		out = append(out, docOf(t))
	}
	return out
}

// docOf is what search sees of a tool.
func docOf(t tools.Tool) Doc {
	return Doc{Name: t.Name, Description: t.Description, Schema: t.Schema, Server: t.Server, ServerDescription: t.ServerDescription}
}

// FirstLine is the first non-empty line of s, for one-line displays.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
