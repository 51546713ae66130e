// Package openairesponses is the adapter for the OpenAI Responses API
// (POST /v1/responses), also served by Azure OpenAI.
//
// It replays history statelessly: every request carries the full input items
// (never previous_response_id), so store:false works and a conversation can be
// resumed or moved between providers. The assistant's own output items are
// kept verbatim in a Raw part and sent back as they came, adjusted only where
// the resolved search mode of the request requires it (see render.go).
package openairesponses

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/internal/httpx"
	"github.com/agent-dev/agent/providers/internal/noimages"
	"github.com/agent-dev/agent/providers/internal/toolcache"
	"github.com/agent-dev/agent/providers/provider"
)

// DefaultBaseURL is the public OpenAI endpoint, as the official SDKs use it.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configure a Provider.
type Options struct {
	APIKey string
	// BaseURL defaults to DefaultBaseURL; "/responses" is appended.
	BaseURL    string
	HTTPClient *http.Client
	// NativeModels overrides the capability table: a key is an exact model id
	// or a prefix ending in "*"; the value says whether that model supports
	// tool_search (hosted and client-executed).
	NativeModels map[string]bool
	// Models is the capability table (nil: the built-in one); LookupAs is
	// the provider name entries are looked up under ("openai" when empty;
	// Azure passes "azure" so entries scoped to it apply).
	Models   *models.Table
	LookupAs string
	// Store asks OpenAI to keep the responses. Off by default: replay is
	// stateless, so nothing needs to be stored server side.
	Store bool
	// FirstByteTimeout and StreamIdleTimeout bound the waits of a request
	// (config first_byte_timeout and stream_idle_timeout; zero: defaults).
	FirstByteTimeout, StreamIdleTimeout time.Duration
}

// Provider implements agent.Provider for the Responses API.
type Provider struct {
	opts    Options
	http    httpx.Client
	table   *models.Table
	noticed sync.Map // one-time notices given
	// tools is the last plan and tools array (toolscache.go).
	tools toolcache.Cache[plannedTools]
	// origin is the fingerprint of the organization (or endpoint) the last
	// answer came from (origin.go).
	originMu sync.Mutex
	origin   string
	strict   bool
}

var _ agent.Provider = (*Provider)(nil)

// New returns a Provider.
func New(o Options) *Provider {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.LookupAs == "" {
		o.LookupAs = "openai"
	}
	table, err := o.Models.WithNativeSearch(o.NativeModels)
	if err != nil {
		table = o.Models
	}
	return &Provider{opts: o, table: table, http: httpx.Client{HTTP: o.HTTPClient, Provider: "openai",
		Timeouts: httpx.Timeouts{FirstByte: o.FirstByteTimeout, StreamIdle: o.StreamIdleTimeout}}}
}

// Name is the provider tag of raw parts.
func (p *Provider) Name() string { return "openai" }

// API is the API tag of raw parts.
func (p *Provider) API() string { return "responses" }

// NativeSearch reports whether model supports tool_search.
func (p *Provider) NativeSearch(model string) bool {
	return p.caps(model).NativeSearch
}

// caps reads model's capabilities from the table.
func (p *Provider) caps(model string) models.Capabilities {
	return p.table.Lookup(p.opts.LookupAs, model)
}

// Render returns the request body Send would post, for golden tests and
// debugging, with the resolved search mode. It performs no I/O.
func (p *Provider) Render(req *agent.Request) ([]byte, agent.SearchMode, error) {
	b, err := p.render(req)
	if err != nil {
		return nil, "", err
	}
	return toolcache.Join(b.parts), b.mode, nil
}

// built is a rendered request and what Send reports of it.
type built struct {
	// parts are the body as sent (the tools array between the rest);
	// Render and build join them.
	parts     [][]byte
	tools     []byte
	toolsHash string
	mode      agent.SearchMode
	maxTokens int
	notice    string
	// replayed counts the reasoning items of earlier answers in the input.
	replayed int
}

// build renders the request body and the tools array exactly as Send
// would send them.
func (p *Provider) build(req *agent.Request) (body, tools []byte, mode agent.SearchMode, err error) {
	b, err := p.render(req)
	return toolcache.Join(b.parts), b.tools, b.mode, err
}

