package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agent-dev/agent/tools/tokens"
)

// Compaction replaces, in what is sent, the messages before Boundary with a
// summary the model wrote of them. The history itself keeps every message
// (and so does the store): only the request changes.
//
// Found tools stay found. The tools discovered before the boundary are loaded
// again, right after the summary, by one complete client-form search pair (a
// search call naming them and its result listing them). Every adapter renders
// that pair in the form its request accepts: a tool_search tool_use answered
// by tool_reference blocks on Anthropic (the API loads the definitions from
// the references, with native search too, PROTOCOLS.md §1.5), a client
// tool_search_call/output on OpenAI Responses (hosted or client search), the
// tool_search function answered with the schemas on Chat Completions. Both
// native APIs were recorded accepting exactly this client-authored pair next
// to their own search tool and then calling the loaded tool (shared fixtures
// test_anthropic_promotes_local_search_history_round_trip.yaml and
// test_openai_promotes_local_search_history_round_trip.yaml). A raw
// search block is never cut from its pair: the messages after the boundary
// start a turn, so every pair there is whole, and those before it are not sent.
type Compaction struct {
	// Seq numbers the session's compactions from 1; it names the pair's id.
	Seq int `json:"seq"`
	// Boundary is how many messages of the history the summary replaces.
	Boundary int    `json:"boundary"`
	Summary  string `json:"summary"`
	// Found lists the tools discovered before the boundary.
	Found []string `json:"found,omitempty"`
	Focus string   `json:"focus,omitempty"`
	// Before and After estimate the tokens of the messages sent (o200k)
	// without and with this compaction.
	Before int `json:"before_tokens"`
	After  int `json:"after_tokens"`
	// Usage is what the summary request cost.
	Usage Usage `json:"usage"`
	// Auto is set when the context window share triggered it.
	Auto bool `json:"auto,omitempty"`
}

// ErrNothingToCompact is returned when no message lies before the turn in
// progress that an earlier compaction has not already summarised.
var ErrNothingToCompact = errors.New("nothing to compact yet: no earlier turn that is not already summarised")

// summaryIntro opens the message that stands for the compacted turns.
const summaryIntro = "The earlier part of this conversation was compacted to save context. Summary of it:\n\n"

// summaryPrompt asks the model for the summary.
func summaryPrompt(focus string) string {
	p := "Summarise the conversation so far for yourself, so you can continue the work after the earlier " +
		"messages are removed from your context. Keep what the user asked for and decided, the state of the work, " +
		"file names, identifiers, values and results that matter, what was tried and failed, and what remains to do. " +
		"The tools found by earlier searches stay available: name the ones you used and what for. " +
		"Answer with the summary only, in plain prose and short lists; call no tools."
	if focus = strings.TrimSpace(focus); focus != "" {
		p += "\n\nFocus the summary on: " + focus
	}
	return p
}

// pairID is the call id of a compaction's search pair: valid as an
// Anthropic tool_use id, an OpenAI call_id and a Chat Completions id.
func (c *Compaction) pairID() string { return "call_compact_" + strconv.Itoa(c.Seq) }

// Apply returns the messages sent for hist: with no compaction (c nil) hist
// itself; otherwise the summary, the found tools' search pair, then the
// messages from the boundary on.
func (c *Compaction) Apply(hist []Message) []Message {
	if c == nil || c.Boundary <= 0 || c.Boundary > len(hist) {
		return hist
	}
	out := make([]Message, 0, len(hist)-c.Boundary+3)
	out = append(out, Message{Role: RoleUser, Parts: []Part{TextPart(summaryIntro + c.Summary)}})
	if len(c.Found) > 0 {
		id := c.pairID()
		found := append([]string(nil), c.Found...)
		out = append(out,
			Message{Role: RoleAssistant, Parts: []Part{SearchCallPart(SearchCall{ID: id, Where: WhereClient, Names: found})}},
			Message{Role: RoleUser, Parts: []Part{SearchResultPart(SearchResult{CallID: id, Where: WhereClient, Tools: found})}},
		)
	}
	return append(out, hist[c.Boundary:]...)
}

// EstimateMessages is an o200k estimate of the tokens msgs take in a
// request: a message's raw provider payload where it has one (that is what
// its provider is sent), its neutral parts otherwise.
func EstimateMessages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += 4
		if raw := firstRaw(m); raw != nil {
			n += tokens.CountCached(string(raw.Data))
			// User-side parts never have raw; assistant text is inside it.
			continue
		}
		for _, p := range m.Parts {
			switch {
			case p.Type == PartText:
				n += tokens.CountCached(p.Text)
			case p.ToolCall != nil:
				n += 8 + tokens.CountCached(p.ToolCall.Name) + tokens.CountCached(string(p.ToolCall.Input))
			case p.ToolResult != nil:
				n += 8 + tokens.CountCached(p.ToolResult.Text) + 1500*len(p.ToolResult.Images)
			case p.Image != nil:
				n += 1500
			case p.SearchCall != nil:
				n += 12 + tokens.CountCached(p.SearchCall.Text())
			case p.SearchResult != nil:
				n += 8 + 6*len(p.SearchResult.Tools)
			case p.ServerTool != nil:
				n += 8 + tokens.CountCached(string(p.ServerTool.Input)) + tokens.CountCached(string(p.ServerTool.Result))
			}
		}
	}
	return n
}

