package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/sanitize"
)

// printError marks a failed turn in print mode: exit code 1 after the output
// has been written.
type printError struct{ err error }

func (e *printError) Error() string { return e.err.Error() }
func (e *printError) Unwrap() error { return e.err }

// PrintResult is the -p --output-format json object.
type PrintResult struct {
	Type      string `json:"type,omitempty"`
	SessionID string `json:"session_id"`
	// Compactions lists the automatic compactions of this run.
	Compactions     []agent.Compaction `json:"compactions,omitempty"`
	Result          string             `json:"result"`
	IsError         bool               `json:"is_error"`
	Error           string             `json:"error,omitempty"`
	NumRequests     int                `json:"num_requests"`
	Provider        string             `json:"provider"`
	Model           string             `json:"model"`
	Usage           PrintUsage         `json:"usage"`
	Searches        []PrintSearch      `json:"searches"`
	ToolCalls       []PrintToolCall    `json:"tool_calls"`
	ServerToolCalls []PrintServerTool  `json:"server_tool_calls"`
	Sources         []agent.Source     `json:"sources"`
	Warnings        []string           `json:"warnings"`
	Discovered      []string           `json:"discovered_tools"`
	ToolsHash       string             `json:"tools_hash,omitempty"`
	// StopReason is why the last request stopped ("max_tokens": the answer
	// was cut at the output limit).
	StopReason string `json:"stop_reason,omitempty"`
}