// render is build with what Send reports besides.
func (p *Provider) render(req *agent.Request) (built, error) {
	return p.renderFor(req, p.filter(req.Messages))
}

// renderFor is render replaying the reasoning items f keeps.
func (p *Provider) renderFor(req *agent.Request, f replayFilter) (built, error) {
	b := built{mode: agent.ResolveSearch(p, req)}
	caps := p.caps(req.Model)
	req = noimages.Strip(req, caps, provider.ImageRules{})
	pt, err := p.plannedTools(req, b.mode)
	if err != nil {
		return b, err
	}
	plan, tools := pt.plan, pt.tools
	b.tools, b.toolsHash = tools, pt.hash
	input, replayed, err := renderInput(req, plan, f)
	if err != nil {
		return b, err
	}
	b.replayed = replayed
	b.maxTokens = req.MaxTokens
	if b.maxTokens <= 0 {
		b.maxTokens = caps.DefaultMaxTokens
	}
	if req.MaxOutput && caps.MaxOutput > b.maxTokens {
		b.maxTokens = caps.MaxOutput
	}
	rb := requestBody{
		Model:           req.Model,
		Instructions:    req.System,
		Input:           input,
		MaxOutputTokens: b.maxTokens,
		Stream:          !req.NoStream,
		Store:           p.opts.Store,
	}
	if string(tools) != "[]" {
		// The array goes in as rendered: the encoder would validate and
		// copy it again on every request.
		rb.Tools = toolcache.Placeholder
	}
	if req.Effort != "" {
		if e, ok := caps.WireEffort(req.Effort); ok && caps.Reasoning == models.ReasoningEffort {
			// summary "auto": the reasoning summaries stream as
			// reasoning events (shown dimmed, and in stream-json).
			rb.Reasoning = &reasoningParam{Effort: e, Summary: "auto"}
			b.notice = caps.EffortNote(req.Model, req.Effort)
		} else {
			b.notice = fmt.Sprintf("--effort %s ignored: %s has no reasoning effort", req.Effort, req.Model)
		}
	}
	if !p.opts.Store && plan.reasoning {
		// Without storage the reasoning items are only replayable with their
		// encrypted content, so ask for it, where the model accepts it.
		rb.Include = []string{"reasoning.encrypted_content"}
	}
	body, err := json.Marshal(rb)
	b.parts = [][]byte{body}
	if err == nil && rb.Tools != nil {
		b.parts, err = toolcache.Parts(body, tools)
	}
	if err != nil {
		return b, fmt.Errorf("encode responses request: %w", err)
	}
	return b, nil
}

type reasoningParam struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

type requestBody struct {
	Model           string            `json:"model"`
	Instructions    string            `json:"instructions,omitempty"`
	Input           []json.RawMessage `json:"input"`
	Tools           json.RawMessage   `json:"tools,omitempty"`
	MaxOutputTokens int               `json:"max_output_tokens,omitempty"`
	Reasoning       *reasoningParam   `json:"reasoning,omitempty"`
	Stream          bool              `json:"stream"`
	Store           bool              `json:"store"`
	Include         []string          `json:"include,omitempty"`
}

// Send performs one request.
func (p *Provider) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	if emit == nil {
		emit = func(agent.StreamEvent) {}
	}
	if err := ValidateProviderTools(req.ProviderTools); err != nil {
		return nil, err
	}
	b, err := p.render(req)
	if err != nil {
		return nil, err
	}
	if b.notice != "" {
		if _, seen := p.noticed.LoadOrStore(b.notice, true); !seen {
			emit(agent.StreamEvent{Type: agent.EventWarning, Text: b.notice})
		}
	}
	h := http.Header{}
	if p.opts.APIKey != "" {
		h.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	resp, refused, err := p.attempt(ctx, req, b, h, emit)
	// Reasoning from another organization (origin.go), refused with a 400
	// or in a stream before anything of the answer was shown: once more
	// without the items not proven to be this one's, or without any. A
	// refusal after output streamed is not sent again (it would be shown
	// twice); the next request leaves the items out.
	if refused == nil || b.replayed == 0 {
		return resp, err
	}
	p.setOrigin(refused.origin, true)
	if refused.shown {
		return resp, err
	}
	retry, rerr := p.renderFor(req, p.filter(req.Messages))
	if rerr == nil && retry.replayed == b.replayed {
		retry, rerr = p.renderFor(req, replayFilter{strict: true})
	}
	if rerr != nil {
		return resp, err
	}
	if _, seen := p.noticed.LoadOrStore(reasoningDropped, true); !seen {
		emit(agent.StreamEvent{Type: agent.EventWarning, Text: reasoningDropped})
	}
	resp, _, err = p.attempt(ctx, req, retry, h, emit)
	return resp, err
}

