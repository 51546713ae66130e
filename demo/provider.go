package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/agent-dev/agent/agent"
)

// Provider is the scripted local model. On a user prompt it asks the client
// search for tools, then calls the best tool found with arguments taken from
// the prompt, then answers in Markdown from the tool's result. It never
// searches natively, so the agent's own search engine does the work.
type Provider struct {
	delay time.Duration
	ids   atomic.Int64
}

var _ agent.Provider = (*Provider)(nil)

func (*Provider) Name() string             { return "demo" }
func (*Provider) API() string              { return "demo" }
func (*Provider) NativeSearch(string) bool { return false }

func (p *Provider) id(kind string) string {
	return fmt.Sprintf("demo_%s_%d", kind, p.ids.Add(1))
}

// Send plays the next step of the script for the conversation so far.
func (p *Provider) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	mode := agent.ResolveSearch(p, req)
	resp := &agent.Response{Resolved: mode, ToolsHash: toolsHash(req, mode), StopReason: agent.StopEnd}
	prompt := lastPrompt(req.Messages)
	var parts []agent.Part
	var text string
	last := agent.Message{}
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1]
	}
	switch {
	case resultOf(last) != nil:
		text = answer(*resultOf(last), req, prompt)
	case searchOf(last) != nil:
		sr := searchOf(last)
		if t, ok := bestTool(sr.Tools, req, prompt); ok && score(t, queryFrom(prompt)) >= minFit {
			text = foundText(len(sr.Tools), t)
			parts = append(parts, agent.ToolCallPart(agent.ToolCall{ID: p.id("call"), Name: t.Name, Input: argsFor(t, prompt)}))
			resp.StopReason = agent.StopToolUse
		} else {
			text = noTool(sr, prompt)
		}
	default:
		q := queryFrom(prompt)
		if mode == agent.SearchClient {
			text = "Let me search the tool catalog for that."
			parts = append(parts, agent.SearchCallPart(agent.SearchCall{ID: p.id("search"), Where: agent.WhereClient, Query: q, Limit: 5}))
			resp.StopReason = agent.StopToolUse
			break
		}
		// Search off (or nothing deferred): every tool is in req.Tools.
		var names []string
		for _, t := range req.Tools {
			names = append(names, t.Name)
		}
		if t, ok := bestTool(names, req, prompt); ok && score(t, queryFrom(prompt)) >= minFit {
			text = fmt.Sprintf("**%s** looks right for this. Calling it.", t.Name)
			parts = append(parts, agent.ToolCallPart(agent.ToolCall{ID: p.id("call"), Name: t.Name, Input: argsFor(t, prompt)}))
			resp.StopReason = agent.StopToolUse
		} else {
			text = "None of my tools fits that. Try one of: " + strings.Join(Prompts, " · ")
		}
	}
	streamed, err := p.stream(ctx, text, emit)
	msg := agent.Message{Role: agent.RoleAssistant}
	if streamed != "" {
		msg.Parts = append(msg.Parts, agent.TextPart(streamed))
	}
	resp.Usage = usage(req, streamed)
	if err != nil {
		msg.Interrupted = true
		resp.Message = msg
		return resp, fmt.Errorf("demo stream cut: %w", err)
	}
	msg.Parts = append(msg.Parts, parts...)
	resp.Message = msg
	return resp, nil
}

// stream emits text word by word and returns what was sent before ctx ended.
func (p *Provider) stream(ctx context.Context, text string, emit func(agent.StreamEvent)) (string, error) {
	var sent strings.Builder
	for _, w := range splitKeep(text) {
		if p.delay > 0 {
			t := time.NewTimer(p.delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return sent.String(), ctx.Err()
			case <-t.C:
			}
		} else if err := ctx.Err(); err != nil {
			return sent.String(), err
		}
		sent.WriteString(w)
		emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: w})
	}
	return sent.String(), nil
}

