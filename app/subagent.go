package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/config/agents"
	"github.com/agent-dev/agent/store"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/permission"
)

// RunAgentTool is the tool through which the model hands a task to a
// subagent: an agent profile with subagent: true, run as a child session
// with its own model, provider, prompt, servers, tool list and deferral.
const RunAgentTool = "run_agent"

// subagentProfiles are the callable profiles this run sees, by name. A bad
// profile file is left out (agent agents names its error).
func (s Settings) subagentProfiles() []agents.Profile {
	var out []agents.Profile
	for _, p := range s.Profiles().List() {
		if p.Subagent {
			out = append(out, p)
		}
	}
	return out
}

// addRunAgent registers run_agent when a profile is callable: one active
// tool whose definition is a function of the profiles alone, read once, so
// the tools array stays the same bytes for the whole conversation. With no
// subagent, nothing is added and the request is what it was before.
func (a *App) addRunAgent() error {
	if a.isSub || a.settings.Demo {
		return nil // a subagent runs no subagents of its own
	}
	a.subs = a.settings.subagentProfiles()
	if len(a.subs) == 0 {
		return nil
	}
	return a.session.Tools().Add([]tools.Option{tools.Defer(false)}, runAgentDef(a.subs, a.execRunAgent))
}

// runAgentDef is run_agent's definition for the profiles ps.
func runAgentDef(ps []agents.Profile, exec tools.Executor) tools.Tool {
	var b strings.Builder
	b.WriteString("Hand a task to a subagent: a helper with its own model, tools and empty context, " +
		"which works on its own and returns its final answer, followed by a line naming the tools it found and called. " +
		"It sees nothing of this conversation, so put everything it needs in prompt. " +
		"Several run_agent calls in one response run at the same time.\n\nSubagents:")
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.Name)
		desc, _, _ := strings.Cut(strings.TrimSpace(p.Description), "\n")
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(&b, "\n- %s: %s", p.Name, desc)
	}
	schema, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"agent":  map[string]any{"type": "string", "enum": names, "description": "The subagent to run."},
			"prompt": map[string]any{"type": "string", "description": "The whole task: the subagent sees nothing else."},
		},
		"required":             []string{"agent", "prompt"},
		"additionalProperties": false,
	})
	return tools.Tool{Name: RunAgentTool, Description: b.String(), Schema: schema, Exec: exec}
}

// execRunAgent runs one run_agent call: its events go out in the calling
// turn's stream, its answer is the call's result.
func (a *App) execRunAgent(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var in struct {
		Agent  string `json:"agent"`
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return tools.Result{Text: `run_agent needs {"agent": NAME, "prompt": TASK}: ` + err.Error(), IsError: true}, nil
	}
	i := slices.IndexFunc(a.subs, func(p agents.Profile) bool { return p.Name == in.Agent })
	if i < 0 {
		return tools.Result{Text: fmt.Sprintf("no subagent %q: call run_agent with one of the agents its description lists", in.Agent), IsError: true}, nil
	}
	id, emit, ok := agent.CallEmitter(ctx)
	if !ok {
		emit = func(agent.Event) {}
	}
	fin := a.RunSubagent(ctx, id, emit, a.subs[i], in.Prompt)
	text := fin.Result
	if fin.IsError {
		text = strings.TrimSpace(fmt.Sprintf("subagent %s failed: %s\n\n%s", fin.Agent, fin.Error, fin.Result))
	}
	return tools.Result{Text: text + "\n\n[" + fin.Summary + "]", IsError: fin.IsError}, nil
}

