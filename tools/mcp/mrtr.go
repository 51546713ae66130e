package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// Multi round-trip requests (protocol 2026-07-28, SEP-2322). A server of
// that revision sends the client no requests of its own: a tools/call,
// prompts/get or resources/read it cannot finish without the user (an
// elicitation), the model (a sampling) or the roots is answered with
// resultType "input_required", carrying those requests in inputRequests
// and, maybe, an opaque requestState. The client answers each through
// the handlers it has for the older server-initiated requests (the same
// dialogs and -p events) and sends the request again, with a new JSON-RPC
// id, the answers in inputResponses and requestState echoed byte for byte
// (none when the server sent none). A result without resultType is
// complete.
//
// tools/call is the agent's own request (progress.go), so its rounds are
// run here; prompts/get and resources/read go through mcp-go's client,
// whose own loop calls the same handlers (inputHost, given to the client
// in clientOptions).

// maxInputRounds bounds the rounds of one request: a server that keeps
// asking (a bug, or a loop between two of its own states) must end the
// call, not hold it until its timeout with a dialog after another. mcp-go
// has the same default.
const maxInputRounds = 10

// InputRoundsError ends a request whose server still asked for input after
// maxInputRounds rounds.
type InputRoundsError struct {
	Method string
	Rounds int
}

func (e *InputRoundsError) Error() string {
	return fmt.Sprintf("it still asked for input after %d rounds of %s, so the agent stopped answering", e.Rounds, e.Method)
}

// InputRequestError is an input request the agent could not answer: the
// request is not retried and the call fails with it.
type InputRequestError struct {
	Key, Method string
	Err         error
}

func (e *InputRequestError) Error() string {
	return fmt.Sprintf("it asked for input (%s %q) the agent could not give: %v; the request was not sent again", e.Method, e.Key, e.Err)
}

func (e *InputRequestError) Unwrap() error { return e.Err }

// errNoInputAsked is an input_required result that carries neither input
// requests nor a state: sending the request again unchanged would only
// get the same answer.
var errNoInputAsked = errors.New("it answered input_required with neither inputRequests nor requestState")

// inputAskError carries an input_required answer from send up to call,
// which answers it between two rounds (each round has the tool timeout;
// the user's answers do not count against it).
type inputAskError struct{ ask inputAsk }

func (e *inputAskError) Error() string { return "the server asks for input before it answers" }

// nextRound answers a round's input requests: more are the next round's
// params, or nil when the call ends here with res (or err, the turn's
// cancellation).
func (c *conn) nextRound(ctx context.Context, tool string, round int, ask inputAsk) (more map[string]any, res tools.Result, err error) {
	if round >= maxInputRounds {
		return nil, errResult(fmt.Sprintf("MCP server %s could not run %s: %v", c.cfg.Name, tool,
			&InputRoundsError{Method: "tools/call " + tool, Rounds: round})), nil
	}
	c.m.log.Info("mcp: the server asks for input", "server", c.cfg.Name, "tool", tool, "round", round,
		"requests", inputRoundsText(ask.requests), "state", len(ask.state) > 0)
	answers, err := c.answerInputs(ctx, ask.requests)
	if err != nil {
		if ctx.Err() != nil {
			return nil, tools.Result{}, ctx.Err()
		}
		return nil, errResult(fmt.Sprintf("MCP server %s could not run %s: %v", c.cfg.Name, tool, err)), nil
	}
	return ask.retryParams(answers), tools.Result{}, nil
}

// inputAsk is an input_required result's content.
type inputAsk struct {
	requests map[string]json.RawMessage
	// state is requestState as the server wrote it; nil when absent.
	state json.RawMessage
}