// splitKeep splits after each space so the pieces join back to text.
func splitKeep(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, " \n")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func toolsHash(req *agent.Request, mode agent.SearchMode) string {
	b, _ := json.Marshal(struct {
		Tools []agent.ToolDef
		Mode  agent.SearchMode
	}{req.Tools, mode})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// usage estimates tokens at four bytes each, with the earlier turns read
// from a pretend prompt cache.
func usage(req *agent.Request, out string) agent.Usage {
	b, _ := json.Marshal(req.Messages)
	tb, _ := json.Marshal(req.Tools)
	in := (len(b) + len(tb) + len(req.System)) / 4
	cached := 0
	if len(req.Messages) > 1 {
		cached = in * 7 / 10
	}
	return agent.Usage{InputTokens: in - cached, CacheReadTokens: cached, OutputTokens: len(out)/4 + 1}
}

func lastPrompt(msgs []agent.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != agent.RoleUser {
			continue
		}
		for _, p := range msgs[i].Parts {
			if p.Type == agent.PartText && strings.TrimSpace(p.Text) != "" {
				return p.Text
			}
		}
	}
	return ""
}

func resultOf(m agent.Message) *agent.ToolResult {
	if m.Role != agent.RoleUser {
		return nil
	}
	for _, p := range m.Parts {
		if p.Type == agent.PartToolResult && p.ToolResult != nil {
			return p.ToolResult
		}
	}
	return nil
}

func searchOf(m agent.Message) *agent.SearchResult {
	if m.Role != agent.RoleUser {
		return nil
	}
	for _, p := range m.Parts {
		if p.Type == agent.PartSearchResult && p.SearchResult != nil {
			return p.SearchResult
		}
	}
	return nil
}

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the is are was be to of in on for at by with from and or but me my i you your we our it
		its this that these those what whats what's how much many can could would should please tell show give get find let
		do does did there here some any about into as this week today tomorrow now then than`) {
		stopwords[w] = true
	}
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

// synonyms add the word a catalog would use, as a model rephrases.
var synonyms = map[string]string{
	"far": "distance", "weather": "forecast", "calculate": "arithmetic", "compute": "calculate",
	"translate": "language", "rain": "weather", "email": "mail", "meeting": "event",
}

// queryFrom keeps the content words of a prompt, as a model would.
func queryFrom(prompt string) string {
	var out []string
	add := func(w string) {
		for _, o := range out {
			if o == w {
				return
			}
		}
		if len(out) < 8 {
			out = append(out, w)
		}
	}
	for _, w := range words(prompt) {
		if stopwords[w] || len(w) < 2 {
			continue
		}
		add(w)
		if syn, ok := synonyms[w]; ok {
			add(syn)
		}
	}
	if len(out) == 0 {
		return strings.TrimSpace(prompt)
	}
	return strings.Join(out, " ")
}

func defOf(req *agent.Request, name string) (agent.ToolDef, bool) {
	for _, list := range [][]agent.ToolDef{req.Tools, req.Deferred} {
		for _, t := range list {
			if t.Name == name {
				return t, true
			}
		}
	}
	return agent.ToolDef{}, false
}

// score counts prompt words found in a tool's name and description.
func score(t agent.ToolDef, prompt string) int {
	hay := map[string]bool{}
	for _, w := range words(strings.ReplaceAll(t.Name, "_", " ") + " " + t.Description) {
		hay[w] = true
		hay[strings.TrimSuffix(w, "s")] = true
	}
	// Words of the name past the server prefix say what the tool does;
	// they count twice so list_tickets beats list_comments for "tickets".
	own := map[string]bool{}
	for _, w := range words(strings.ReplaceAll(strings.TrimPrefix(t.Name, t.Server+"_"), "_", " ")) {
		own[w], own[strings.TrimSuffix(w, "s")] = true, true
	}
	n := 0
	for _, w := range words(prompt) {
		if stopwords[w] {
			continue
		}
		if hay[w] || hay[strings.TrimSuffix(w, "s")] {
			n++
		}
		if t.Server != "" && (own[w] || own[strings.TrimSuffix(w, "s")]) {
			n++
		}
	}
	return n
}

// bestTool re-ranks what the search found by overlap with the prompt,
// keeping the engine's order on ties.
func bestTool(names []string, req *agent.Request, prompt string) (agent.ToolDef, bool) {
	var defs []agent.ToolDef
	for _, n := range names {
		if d, ok := defOf(req, n); ok {
			defs = append(defs, d)
		}
	}
	if len(defs) == 0 {
		return agent.ToolDef{}, false
	}
	// Score against the query, which carries the synonyms a model adds.
	q := queryFrom(prompt)
	sort.SliceStable(defs, func(i, j int) bool { return score(defs[i], q) > score(defs[j], q) })
	return defs[0], true
}

var (
	// Compiled on first use: package init runs on every start, -p and --help too.
	numberRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-?\d+(?:\.\d+)?`) })
	currencyRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[A-Z]{3}\b`) })
	exprRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\d(][\d\s+\-*/().]*[\d)]`) })
)

