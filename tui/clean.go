package tui

import (
	"bytes"
	"encoding/json"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
)

// Everything the TUI shows from outside (model text, tool names, inputs and
// results, errors, warnings, stored history) enters through clean*, which
// copy what they change: the session's own values stay exact. Escape
// sequences never reach the frame, let alone the scrollback of inline mode.

// cleanEvent returns ev with its displayed text sanitised.
func cleanEvent(ev agent.Event) agent.Event {
	ev.Text = sanitize.Text(ev.Text)
	if ev.Search != nil {
		s := *ev.Search
		s.Query, s.Error = sanitize.Text(s.Query), sanitize.Text(s.Error)
		s.Tools = cleanAll(s.Tools)
		ev.Search = &s
	}
	if ev.Tool != nil {
		t := *ev.Tool
		t.Name, t.Server, t.Result = sanitize.Line(t.Name), sanitize.Line(t.Server), sanitize.Text(t.Result)
		t.Input = cleanJSON(t.Input)
		t.Err = cleanErr(t.Err)
		ev.Tool = &t
	}
	if ev.Message != nil {
		m := cleanMessage(*ev.Message)
		ev.Message = &m
	}
	if ev.Progress != nil {
		p := *ev.Progress
		p.Message = sanitize.Line(p.Message)
		ev.Progress = &p
	}
	if ev.Subagent != nil {
		sa := *ev.Subagent
		sa.Agent, sa.Provider, sa.Model = sanitize.Line(sa.Agent), sanitize.Line(sa.Provider), sanitize.Line(sa.Model)
		sa.Prompt, sa.Result, sa.Summary, sa.Error = sanitize.Text(sa.Prompt), sanitize.Text(sa.Result), sanitize.Line(sa.Summary), sanitize.Text(sa.Error)
		if sa.Event != nil {
			inner := cleanEvent(*sa.Event)
			sa.Event = &inner
		}
		ev.Subagent = &sa
	}
	if ev.Tool != nil {
		ev.Tool.Agent = sanitize.Line(ev.Tool.Agent)
	}
	ev.Err = cleanErr(ev.Err)
	return ev
}

// cleanMessages sanitises a history for display.
func cleanMessages(msgs []agent.Message) []agent.Message {
	out := make([]agent.Message, len(msgs))
	for i, m := range msgs {
		out[i] = cleanMessage(m)
	}
	return out
}

func cleanMessage(m agent.Message) agent.Message {
	parts := make([]agent.Part, len(m.Parts))
	for i, p := range m.Parts {
		p.Text = sanitize.Text(p.Text)
		if p.ToolCall != nil {
			c := *p.ToolCall
			c.Name, c.Input = sanitize.Line(c.Name), cleanJSON(c.Input)
			p.ToolCall = &c
		}
		if p.ToolResult != nil {
			r := *p.ToolResult
			r.Name, r.Text = sanitize.Line(r.Name), sanitize.Text(r.Text)
			p.ToolResult = &r
		}
		if p.SearchCall != nil {
			s := *p.SearchCall
			s.Query, s.Pattern, s.Names = sanitize.Text(s.Query), sanitize.Text(s.Pattern), cleanAll(s.Names)
			p.SearchCall = &s
		}
		parts[i] = p
	}
	m.Parts = parts
	return m
}

func cleanAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = sanitize.Line(s)
	}
	return out
}

// cleanJSON sanitises the strings of a JSON value, which the cards decode
// to show (a "\u001b" escape would become a raw ESC there).
func cleanJSON(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`\u00`)) && !bytes.Contains(raw, []byte{0x1b}) && !bytes.Contains(raw, []byte("\u009b")) {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		b, _ := json.Marshal(sanitize.Text(string(raw)))
		return b
	}
	b, err := json.Marshal(cleanValue(v))
	if err != nil {
		return raw
	}
	return b
}

func cleanValue(v any) any {
	switch x := v.(type) {
	case string:
		return sanitize.Text(x)
	case []any:
		for i := range x {
			x[i] = cleanValue(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[sanitize.Line(k)] = cleanValue(e)
		}
		return out
	}
	return v
}

// cleanErr keeps err's kind (errors.Is still sees through it) with its
// text sanitised.
func cleanErr(err error) error {
	if err == nil {
		return nil
	}
	if s := err.Error(); sanitize.Text(s) != s {
		return sanitizedErr{err}
	}
	return err
}

type sanitizedErr struct{ err error }

func (e sanitizedErr) Error() string { return sanitize.Text(e.err.Error()) }
func (e sanitizedErr) Unwrap() error { return e.err }
