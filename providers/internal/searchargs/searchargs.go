// Package searchargs reads the arguments of the agent's own tool-search
// function, the one the providers without a native search (and Anthropic
// and OpenAI when theirs is off for a model) give the model: {"query",
// "limit"}. Every such provider describes the same query syntax to the
// model, so they read it with one parser.
package searchargs

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agent-dev/agent/agent"
)

// Parse reads the arguments of a client search call id: select:A,B
// selects tools by exact name, /re/ is a regular expression, anything
// else a ranked query. A limit may come as a number or, from models that
// quote every value, as a string; anything else means no limit. Arguments
// that are not a JSON object are taken whole as the query: what the model
// asked for is searched rather than dropped.
func Parse(id string, args []byte) agent.SearchCall {
	c := agent.SearchCall{ID: id, Where: agent.WhereClient}
	var a struct {
		Query string          `json:"query"`
		Limit json.RawMessage `json:"limit"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		c.Query = string(args)
		return c
	}
	var lim float64
	if json.Unmarshal(a.Limit, &lim) == nil && lim > 0 {
		c.Limit = int(lim)
	} else {
		var s string
		if json.Unmarshal(a.Limit, &s) == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
				c.Limit = n
			}
		}
	}
	q := strings.TrimSpace(a.Query)
	switch {
	case len(q) >= 7 && strings.EqualFold(q[:7], "select:"):
		for _, n := range strings.Split(q[7:], ",") {
			if n = strings.TrimSpace(n); n != "" {
				c.Names = append(c.Names, n)
			}
		}
	case len(q) >= 2 && q[0] == '/' && q[len(q)-1] == '/':
		c.Pattern = q[1 : len(q)-1]
	default:
		c.Query = q
	}
	return c
}