// RunSubagent runs the profile p on prompt as a child session of a's: it is
// built as `agent --agent NAME` would build it (its own provider, model,
// prompt, MCP servers, tool list and deferral, its own searcher), stored
// linked to a's session, and closed when done. Its events reach emit
// between a subagent_started and a subagent_finished event, which is also
// what it returns; its approvals reach emit as approval_requested events
// naming it, answered through a.Answer. This is where a subagent starts
// and ends; with telemetry on, the child's turn span (invoke_agent NAME)
// nests under the call's. ctx cancels it.
func (a *App) RunSubagent(ctx context.Context, callID string, emit func(agent.Event), p agents.Profile, prompt string) agent.SubagentEvent {
	ev := agent.SubagentEvent{ID: callID, Agent: p.Name, Prompt: prompt}
	child, err := a.openChild(ctx, p, prompt)
	if err != nil {
		ev.IsError, ev.Error, ev.Summary = true, err.Error(), "no tools found or called"
		emit(agent.Event{Type: agent.EventSubagentStarted, Subagent: &ev})
		emit(agent.Event{Type: agent.EventSubagentFinished, Subagent: &ev})
		return ev
	}
	defer child.Close()
	_, model := child.session.Target()
	ev.SessionID, ev.Provider, ev.Model = child.session.ID(), child.Provider(), model
	start := ev
	emit(agent.Event{Type: agent.EventSubagentStarted, Subagent: &start})
	red := child.NewReducer()
	// The child's turn span nests under this run_agent call's.
	a.mu.Lock()
	ctx = a.turn.CallContext(ctx, callID)
	a.mu.Unlock()
	for e := range child.Send(ctx, prompt) {
		red.Add(e)
		switch e.Type {
		case agent.EventApproval:
			// Asked in the parent's stream, naming the child; the
			// answer comes back through a.Answer.
			// Its id is made unique in the parent's stream: two children
			// on fakes or on one provider may number their calls alike.
			t := *e.Tool
			t.Agent, t.ID = p.Name, "subagent:"+callID+":"+e.Tool.ID
			a.mu.Lock()
			if a.kids == nil {
				a.kids = map[string]kidCall{}
			}
			a.kids[t.ID] = kidCall{child, e.Tool.ID}
			a.mu.Unlock()
			emit(agent.Event{Type: agent.EventApproval, Tool: &t})
			continue
		case agent.EventUsage:
			if e.Usage != nil {
				a.addSpend(ev.Provider, model, *e.Usage, false)
			}
		}
		wrapped := e
		emit(agent.Event{Type: agent.EventSubagentEvent, Subagent: &agent.SubagentEvent{ID: callID, Agent: p.Name, SessionID: ev.SessionID, Event: &wrapped}})
	}
	a.mu.Lock()
	for id, c := range a.kids {
		if c.app == child {
			delete(a.kids, id)
		}
	}
	a.mu.Unlock()
	res := red.Result(child)
	u := agent.Usage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens,
		CacheReadTokens: res.Usage.CacheReadInputTokens, CacheWriteTokens: res.Usage.CacheCreationInputTokens}
	ev.Result, ev.Summary, ev.Requests, ev.Usage, ev.CostUSD = res.Result, toolSummary(res), res.NumRequests, &u, res.TotalCostUSD
	if res.IsError {
		ev.IsError, ev.Error = true, res.Error
	}
	emit(agent.Event{Type: agent.EventSubagentFinished, Subagent: &ev})
	return ev
}

// openChild builds the child session of profile p and stores it linked to
// a's session.
func (a *App) openChild(ctx context.Context, p agents.Profile, prompt string) (_ *App, err error) {
	opts := a.opts
	opts.Interactive, opts.Title = false, p.Name+": "+prompt
	_, parentModel := a.session.Target()
	cs, err := a.settings.forSubagent(p, a.Provider(), parentModel, a.opts.Getenv)
	if err != nil {
		return nil, fmt.Errorf("start subagent %s: %w", p.Name, err)
	}
	// The child's turns are traced with the parent's export (telemetry.go).
	c := &App{opts: opts, db: a.db, settings: cs, isSub: true, asker: a.asker, tel: a.tel}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	if err := c.build(ctx); err != nil {
		return nil, fmt.Errorf("start subagent %s: %w", p.Name, err)
	}
	c.inheritPermissions(a)
	if a.db == nil {
		return c, nil // a session without a store (the token bench)
	}
	st := c.session
	pr, model := st.Target()
	meta := store.SessionMeta{Workdir: c.settings.Workdir, Title: opts.Title, Provider: c.label, API: pr.API(), Model: model,
		Settings: c.settings.stored(st.TurnContext().ProviderTools), ParentID: a.session.ID()}
	meta.Settings.Servers = c.keptServers()
	ss, err := a.db.Create(ctx, meta)
	if err != nil {
		return nil, fmt.Errorf("store subagent %s: %w", p.Name, err)
	}
	c.closers = append(c.closers, func() { _ = ss.Close() })
	return c, c.useStore(ss)
}

