package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/themes"
)

// subagentView is what a run_agent card shows of the child session it runs:
// folded, its agent, model, state and latest step; expanded (ctrl+o, as
// every card), the task, each search and call, and the answer.
type subagentView struct {
	Agent, Provider, Model, SessionID string
	Prompt                            string
	// Steps are one line each: a search and what it found, a call and how
	// it ended, an error.
	Steps    []string
	Answer   string
	Summary  string
	Requests int
	Done     bool
	Failed   string
}

// subagentEvent applies a subagent's event to its run_agent card and its
// searches to the pane, under its name.
func (m *Model) subagentEvent(ev agent.Event, found []ToolInfo) tea.Cmd {
	s := ev.Subagent
	if s == nil {
		return nil
	}
	it := m.chat.subagentCard(s.ID)
	v := it.card.Sub
	if v == nil {
		v = &subagentView{Agent: s.Agent}
		it.card.Sub = v
	}
	it.version++
	switch ev.Type {
	case agent.EventSubagentStarted:
		v.Provider, v.Model, v.SessionID, v.Prompt = s.Provider, s.Model, s.SessionID, s.Prompt
		return m.spin.Tick
	case agent.EventSubagentFinished:
		v.Done, v.Summary, v.Requests = true, s.Summary, s.Requests
		if s.Result != "" {
			v.Answer = s.Result
		}
		if s.IsError {
			v.Failed = orText(s.Error, "failed")
		}
		return nil
	}
	in := s.Event
	if in == nil {
		return nil
	}
	// A child numbers its searches on its own: their ids are made its.
	searchID := func(id string) string { return "sub:" + s.ID + ":" + id }
	switch in.Type {
	case agent.EventSearchStarted, agent.EventSearchFinished:
		if in.Search == nil {
			return nil
		}
		se := *in.Search
		se.ID = searchID(se.ID)
		var entry *searchEntry
		if in.Type == agent.EventSearchStarted {
			entry, _ = m.pane.started(se)
		} else {
			entry, _ = m.pane.finished(se, found)
			v.Steps = append(v.Steps, searchStep(*in.Search))
		}
		entry.Agent = s.Agent
		return m.spin.Tick
	case agent.EventToolStarted:
		if in.Tool != nil {
			m.pane.called(s.Agent, in.Tool.Name, statusRunning, 0)
			v.Answer = "" // the answer is what follows the last call
		}
	case agent.EventToolFinished:
		if in.Tool != nil {
			st := statusOK
			mark := "✓"
			if in.Tool.IsError {
				st, mark = statusFailed, "✗"
			}
			m.pane.called(s.Agent, in.Tool.Name, st, in.Tool.Duration)
			v.Steps = append(v.Steps, fmt.Sprintf("⚙ %s %s %s", in.Tool.Name, mark, fmtDuration(in.Tool.Duration)))
		}
	case agent.EventTextDelta:
		v.Answer += in.Text
	case agent.EventUsage:
		v.Requests++
	case agent.EventError:
		if in.Err != nil {
			v.Steps = append(v.Steps, "✗ "+in.Err.Error())
		}
	}
	return nil
}

func searchStep(s agent.SearchEvent) string {
	head := "◇ " + s.Where + " search " + quote(s.Query)
	switch {
	case s.Error != "":
		return head + " ✗ " + s.Error
	case len(s.Tools) == 0:
		return head + " → nothing"
	}
	return head + " → " + strings.Join(s.Tools, ", ")
}

// subagentCard is the card of the run_agent call id, made when the call's
// own start event has not arrived yet.
func (c *chat) subagentCard(id string) *chatItem {
	it, ok := c.cards[id]
	if !ok {
		c.endReasoning()
		it = c.add(&chatItem{kind: itemTool, card: &toolCard{ID: id, Name: "run_agent"}})
		c.cards[id] = it
	}
	return it
}

// renderSubagent draws a run_agent card: the agent and where it runs, its
// state, then its latest step (folded) or everything (expanded).
func (c *toolCard) renderSubagent(st *themes.Styles, inner int, expanded bool) []string {
	v := c.Sub
	title := st.CardTitle.Render("⇢ "+v.Agent) + " " + st.CardServer.Render("· subagent")
	if v.Provider != "" {
		title += st.CardServer.Render(" · " + v.Provider + "/" + v.Model)
	}
	status := st.Running.Render(fmt.Sprintf("… running (%d requests)", v.Requests))
	switch {
	case v.Failed != "":
		status = st.Fail.Render("✗ failed " + fmtDuration(c.Duration))
	case c.Status == statusWaiting:
		status = st.Running.Render("? awaiting approval")
	case v.Done:
		status = st.OK.Render(fmt.Sprintf("✓ %d requests %s", v.Requests, fmtDuration(c.Duration)))
	}
	gap := max(inner-ansi.StringWidth(title)-ansi.StringWidth(status), 1)
	if ansi.StringWidth(title)+ansi.StringWidth(status)+1 > inner {
		title = ansi.Truncate(title, max(inner-ansi.StringWidth(status)-1, 1), "…")
	}
	body := []string{title + strings.Repeat(" ", gap) + status}
	if !expanded {
		line := firstLine(v.Prompt)
		if n := len(v.Steps); n > 0 {
			line = v.Steps[n-1]
		}
		if v.Done && v.Summary != "" {
			line = v.Summary
		}
		if line != "" {
			body = append(body, st.CardArgs.Render(ansi.Truncate(line, inner, "…")))
		}
		if v.Failed != "" {
			body = append(body, st.Fail.Render(ansi.Truncate(v.Failed, inner, "…")))
		} else if p := preview(v.Answer); p != "" && v.Done {
			body = append(body, st.CardPreview.Render(ansi.Truncate("→ "+p, inner, "…")))
		}
		return body
	}
	if v.Prompt != "" {
		body = append(body, st.CardArgs.Render("task:"))
		body = append(body, limitLines(wrapLines(v.Prompt, inner), 10)...)
	}
	for _, s := range v.Steps {
		body = append(body, st.CardArgs.Render(ansi.Truncate(s, inner, "…")))
	}
	if v.Failed != "" {
		body = append(body, st.Fail.Render(ansi.Truncate(v.Failed, inner, "…")))
	}
	if v.Answer != "" {
		body = append(body, st.CardArgs.Render("answer:"))
		for _, l := range limitLines(wrapLines(v.Answer, inner), 30) {
			body = append(body, st.CardPreview.Render(l))
		}
	}
	if v.Summary != "" {
		body = append(body, st.Muted.Render(ansi.Truncate(v.Summary, inner, "…")))
	}
	if v.SessionID != "" {
		body = append(body, st.Muted.Render(ansi.Truncate("session "+v.SessionID, inner, "…")))
	}
	return body
}