// readInputAsk reads result as input_required; ok=false for any other
// result (complete, or without resultType, which is complete too).
func readInputAsk(result json.RawMessage) (inputAsk, bool, error) {
	if !inputRequired(result) {
		return inputAsk{}, false, nil
	}
	var r struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  json.RawMessage            `json:"requestState"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return inputAsk{}, true, fmt.Errorf("unreadable input_required result: %w", err)
	}
	a := inputAsk{requests: r.InputRequests, state: r.RequestState}
	if len(a.state) == 0 && len(a.requests) == 0 {
		return a, true, errNoInputAsked
	}
	return a, true, nil
}

// retryParams are the fields the next round adds to the request's params:
// the answers, and the state echoed exactly (json.RawMessage is written as
// it came). An ask without requests (the server shedding load: "ask me
// again") has no inputResponses.
func (a inputAsk) retryParams(answers map[string]any) map[string]any {
	out := map[string]any{}
	if len(answers) > 0 {
		out["inputResponses"] = answers
	}
	if len(a.state) > 0 {
		out["requestState"] = a.state
	}
	return out
}

// answerInputs answers each input request, one after the other, in the
// order of their keys (one dialog at a time; a stable order for the user).
func (c *conn) answerInputs(ctx context.Context, reqs map[string]json.RawMessage) (map[string]any, error) {
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(map[string]any, len(reqs))
	for _, k := range keys {
		var r mcpgo.InputRequest
		if err := json.Unmarshal(reqs[k], &r); err != nil {
			return nil, &InputRequestError{Key: k, Method: requestMethod(reqs[k]), Err: err}
		}
		res, err := c.answerInput(ctx, r)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &InputRequestError{Key: k, Method: string(r.Method), Err: err}
		}
		out[k] = res
	}
	return out, nil
}

// requestMethod is the method an input request names, for its error.
func requestMethod(raw json.RawMessage) string {
	var r struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.Method
}

func (c *conn) answerInput(ctx context.Context, r mcpgo.InputRequest) (any, error) {
	h := inputHost{c}
	switch {
	case r.Elicitation != nil:
		return h.Elicit(ctx, mcpgo.ElicitationRequest{Params: *r.Elicitation})
	case r.Sampling != nil:
		return h.CreateMessage(ctx, mcpgo.CreateMessageRequest{CreateMessageParams: *r.Sampling})
	case r.Roots != nil:
		return h.ListRoots(ctx, mcpgo.ListRootsRequest{})
	}
	return nil, fmt.Errorf("unsupported input request method %q", r.Method)
}

// inputHost answers input requests: the handlers of the server-initiated
// requests of earlier revisions, with what 2026-07-28 changed. It is also
// mcp-go's handler for the rounds of prompts/get and resources/read.
type inputHost struct{ c *conn }

// Elicit asks the user. A URL elicitation of 2026-07-28 has no
// elicitationId and no completion notification: the server learns the
// user is done from the retry itself, so the user is asked as for a
// -32042 call (urlelicit.go), the dialog saying the request is sent again
// when they are done.
func (h inputHost) Elicit(ctx context.Context, req mcpgo.ElicitationRequest) (*mcpgo.ElicitationResult, error) {
	p := req.Params
	if p.Mode != mcpgo.ElicitationModeURL {
		if p.RequestedSchema == nil {
			return nil, errors.New("a form elicitation without requestedSchema")
		}
		return host(h).Elicit(ctx, req)
	}
	if err := checkElicitURL(p.URL); err != nil {
		return nil, err
	}
	e := Elicitation{Server: h.c.cfg.Name, Mode: p.Mode, Message: p.Message, URL: p.URL, ID: p.ElicitationID, Retry: true}
	ans := ElicitAnswer{Action: ActionDecline}
	if hst := h.c.m.opts.Host; hst != nil {
		var err error
		if ans, err = hst.Elicit(ctx, e); err != nil {
			return nil, err
		}
	}
	switch ans.Action {
	case ActionAccept, ActionDecline, ActionCancel:
	default:
		return nil, fmt.Errorf("elicitation answer %q: use accept, decline or cancel", ans.Action)
	}
	h.c.m.log.Info("mcp elicitation answered", "server", h.c.cfg.Name, "mode", e.Mode, "action", ans.Action, "round trip", true)
	res := &mcpgo.ElicitationResult{}
	res.Action = mcpgo.ElicitationResponseAction(ans.Action)
	return res, nil
}

// CreateMessage samples the model as a sampling/createMessage request
// would (requests.go's serve: its content read as the protocol's blocks).
// A refusal has no place in inputResponses: the request fails with it.
func (h inputHost) CreateMessage(ctx context.Context, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	raw, err := json.Marshal(req.CreateMessageParams)
	if err != nil {
		return nil, err
	}
	res, err := h.c.serve(ctx, string(mcpgo.MethodSamplingCreateMessage), raw)
	if err != nil {
		var re *rpcError
		if errors.As(err, &re) && re.code == codeUserRejected {
			return nil, errors.New("the user declined to let the server sample the model")
		}
		return nil, err
	}
	out, ok := res.(*mcpgo.CreateMessageResult)
	if !ok {
		return nil, fmt.Errorf("sampling answered %T", res)
	}
	return out, nil
}

// ListRoots answers with the working directory, as roots/list does.
func (h inputHost) ListRoots(ctx context.Context, req mcpgo.ListRootsRequest) (*mcpgo.ListRootsResult, error) {
	return host(h).ListRoots(ctx, req)
}

// inputOptions give mcp-go's client the handlers of its own round trips
// (prompts/get, resources/read) and the agent's bound on them.
func (c *conn) inputOptions() []client.ClientOption {
	h := inputHost{c}
	return []client.ClientOption{client.WithElicitationHandler(h), client.WithSamplingHandler(h),
		client.WithRootsHandler(h), client.WithMaxInputRoundTrips(maxInputRounds)}
}

// modernCapabilities are the client capabilities the agent's own requests
// of 2026-07-28 declare in _meta: what an input request may ask for.
func modernCapabilities() mcpgo.ClientCapabilities {
	return mcpgo.ClientCapabilities{
		Roots: &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{},
		Sampling:    &mcpgo.SamplingCapability{},
		Elicitation: &mcpgo.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
	}
}

// inputRoundsText says in a few words which round a call is in, for the
// log.
func inputRoundsText(reqs map[string]json.RawMessage) string {
	var ms []string
	for k, r := range reqs {
		ms = append(ms, k+"="+requestMethod(r))
	}
	slices.Sort(ms)
	return strings.Join(ms, ", ")
}