var currencyWords = map[string]string{"euro": "EUR", "euros": "EUR", "dollar": "USD", "dollars": "USD", "pound": "GBP", "pounds": "GBP", "yen": "JPY", "francs": "CHF"}

// argsFor fills a tool's schema with values taken from the prompt, or
// plausible defaults, so the call validates against the schema.
func argsFor(t agent.ToolDef, prompt string) json.RawMessage {
	var sch struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(t.Schema, &sch)
	cities := citiesIn(prompt)
	curs := currenciesIn(prompt)
	nums := numberRe().FindAllString(prompt, -1)
	args := map[string]any{}
	required := map[string]bool{}
	for _, r := range sch.Required {
		required[r] = true
	}
	for name, p := range sch.Properties {
		n := strings.ToLower(name)
		if len(p.Enum) > 0 {
			if required[name] {
				args[name] = p.Enum[0]
			}
			continue
		}
		switch p.Type {
		case "number", "integer":
			switch {
			case n == "amount" || n == "value" || n == "principal":
				if len(nums) > 0 {
					f, _ := strconv.ParseFloat(nums[0], 64)
					args[name] = f
				} else {
					args[name] = 100
				}
			case n == "days":
				args[name] = 3
			case required[name]:
				args[name] = 1
			}
		case "string":
			var v string
			switch {
			case n == "city" || n == "region" || n == "address" || n == "near" || n == "origin":
				v = first(cities, 0, "Lisbon")
			case n == "destination":
				v = first(cities, 1, "Berlin")
			case n == "from" && strings.HasPrefix(t.Name, "finance"):
				v = first(curs, 0, "EUR")
			case n == "to" && strings.HasPrefix(t.Name, "finance"):
				v = first(curs, 1, "USD")
			case n == "base":
				v = first(curs, 0, "USD")
			case n == "expression":
				v = strings.TrimSpace(exprRe().FindString(prompt))
			case n == "path":
				v = "/demo/todo.md"
				if strings.Contains(t.Name, "list") {
					v = "/demo"
				}
			case n == "query" || n == "text" || n == "summary" || n == "title" || n == "subject" || n == "body" || n == "content":
				v = queryFrom(prompt)
			case n == "sql":
				v = "SELECT id, name, total FROM customers LIMIT 3"
			case n == "to" || n == "email" || strings.Contains(n, "assignee"):
				v = "ada@example.com"
			case n == "symbol":
				v = "ACME"
			case n == "target":
				v = "fr"
			case required[name]:
				v = queryFrom(prompt)
			}
			if v != "" {
				args[name] = v
			}
		case "array":
			if required[name] {
				args[name] = []string{}
			}
		case "boolean":
			if required[name] {
				args[name] = false
			}
		}
	}
	b, _ := json.Marshal(args)
	return b
}

func first(xs []string, i int, def string) string {
	if i < len(xs) {
		return xs[i]
	}
	return def
}

func citiesIn(prompt string) []string {
	type hit struct {
		at   int
		name string
	}
	var hits []hit
	lp := strings.ToLower(prompt)
	for _, c := range cities {
		if i := strings.Index(lp, strings.ToLower(c.name)); i >= 0 {
			hits = append(hits, hit{i, c.name})
		}
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].at < hits[j].at })
	var out []string
	for _, h := range hits {
		out = append(out, h.name)
	}
	return out
}