// refusal is an invalid_encrypted_content answer: its origin, and whether
// any of the answer reached emit before it.
type refusal struct {
	origin string
	shown  bool
}

// attempt posts b and reads the answer, returning what Send returns and,
// when the API refused the request's encrypted reasoning (the error's
// code, from a 400 or from the stream's failure), the refusal.
func (p *Provider) attempt(ctx context.Context, req *agent.Request, b built, h http.Header, emit func(agent.StreamEvent)) (*agent.Response, *refusal, error) {
	hresp, err := p.http.PostParts(ctx, p.opts.BaseURL+"/responses", b.parts, !req.NoStream, h)
	if err != nil {
		return nil, nil, err
	}
	origin := originOf(hresp.Header, p.opts.BaseURL)
	if hresp.StatusCode/100 != 2 {
		apiErr, code := apiError(hresp)
		hresp.Body.Close()
		if code == codeInvalidEncrypted {
			return nil, &refusal{origin: origin}, apiErr
		}
		return nil, nil, apiErr
	}
	defer hresp.Body.Close()
	p.setOrigin(origin, false)
	// The same test as plan's, without grouping the catalog again.
	fnSearch := b.mode == agent.SearchClient && !p.caps(req.Model).DeferLoading
	pc := parseContext{fnSearch: fnSearch, requestID: hresp.Header.Get("x-request-id"), origin: origin}
	shown := false
	seen := func(e agent.StreamEvent) {
		shown = true
		emit(e)
	}
	var resp *agent.Response
	if req.NoStream {
		resp, err = parseJSON(hresp.Body, pc, seen)
	} else {
		resp, err = parseStream(ctx, hresp.Body, pc, seen)
	}
	if resp != nil {
		resp.ToolsHash = b.toolsHash
		resp.Resolved = b.mode
		resp.OutputLimit, resp.OutputMax = b.maxTokens, p.caps(req.Model).MaxOutput
	}
	// failedError keeps a failed response's error code as the APIError's
	// Type.
	var ae *agent.APIError
	if errors.As(err, &ae) && ae.Type == codeInvalidEncrypted {
		return resp, &refusal{origin: origin, shown: shown}, err
	}
	return resp, nil, err
}

// apiError turns a non-2xx answer into *agent.APIError, with the
// error's code (invalid_encrypted_content, ...): the kind Send acts on.
func apiError(r *http.Response) (*agent.APIError, string) {
	b := httpx.ReadErrorBody(r)
	e := &agent.APIError{
		Provider:   "openai",
		Status:     r.StatusCode,
		RequestID:  r.Header.Get("x-request-id"),
		RetryAfter: httpx.RetryAfter(r.Header),
	}
	var env struct {
		Error *struct {
			Message string          `json:"message"`
			Type    string          `json:"type"`
			Param   json.RawMessage `json:"param"`
			Code    json.RawMessage `json:"code"`
		} `json:"error"`
	}
	code := ""
	if json.Unmarshal(b, &env) == nil && env.Error != nil {
		code = jsonString(env.Error.Code)
		e.Type = env.Error.Type
		e.Message = env.Error.Message
		if param := jsonString(env.Error.Param); param != "" {
			e.Message += " (param: " + param + ")"
		}
		if e.Type == "" {
			e.Type = jsonString(env.Error.Code)
		}
	} else {
		e.Message = httpx.Snippet(b)
	}
	if e.Type == "invalid_request_error" && strings.Contains(e.Message, "tool_search") {
		e.Message += " — this model may not support tool search; try --search client"
	}
	return e, code
}

func jsonString(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return ""
}