// PrintUsage mirrors the provider usage fields.
type PrintUsage struct {
	InputTokens              int            `json:"input_tokens"`
	OutputTokens             int            `json:"output_tokens"`
	CacheReadInputTokens     int            `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int            `json:"cache_creation_input_tokens"`
	ServerToolUse            map[string]int `json:"server_tool_use"`
}

// PrintSearch is one tool search of the turn.
type PrintSearch struct {
	Query string   `json:"query"`
	Tools []string `json:"tools"`
	Where string   `json:"where"`
	Error string   `json:"error,omitempty"`
}

// PrintToolCall is one local tool call of the turn.
type PrintToolCall struct {
	Name    string `json:"name"`
	IsError bool   `json:"is_error"`
}

// PrintServerTool is one provider-hosted tool call.
type PrintServerTool struct {
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	IsError bool            `json:"is_error"`
}

// printApprover answers approval requests in print mode: allowed only with --yes.
type printApprover struct {
	yes    bool
	stderr io.Writer
}

func (a printApprover) Approve(_ context.Context, call agent.ToolEvent) (bool, error) {
	if !a.yes {
		fmt.Fprintf(a.stderr, "agent: denied %s: it needs approval; rerun with --yes to allow it\n", call.Name)
	}
	return a.yes, nil
}

// stdinGrace is how long -p with a prompt waits for piped stdin to start.
const stdinGrace = 2 * time.Second

// readStdin reads stdin when it is not a terminal. With a prompt given, a
// pipe that sends nothing (and does not close) within stdinGrace is left
// alone: it is an inherited descriptor nobody writes to (a CI runner, an
// editor), not input, and waiting for its end would hang the run. Files
// are read whole; without a prompt, stdin is the prompt and is waited for.
func readStdin(f *os.File, havePrompt bool) ([]byte, error) {
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice != 0 {
		return nil, nil
	}
	if !havePrompt || st.Mode().IsRegular() {
		return io.ReadAll(f)
	}
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan chunk, 1)
	go func() {
		buf := make([]byte, 64<<10)
		n, err := f.Read(buf)
		first <- chunk{buf[:n], err}
	}()
	var c chunk
	select {
	case c = <-first:
	case <-time.After(stdinGrace):
		return nil, nil
	}
	if c.err != nil {
		if errors.Is(c.err, io.EOF) {
			return c.b, nil
		}
		return nil, c.err
	}
	rest, err := io.ReadAll(f)
	return append(c.b, rest...), err
}

func readPrompt(g *Globals) (string, error) {
	prompt := g.Prompt
	if f, ok := g.Stdin.(*os.File); ok {
		b, err := readStdin(f, strings.TrimSpace(prompt) != "")
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			if prompt != "" {
				prompt += "\n\n"
			}
			prompt += s
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return "", usagef("empty prompt: give one with -p \"...\" or pipe it on stdin")
	}
	return prompt, nil
}

func runPrint(ctx context.Context, g *Globals) error {
	prompt, err := readPrompt(g)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	rt, err := buildRuntime(ctx, g, printApprover{yes: g.Yes, stderr: g.Stderr})
	if err != nil {
		return err
	}
	defer rt.Close()
	res := PrintResult{SessionID: rt.Session.ID, Provider: rt.Session.Provider.Name(), Model: rt.Session.Model,
		Searches: []PrintSearch{}, ToolCalls: []PrintToolCall{}, ServerToolCalls: []PrintServerTool{}, Sources: []agent.Source{},
		Warnings: []string{}, Usage: PrintUsage{ServerToolUse: map[string]int{}}}
	res.Warnings = append(res.Warnings, rt.Warnings...)
	for _, w := range rt.Warnings {
		fmt.Fprintln(g.Stderr, "agent: warning: "+sanitize.Line(w))
	}
	// Text mode prints the model's words, which may echo a tool result:
	// escape sequences in them never reach the terminal.
	text := sanitize.NewWriter(g.Stdout)
	defer text.Flush()
	enc := json.NewEncoder(g.Stdout)
	if g.OutputFormat == "stream-json" {
		_ = enc.Encode(map[string]any{"type": "init", "session_id": res.SessionID, "provider": res.Provider, "model": res.Model})
	}
	searchIdx := map[string]int{}
	seenSource := map[string]bool{}
	var lastText, allText strings.Builder
	breakNext := false
	var turnErr string
	for ev := range rt.Session.Send(ctx, prompt) {
		if g.OutputFormat == "stream-json" {
			_ = enc.Encode(ev)
		}
		switch ev.Type {
		case agent.EventTextDelta:
			if breakNext {
				// Each assistant message is its own paragraph; without
				// this, "…for that." and "The search found…" run together.
				breakNext = false
				sep := "\n\n"
				if strings.HasSuffix(allText.String(), "\n") {
					sep = "\n"
				}
				if g.OutputFormat == "text" {
					fmt.Fprint(text, sep)
				}
				allText.WriteString(sep)
			}
			if g.OutputFormat == "text" {
				fmt.Fprint(text, ev.Text)
			}
			lastText.WriteString(ev.Text)
			allText.WriteString(ev.Text)
		case agent.EventSearchStarted:
			searchIdx[ev.Search.ID] = len(res.Searches)
			res.Searches = append(res.Searches, PrintSearch{Query: ev.Search.Query, Where: ev.Search.Where, Tools: []string{}})
		case agent.EventSearchFinished:
			i, ok := searchIdx[ev.Search.ID]
			if !ok {
				// A search finished in a later response than it began (split pair).
				i = len(res.Searches)
				res.Searches = append(res.Searches, PrintSearch{Query: ev.Search.Query, Where: ev.Search.Where})
				searchIdx[ev.Search.ID] = i
			}
			if ev.Search.Tools != nil {
				res.Searches[i].Tools = ev.Search.Tools
			}
			res.Searches[i].Error = ev.Search.Error
		case agent.EventToolStarted:
			lastText.Reset()
		case agent.EventToolFinished:
			res.ToolCalls = append(res.ToolCalls, PrintToolCall{Name: ev.Tool.Name, IsError: ev.Tool.IsError})
		case agent.EventMessage:
			// Server tool calls are taken from completed assistant messages:
			// streams announce them before their results arrive.
			if m := ev.Message; m != nil && m.Role == agent.RoleAssistant {
				breakNext = allText.Len() > 0
				for _, p := range m.Parts {
					st := p.ServerTool
					if p.Type != agent.PartServerTool || st == nil {
						continue
					}
					if !st.Pending && st.Name != "citations" {
						res.ServerToolCalls = append(res.ServerToolCalls, PrintServerTool{Name: st.Name, Input: st.Input, IsError: st.IsError})
					}
					for _, s := range st.Sources {
						if !seenSource[s.URL] {
							seenSource[s.URL] = true
							res.Sources = append(res.Sources, s)
						}
					}
				}
			}
		case agent.EventUsage:
			res.NumRequests++
			res.StopReason = ev.StopReason
			u := ev.Usage
			res.Usage.InputTokens += u.InputTokens
			res.Usage.OutputTokens += u.OutputTokens
			res.Usage.CacheReadInputTokens += u.CacheReadTokens
			res.Usage.CacheCreationInputTokens += u.CacheWriteTokens
			for k, v := range u.ServerToolUses {
				res.Usage.ServerToolUse[k] += v
			}
		case agent.EventWarning:
			fmt.Fprintln(g.Stderr, "agent: "+sanitize.Line(ev.Text))
			res.Warnings = append(res.Warnings, ev.Text)
		case agent.EventCompacted:
			if c := ev.Compaction; c != nil {
				fmt.Fprintln(g.Stderr, "agent: compacted: "+compactionLine(*c))
				res.Compactions = append(res.Compactions, *c)
			}
		case agent.EventError:
			turnErr = ev.Err
		}
	}
	res.Result = strings.TrimSpace(lastText.String())
	if res.Result == "" {
		res.Result = strings.TrimSpace(allText.String())
	}
	res.Discovered = rt.Session.Discovered()
	if res.Discovered == nil {
		res.Discovered = []string{}
	}
	res.ToolsHash = rt.LastToolsHash()
	if turnErr != "" {
		turnErr = withConnHint(withSearchHint(turnErr, rt.Session))
		res.IsError = true
		res.Error = turnErr
		if dropFailedSession(rt, g) {
			res.SessionID = ""
		}
	}
	switch g.OutputFormat {
	case "text":
		if !strings.HasSuffix(allText.String(), "\n") && allText.Len() > 0 {
			fmt.Fprintln(text)
		}
	case "json":
		e := json.NewEncoder(g.Stdout)
		e.SetIndent("", "  ")
		_ = e.Encode(res)
	case "stream-json":
		res.Type = "result"
		_ = enc.Encode(res)
	}
	if turnErr != "" {
		return &printError{fmt.Errorf("%s", turnErr)}
	}
	return nil
}

// withSearchHint points at --search client when a provider refused its own
// tool search (a model the table thinks supports it, but does not).
func withSearchHint(msg string, s *agent.Session) string {
	if s.Search != agent.SearchNative || strings.Contains(msg, "--search client") {
		return msg
	}
	low := strings.ToLower(msg)
	for _, k := range []string{"tool_search", "tool search", "defer_loading"} {
		if strings.Contains(low, k) {
			return msg + " (this model may not support native tool search: try --search client)"
		}
	}
	return msg
}

// withConnHint says what to do when nothing answers at the provider's
// address (a local server that is not running, a mistyped --base-url).
func withConnHint(msg string) string {
	if strings.Contains(msg, "connection refused") || strings.Contains(msg, "no such host") {
		return msg + " (nothing answers there: start the server, or point --base-url at it)"
	}
	return msg
}

// dropFailedSession deletes the session a failed -p run created when no
// answer came (the provider unreachable, say): it would hold the prompt
// alone, and --continue would pick it. It reports whether it did.
func dropFailedSession(rt *runtime, g *Globals) bool {
	if g.Resume != "" || g.Continue || rt.Store == nil {
		return false
	}
	for _, m := range rt.Session.Messages() {
		if m.Role == agent.RoleAssistant {
			return false
		}
	}
	id := rt.Store.ID()
	_ = rt.Store.Close()
	_, err := rt.DB.Delete(context.Background(), id)
	return err == nil
}