func currenciesIn(prompt string) []string {
	var out []string
	for _, w := range strings.Fields(prompt) {
		w = strings.Trim(w, ".,?!")
		if c, ok := currencyWords[strings.ToLower(w)]; ok {
			out = append(out, c)
		} else if currencyRe().MatchString(w) {
			if _, ok := usdPer[w]; ok {
				out = append(out, w)
			}
		}
	}
	return out
}

// foundText says which of the n tools a search found is called.
func foundText(n int, t agent.ToolDef) string {
	if n == 1 {
		return fmt.Sprintf("The search found 1 tool: **%s** (%s). Calling it.", t.Name, orWord(t.Server, "built-in"))
	}
	return fmt.Sprintf("The search found %d tools; **%s** (%s) fits best. Calling it.", n, t.Name, orWord(t.Server, "built-in"))
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func noTool(sr *agent.SearchResult, prompt string) string {
	if sr.Error != "" {
		return fmt.Sprintf("The tool search failed (%s), so I cannot do that here.", sr.Error)
	}
	found := "no tool"
	switch n := len(sr.Tools); {
	case n == 1:
		found = "1 tool, which does not fit"
	case n > 1:
		found = fmt.Sprintf("%d tools, none of which fits", n)
	}
	return fmt.Sprintf("I searched the catalog for “%s” and found %s. Try one of:\n\n- %s",
		queryFrom(prompt), found, strings.Join(Prompts, "\n- "))
}

// answer writes the Markdown reply from a tool result.
func answer(r agent.ToolResult, req *agent.Request, prompt string) string {
	var b strings.Builder
	if r.IsError {
		fmt.Fprintf(&b, "The tool **%s** reported an error:\n\n> %s\n\n", r.Name, firstLine(r.Text))
		b.WriteString("_Scripted demo model: a real model would fix the arguments and try again._\n")
		return b.String()
	}
	fmt.Fprintf(&b, "### %s\n\n", titleFor(prompt))
	fmt.Fprintf(&b, "Here is what **%s** returned:\n\n", r.Name)
	var v any
	if err := json.Unmarshal([]byte(r.Text), &v); err != nil {
		fmt.Fprintf(&b, "```\n%s\n```\n", strings.TrimSpace(r.Text))
	} else {
		writeValue(&b, v)
	}
	b.WriteString("\n_Scripted demo model: this answer is assembled from the tool result, no AI involved._\n")
	return b.String()
}

func titleFor(prompt string) string {
	t := strings.TrimSpace(strings.TrimRight(prompt, "?!. "))
	if t == "" {
		return "Result"
	}
	r := []rune(t)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// writeValue renders an object as a table, arrays of objects as a table
// with one row each, and other values inline.
func writeValue(b *strings.Builder, v any) {
	obj, ok := v.(map[string]any)
	if !ok {
		fmt.Fprintf(b, "`%s`\n", compact(v))
		return
	}
	keys := sortedKeys(obj)
	var nested []string
	b.WriteString("| field | value |\n|---|---|\n")
	for _, k := range keys {
		if rows, ok := obj[k].([]any); ok && len(rows) > 0 {
			if _, isObj := rows[0].(map[string]any); isObj {
				nested = append(nested, k)
				continue
			}
		}
		fmt.Fprintf(b, "| %s | %s |\n", k, cell(obj[k]))
	}
	for _, k := range nested {
		rows := obj[k].([]any)
		fmt.Fprintf(b, "\n**%s**\n\n", k)
		cols := sortedKeys(rows[0].(map[string]any))
		if len(cols) > 5 {
			cols = cols[:5]
		}
		b.WriteString("| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat("---|", len(cols)) + "\n")
		for _, row := range rows {
			m, _ := row.(map[string]any)
			var cells []string
			for _, c := range cols {
				cells = append(cells, cell(m[c]))
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func cell(v any) string {
	s := compact(v)
	if s2, ok := v.(string); ok {
		s = s2
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
	if len([]rune(s)) > 60 {
		s = string([]rune(s)[:59]) + "…"
	}
	return s
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// minFit is the overlap a tool needs before the demo calls it: one word of
// the tool's own name (which counts twice) or two of its description. One
// stray description word is not enough to invent arguments for a call.
const minFit = 2