// forSubagent are the settings a child session of profile p runs with:
// those `agent --agent NAME` would load here (defaults, config files,
// environment, the profile), none of the parent's flags; the files read
// and the trust are the parent's, and so is its --base-url while the
// child talks to the same provider. Its model is the profile's, else
// subagent_model, else the parent's current one (parentProv, parentModel:
// --model and /model included), on the parent's provider unless the
// profile names one.
func (s Settings) forSubagent(p agents.Profile, parentProv, parentModel string, getenv func(string) string) (Settings, error) {
	f := Flags{ConfigPath: s.Flags.ConfigPath, MCPConfig: s.MCPConfig, DBPath: s.DBPath, NoCache: s.NoCache, NoLearn: s.NoLearn,
		NoStream: s.NoStream, Workdir: s.Workdir, Trust: s.Trusted, Changed: map[string]bool{}}
	c, err := Load(f, getenv)
	if err != nil {
		return c, err
	}
	// The profile as the parent read it (a file changed since is not
	// read again mid-conversation: run_agent's definition names it).
	if err := c.applyProfile(p, nil); err != nil {
		return c, err
	}
	if p.Model == "" {
		// The profile's own model first, then subagent_model
		// (CLAUDE_CODE_SUBAGENT_MODEL), then the parent's model, on the
		// parent's provider unless the profile names its own.
		if p.Provider == "" && parentProv != "" {
			c.Provider = parentProv
		}
		switch {
		case c.SubagentModel != "":
			if c.Model, err = c.modelOn(c.Provider, c.SubagentModel, "subagent_model"); err != nil {
				return c, err
			}
		case c.Provider == parentProv && parentModel != "":
			c.Model = parentModel
		}
	}
	if c.Provider == s.Provider && c.BaseURL == "" {
		c.BaseURL = s.BaseURL
	}
	return c, c.Validate()
}

// toolSummary is the one line of what a subagent's turn did with tools.
func toolSummary(r TurnResult) string {
	var found []string
	for _, s := range r.Searches {
		for _, t := range s.Tools {
			if !slices.Contains(found, t) {
				found = append(found, t)
			}
		}
	}
	calls := map[string]int{}
	var called []string
	for _, c := range r.ToolCalls {
		if calls[c.Name] == 0 {
			called = append(called, c.Name)
		}
		calls[c.Name]++
	}
	var parts []string
	if len(r.Searches) > 0 {
		f := "none"
		if len(found) > 0 {
			f = strings.Join(found, ", ")
		}
		parts = append(parts, fmt.Sprintf("%d %s found: %s", len(r.Searches), plural(len(r.Searches), "search", "searches"), f))
	}
	if len(called) > 0 {
		for i, n := range called {
			if calls[n] > 1 {
				called[i] = fmt.Sprintf("%s ×%d", n, calls[n])
			}
		}
		parts = append(parts, "called: "+strings.Join(called, ", "))
	}
	if len(parts) == 0 {
		return "no tools searched or called"
	}
	return strings.Join(parts, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// kidCall is an approval a running subagent asked: the subagent, and the
// id it knows the call by.
type kidCall struct {
	app *App
	id  string
}

// decideChild passes a decision to the subagent that asked for it.
func (a *App) decideChild(id string, d permission.Decision) bool {
	a.mu.Lock()
	c, ok := a.kids[id]
	delete(a.kids, id)
	a.mu.Unlock()
	return ok && c.app.decide(c.id, d)
}