func firstRaw(m Message) *Raw {
	for _, p := range m.Parts {
		if p.Type == PartRaw && p.Raw != nil {
			return p.Raw
		}
	}
	return nil
}

// estimateRequest estimates a whole request: system prompt, the active
// tools' definitions and the messages.
func (s *Session) estimateRequest(req *Request) int {
	n := tokens.CountCached(req.System) + EstimateMessages(req.Messages)
	for _, t := range req.Tools {
		if t.Tokens > 0 {
			n += t.Tokens
			continue
		}
		n += tokens.Tool(t.Name, t.Description, t.Schema)
	}
	return n
}

// messagesBound is at least EstimateMessages(msgs), counted in bytes: an
// o200k token is never shorter than a byte.
func messagesBound(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += 4
		if raw := firstRaw(m); raw != nil {
			n += len(raw.Data)
			continue
		}
		for _, p := range m.Parts {
			switch {
			case p.Type == PartText:
				n += len(p.Text)
			case p.ToolCall != nil:
				n += 8 + len(p.ToolCall.Name) + len(p.ToolCall.Input)
			case p.ToolResult != nil:
				n += 8 + len(p.ToolResult.Text) + 1500*len(p.ToolResult.Images)
			case p.Image != nil:
				n += 1500
			case p.SearchCall != nil:
				n += 12 + len(p.SearchCall.Text())
			case p.SearchResult != nil:
				n += 8 + 6*len(p.SearchResult.Tools)
			case p.ServerTool != nil:
				n += 8 + len(p.ServerTool.Input) + len(p.ServerTool.Result)
			}
		}
	}
	return n
}

// requestBound is at least estimateRequest(req). A definition's count is
// that of its JSON, which escaping makes at most 6 times its description
// (\u00XX) plus its name, schema (already JSON) and keys.
func requestBound(req *Request) int {
	n := len(req.System) + messagesBound(req.Messages)
	for _, t := range req.Tools {
		if t.Tokens > 0 {
			n += t.Tokens
			continue
		}
		n += 64 + 6*len(t.Name) + 6*len(t.Description) + len(t.Schema)
	}
	return n
}

// CompactionStore is implemented by stores that keep compactions, so a
// resumed session sends the compacted form.
type CompactionStore interface {
	SaveCompaction(ctx context.Context, c Compaction) error
}

// SetCompaction restores a stored compaction (on resume); nil clears it.
func (s *Session) SetCompaction(c *Compaction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compaction = c
	s.lastPrompt, s.lastLen = 0, 0
}

// Compaction returns the compaction in effect, or nil.
func (s *Session) Compaction() *Compaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.compaction == nil {
		return nil
	}
	c := *s.compaction
	return &c
}

// Compact summarises every message so far into a compaction: the model
// writes the summary in a request of its own, which is counted in usage.
// emit receives the summary request's usage and the compacted event; it
// may be nil. During a turn it fails with ErrBusy.
func (s *Session) Compact(ctx context.Context, focus string, emit func(Event)) (*Compaction, error) {
	if emit == nil {
		emit = func(Event) {}
	}
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.end()
	s.mu.Lock()
	// A cut turn's dangling calls get their results first, so the boundary
	// never falls between a call and its answer.
	s.history = RepairHistory(s.history)
	cut := len(s.history)
	s.mu.Unlock()
	return s.compact(ctx, cut, focus, false, emit)
}

