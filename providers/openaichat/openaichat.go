// Package openaichat is the adapter for the OpenAI Chat Completions API as
// spoken by OpenAI and the OpenAI-compatible servers people run (Ollama,
// llama.cpp, vLLM, LM Studio) or rent (OpenRouter, Groq, DeepSeek, Mistral,
// Gemini).
//
// The API has no tool search of its own, so deferred tools are reached
// through two fixed functions, tool_search and tool_call, that the agent
// serves itself. They are always the same two definitions, so the tools
// array never changes during a conversation and prefix caches keep hitting.
package openaichat

import (
	"bytes"
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
)

// ProviderName and APIName tag the raw parts this adapter produces. They are
// the same for every server: the wire format is what a raw part records.
const (
	ProviderName = "openai-chat"
	APIName      = "chat.completions"
)

// Options configure one server.
type Options struct {
	// Name labels the server in errors and logs ("ollama"); defaults to
	// "openai-chat".
	Name    string
	APIKey  string
	BaseURL string
	// HTTPClient defaults to a client without a timeout: streams are long,
	// and the caller's context bounds them.
	HTTPClient   *http.Client
	ExtraHeaders map[string]string
	// MaxTokensField names the output limit field; "max_tokens" (what every
	// compatible server reads) unless set, e.g. to "max_completion_tokens".
	MaxTokensField string
	// DropReasoning, ShortCallIDs, NoStreamOptions and ReasoningObject:
	// see Preset.
	DropReasoning   bool
	ShortCallIDs    bool
	NoStreamOptions bool
	ReasoningObject bool
	// Models is the capability table (nil: the built-in one), looked up
	// under Name: output limits, reasoning effort, reasoning_content.
	Models *models.Table
	// FirstByteTimeout and StreamIdleTimeout bound the waits of a request
	// (config first_byte_timeout and stream_idle_timeout; zero: defaults).
	FirstByteTimeout, StreamIdleTimeout time.Duration
	// MaxTools is the most entries the server takes in a request's tools
	// array (0: none known); see Preset.MaxTools.
	MaxTools int
}

// Provider implements agent.Provider for one Chat Completions server.
type Provider struct {
	opts    Options
	http    httpx.Client
	url     string
	noticed sync.Map // one-time notices given
}

// caps reads model's capabilities from the table.
func (p *Provider) caps(model string) models.Capabilities {
	return p.opts.Models.Lookup(p.opts.Name, model)
}

var _ agent.Provider = (*Provider)(nil)

// New returns a provider for o. BaseURL defaults to OpenAI's.
func New(o Options) *Provider {
	if o.Name == "" {
		o.Name = ProviderName
	}
	if o.BaseURL == "" {
		o.BaseURL = Presets["openai"].BaseURL
	}
	if o.MaxTokensField == "" {
		o.MaxTokensField = "max_tokens"
	}
	return &Provider{opts: o, url: strings.TrimRight(o.BaseURL, "/") + "/chat/completions",
		http: httpx.Client{HTTP: o.HTTPClient, Provider: o.Name,
			Timeouts: httpx.Timeouts{FirstByte: o.FirstByteTimeout, StreamIdle: o.StreamIdleTimeout}}}
}

// Name is the raw-part tag, "openai-chat", whatever the server.
func (p *Provider) Name() string { return ProviderName }

// API is "chat.completions".
func (p *Provider) API() string { return APIName }

// NativeSearch is always false: Chat Completions has no tool search, so the
// agent's own engine serves every model through tool_search / tool_call.
func (p *Provider) NativeSearch(string) bool { return false }

// Render returns the request body Send would post, for golden tests and
// debugging, with the resolved search mode. It performs no I/O.
func (p *Provider) Render(req *agent.Request) ([]byte, agent.SearchMode, error) {
	r, err := p.render(req)
	if err != nil {
		return nil, "", err
	}
	return r.body, r.mode, nil
}

