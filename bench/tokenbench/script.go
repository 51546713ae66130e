package tokenbench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/tools"
)

// The scripted conversation: Turns user turns; the even ones (2, 4, ...)
// each discover one deferred tool with a search and call it; the others
// are plain text.
const (
	Turns       = 10
	Discoveries = 5
)

const system = "You are a coding agent working in the user's repository. Use the tools you are given; search for more when you need a capability you do not have."

func userText(turn int) string {
	return fmt.Sprintf("Turn %d: please continue with the next step of the task and tell me briefly what you did.", turn)
}

func assistantText(turn int) string {
	return fmt.Sprintf("Done with step %d. I checked the current state, made the change we discussed, and everything still builds; next I will look at the remaining items on the list.", turn)
}

// discovery is the turn's target, if the turn discovers one.
func discovery(turn int, targets []target) (target, bool) {
	if turn%2 != 0 || turn/2 > Discoveries || len(targets) == 0 {
		return target{}, false
	}
	return targets[(turn/2-1)%len(targets)], true
}

// target is a tool a discovery finds and calls.
type target struct {
	Name  string
	Query string
	Args  json.RawMessage
}

// pickTargets spreads Discoveries targets over the catalog, each with a
// one-word query that no other tool's "name description" contains, so
// every search (the fakes' hosted ones included) finds exactly that tool
// where the catalog allows it.
func pickTargets(ts []tools.Tool) []target {
	texts := make([]string, len(ts))
	for i, t := range ts {
		texts[i] = searchText(t)
	}
	all := strings.Join(texts, "\x00")
	var out []target
	used := map[int]bool{}
	for k := 0; k < Discoveries; k++ {
		start := (2*k + 1) * len(ts) / (2 * Discoveries)
		pick, query := -1, ""
		for j := 0; j < len(ts) && pick < 0; j++ {
			i := (start + j) % len(ts)
			if used[i] && len(used) < len(ts) {
				continue
			}
			if q := uniqueWord(texts[i], all); q != "" {
				pick, query = i, q
			}
		}
		if pick < 0 {
			// No unique word anywhere: search by name words.
			pick = start % len(ts)
			query = strings.Join(strings.Fields(texts[pick])[:1], " ")
		}
		used[pick] = true
		out = append(out, target{Name: ts[pick].Name, Query: query, Args: sampleArgs(ts[pick].Schema)})
	}
	return out
}

// searchText is what responsestest's hosted search matches: name and
// description, lowercased, with _ - . as spaces.
func searchText(t tools.Tool) string {
	return strings.ToLower(strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(t.Name + " " + t.Description))
}

// uniqueWord is a word of text, name words first, that occurs in all only
// inside text.
func uniqueWord(text, all string) string {
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, `.,;:()[]{}"'!?`+"`")
		if len(w) < 4 || strings.ContainsAny(w, `"\`) {
			continue
		}
		if strings.Count(all, w) == strings.Count(text, w) {
			return w
		}
	}
	return ""
}

// sampleArgs builds arguments that satisfy the schema's required
// properties, so calls validate and run like a model's would.
func sampleArgs(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return json.RawMessage(`{}`)
	}
	v := sample(s, 0)
	if _, ok := v.(map[string]any); !ok {
		v = map[string]any{}
	}
	b, _ := json.Marshal(v)
	return b
}

func sample(s map[string]any, depth int) any {
	if depth > 6 {
		return nil
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if c, ok := s["const"]; ok {
		return c
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if a, ok := alts[0].(map[string]any); ok {
				return sample(a, depth+1)
			}
		}
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "string":
		return "example"
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok && m > 1 {
			return m
		}
		return 1
	case "boolean":
		return true
	case "array":
		n := 0
		if m, ok := s["minItems"].(float64); ok {
			n = int(m)
		}
		items, _ := s["items"].(map[string]any)
		arr := []any{}
		for i := 0; i < n; i++ {
			arr = append(arr, sample(items, depth+1))
		}
		return arr
	case "null":
		return nil
	}
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	out := map[string]any{}
	for _, r := range req {
		name, _ := r.(string)
		p, _ := props[name].(map[string]any)
		out[name] = sample(p, depth+1)
	}
	return out
}

// searcher answers client searches with the target whose query it is.
type searcher map[string]string

func (s searcher) Search(_ context.Context, c agent.SearchCall) ([]string, error) {
	if n, ok := s[c.Query]; ok {
		return []string{n}, nil
	}
	if len(c.Names) > 0 {
		return c.Names, nil
	}
	return nil, fmt.Errorf("bench searcher: unexpected query %q", c.Text())
}

// toolResult is what every catalog tool answers: a small JSON document.
func toolResult(name string) string {
	return fmt.Sprintf(`{"ok":true,"tool":%q,"summary":"The operation completed. 3 items matched; the first one is shown below.","item":{"id":"item-1","title":"Example result","updated":"2026-12-01T10:00:00Z"}}`, name)
}