// compact summarises the history before cut, which must start a turn (or
// be the end of the history).
func (s *Session) compact(ctx context.Context, cut int, focus string, auto bool, emit func(Event)) (*Compaction, error) {
	s.mu.Lock()
	hist := append([]Message(nil), s.history...)
	prev := s.compaction
	s.mu.Unlock()
	start, seq := 0, 1
	if prev != nil {
		start, seq = prev.Boundary, prev.Seq+1
	}
	if cut <= start || cut > len(hist) {
		return nil, ErrNothingToCompact
	}
	if s.cfg.Hooks != nil {
		if err := s.cfg.Hooks.Compacting(ctx, auto, focus, emit); err != nil {
			return nil, WithKind(ErrBlocked, err)
		}
	}
	before := EstimateMessages(prev.Apply(hist))
	// The summary is not part of the conversation: its text is not
	// streamed as the assistant's, and nothing of it is checkpointed.
	quiet := func(e Event) {
		if e.Type != EventTextDelta {
			emit(e)
		}
	}
	var usage Usage
	summary := ""
	// A model may answer with a tool call instead of the summary: it is
	// asked once more, more firmly (the call is not run).
	for attempt := 0; attempt < 2 && summary == ""; attempt++ {
		instr := summaryPrompt(focus)
		if attempt > 0 {
			instr += "\n\nDo not call any tool now: answer with the summary text alone."
		}
		build := func() *Request {
			req := s.BuildRequest()
			req.Messages = append(prev.Apply(hist[:cut]), Message{Role: RoleUser, Parts: []Part{TextPart(instr)}})
			return req
		}
		sent := time.Now()
		resp, used, err := s.request(ctx, quiet, build, false)
		if resp != nil {
			u := resp.Usage
			usage.Add(u)
			s.mu.Lock()
			s.totals.Add(u)
			s.mu.Unlock()
			emit(Event{Type: EventUsage, Usage: &u, Served: used.served(resp, sent, true)})
			if s.cfg.Store != nil {
				// No tools hash: the summary request is not the
				// conversation's, and its tools may differ (a server not
				// up yet, or none at all for an offline compaction); a
				// resume compares its tools with the conversation's last
				// request, which a summary must not stand in for.
				_ = s.cfg.Store.RecordRequest(context.WithoutCancel(ctx), RequestRecord{
					Provider: used.p.Name(), API: used.p.API(), Model: used.model,
					Usage: u, Resolved: resp.Resolved,
				})
			}
		}
		if err != nil {
			if resp == nil {
				// No usage event told what was asked: the error (or the
				// automatic compaction's warning) does, for telemetry.
				err = used.failedRequest(err, sent, true)
			}
			return nil, fmt.Errorf("compact: the summary request failed: %w", err)
		}
		summary = strings.TrimSpace(resp.Message.Text())
	}
	if summary == "" {
		return nil, errors.New("compact: the model answered the summary request without text, twice; nothing was compacted")
	}
	c := &Compaction{Seq: seq, Boundary: cut, Summary: summary, Found: Discovered(hist[:cut]), Focus: strings.TrimSpace(focus),
		Usage: usage, Auto: auto}
	c.Before, c.After = before, EstimateMessages(c.Apply(hist))
	if cs, ok := s.cfg.Store.(CompactionStore); ok && s.cfg.Store != nil {
		if err := cs.SaveCompaction(context.WithoutCancel(ctx), *c); err != nil {
			return nil, fmt.Errorf("compact: %w", err)
		}
	}
	s.mu.Lock()
	s.compaction = c
	s.lastPrompt, s.lastLen = 0, 0
	s.mu.Unlock()
	ev := *c
	emit(Event{Type: EventCompacted, Compaction: &ev})
	return c, nil
}

// autoCompact compacts before a request that would fill more than the
// AutoCompact share of the context window. turnStart is the index of the
// turn's first message: the messages of the turn in progress are kept.
func (s *Session) autoCompact(ctx context.Context, turnStart int, warned *bool, emit func(Event)) {
	if s.cfg.AutoCompact <= 0 || s.cfg.ContextWindow <= 0 {
		return
	}
	limit := int(s.cfg.AutoCompact * float64(s.cfg.ContextWindow))
	// A bound in bytes first (an o200k token is at least one byte): a
	// request that fits is never counted, so the tokenizer's tables are
	// loaded only when a request may be near the limit.
	s.mu.Lock()
	est := 0
	if s.lastPrompt > 0 && s.lastLen <= len(s.history) {
		if s.lastPrompt+messagesBound(s.history[s.lastLen:]) <= limit {
			s.mu.Unlock()
			return
		}
		est = s.lastPrompt + EstimateMessages(s.history[s.lastLen:])
	}
	s.mu.Unlock()
	if est == 0 {
		req := s.BuildRequest()
		if requestBound(req) <= limit {
			return
		}
		est = s.estimateRequest(req)
	}
	if est <= limit {
		return
	}
	if _, err := s.compact(ctx, turnStart, "", true, emit); err != nil {
		if !*warned {
			*warned = true
			msg := fmt.Sprintf("the request takes about %d tokens, over %d (auto_compact %.2g of %d): ", est, limit, s.cfg.AutoCompact, s.cfg.ContextWindow)
			if errors.Is(err, ErrNothingToCompact) {
				msg += "the turn in progress alone is that long, so there is nothing earlier to compact"
			} else {
				msg += err.Error()
			}
			emit(Event{Type: EventWarning, Text: msg, Served: FailedRequest(err)})
		}
	}
}