// Send performs one request and parses the answer.
func (p *Provider) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	if emit == nil {
		emit = func(agent.StreamEvent) {}
	}
	r, err := p.render(req)
	if err != nil {
		return nil, fmt.Errorf("%s: render request: %w", p.opts.Name, err)
	}
	if r.notice != "" {
		if _, seen := p.noticed.LoadOrStore(r.notice, true); !seen {
			emit(agent.StreamEvent{Type: agent.EventWarning, Text: r.notice})
		}
	}
	h := http.Header{}
	if p.opts.APIKey != "" {
		h.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	for k, v := range p.opts.ExtraHeaders {
		h.Set(k, v)
	}
	resp, err := p.http.Post(ctx, p.url, r.body, !req.NoStream, h)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, p.apiError(resp)
	}
	var out *agent.Response
	if req.NoStream {
		out, err = p.parseJSON(resp.Body, r)
	} else {
		out, err = p.parseStream(resp.Body, r, emit)
	}
	if out != nil {
		out.ToolsHash = r.toolsHash
		out.Resolved = r.mode
	}
	return out, err
}

// apiError turns a non-2xx answer into an *agent.APIError. Servers disagree
// on the error shape: OpenAI's {"error":{...}}, Ollama's {"error":"..."},
// Mistral's top-level {"message":...}, Gemini's [{"error":{...}}].
func (p *Provider) apiError(resp *http.Response) error {
	body := httpx.ReadErrorBody(resp)
	e := &agent.APIError{
		Provider:   p.opts.Name,
		Status:     resp.StatusCode,
		RequestID:  resp.Header.Get("x-request-id"),
		RetryAfter: httpx.RetryAfter(resp.Header),
	}
	e.Type, e.Message = parseErrorBody(body)
	if e.Message == "" {
		e.Message = httpx.Snippet(body)
	}
	if tooManyTools(body) {
		e.Message += " — defer some servers' tools (--defer, or \"defer\": true in the server's config) so search finds them instead"
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

var _ agent.ToolLimiter = (*Provider)(nil)

// ToolLimit counts the tools array's entries as render writes them: the
// active tools (search off: the session made every tool active), the raw
// provider tools, and tool_search and tool_call when searching on the
// client.
func (p *Provider) ToolLimit(req *agent.Request) (n, max int) {
	n = len(req.Tools)
	for _, pt := range req.ProviderTools {
		if len(pt.Raw) > 0 {
			n++
		}
	}
	if agent.ResolveSearch(p, req) == agent.SearchClient {
		n += 2
	}
	return n, p.opts.MaxTools
}

// tooManyTools reports OpenAI's answer to a tools array over its limit of
// 128 (code array_above_max_length on param tools), which every tool a
// session offers eagerly counts against.
func tooManyTools(body []byte) bool {
	var top struct {
		Error struct {
			Code  string `json:"code"`
			Param string `json:"param"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &top) == nil && top.Error.Code == "array_above_max_length" && top.Error.Param == "tools"
}

// parseErrorBody extracts the type and message from any known error shape.
func parseErrorBody(body []byte) (typ, msg string) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) == nil && len(arr) > 0 {
			body = arr[0]
		}
	}
	var top struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Type    string          `json:"type"`
	}
	if json.Unmarshal(body, &top) != nil {
		return "", ""
	}
	if len(top.Error) > 0 && string(top.Error) != "null" {
		var s string
		if json.Unmarshal(top.Error, &s) == nil {
			return "", s
		}
		var obj struct {
			Message json.RawMessage `json:"message"`
			Type    string          `json:"type"`
			Status  string          `json:"status"`
			Code    json.RawMessage `json:"code"`
		}
		if json.Unmarshal(top.Error, &obj) == nil {
			typ = obj.Type
			if typ == "" {
				typ = obj.Status
			}
			if typ == "" {
				var code string
				if json.Unmarshal(obj.Code, &code) == nil {
					typ = code
				}
			}
			return typ, messageText(obj.Message)
		}
	}
	if m := messageText(top.Message); m != "" {
		return top.Type, m
	}
	return top.Type, detailText(top.Detail)
}

// messageText reads a message that is a string or, on Mistral, an object
// holding a FastAPI-style detail list.
func messageText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return detailText(obj.Detail)
	}
	return ""
}

// detailText renders FastAPI / pydantic validation details: a string, or a
// list of {loc, msg}.
func detailText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return ""
	}
	var parts []string
	for _, d := range list {
		var loc []string
		for _, l := range d.Loc {
			loc = append(loc, fmt.Sprint(l))
		}
		parts = append(parts, strings.Join(loc, ".")+": "+d.Msg)
	}
	return strings.Join(parts, "; ")
}

// errStreamCut is wrapped by every error that ends a stream early.
var errStreamCut = errors.New("stream was cut")
