// Package gemini is the adapter for the native Gemini API
// (POST /v1beta/models/{model}:streamGenerateContent?alt=sse, or
// :generateContent): contents of parts, functionDeclarations whose schemas
// are converted to Gemini's dialect by tools/schema, functionCall/functionResponse pairs,
// thoughtSignature kept on each part and replayed verbatim (Gemini 3
// rejects a function call turn without it), thinkingConfig from --effort,
// usage from usageMetadata.
//
// Gemini has no tool search of its own, so deferred tools are found by the
// agent's client-side search through two fixed functions, tool_search and
// tool_call, as on Chat Completions: the tools array is the active tools
// plus those two, the same bytes on every request.
package gemini

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/internal/claudeplatform"
	"github.com/agent-dev/agent/providers/internal/httpx"
)

const (
	// Name and API tag this adapter's raw parts.
	Name = "gemini"
	API  = "generateContent"
	// DefaultBaseURL is the Gemini API root.
	DefaultBaseURL = "https://generativelanguage.googleapis.com"
	// DefaultModel is used when --model is not given.
	DefaultModel = "gemini-2.5-flash"
)

// Options configure the adapter.
type Options struct {
	// APIKey is sent as x-goog-api-key.
	APIKey string
	// BaseURL defaults to DefaultBaseURL; a trailing /v1beta is tolerated.
	BaseURL    string
	HTTPClient *http.Client
	// Models gives each model's schema dialect, output limit and thinking
	// control (nil: the built-in table).
	Models *models.Table
	// Effort is --effort (none, minimal, low, medium, high, max), sent as
	// thinkingConfig in the model's own terms; empty sends none.
	Effort string
	// FirstByteTimeout and StreamIdleTimeout bound the waits of a request.
	FirstByteTimeout, StreamIdleTimeout time.Duration
	// Tag names the provider in raw parts and errors (default "gemini";
	// Gemini on Vertex AI is "vertex-gemini", so signatures are replayed
	// only where they were made).
	Tag string
	// Endpoint, when set, replaces the Gemini API's URLs (Vertex AI's
	// publishers/google route); auth then travels in HTTPClient.
	Endpoint func(model string, stream bool) string
}

// FromEnv reads GEMINI_API_KEY (or GOOGLE_API_KEY) and
// GOOGLE_GEMINI_BASE_URL as Google's SDKs do.
func FromEnv(_ context.Context, getenv func(string) string) (Options, error) {
	o := Options{APIKey: getenv("GEMINI_API_KEY"), BaseURL: getenv("GOOGLE_GEMINI_BASE_URL")}
	if o.APIKey == "" {
		o.APIKey = getenv("GOOGLE_API_KEY")
	}
	return o, nil
}

// Provider implements agent.Provider for the Gemini API.
type Provider struct {
	opts Options
	http httpx.Client
}

var _ agent.Provider = (*Provider)(nil)

// New returns an adapter.
func New(o Options) *Provider {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimSuffix(strings.TrimRight(o.BaseURL, "/"), "/v1beta")
	if o.Tag == "" {
		o.Tag = Name
	}
	return &Provider{opts: o, http: httpx.Client{HTTP: o.HTTPClient, Provider: o.Tag,
		Timeouts: httpx.Timeouts{FirstByte: o.FirstByteTimeout, StreamIdle: o.StreamIdleTimeout}}}
}

func (p *Provider) Name() string { return p.opts.Tag }
func (p *Provider) API() string  { return API }

// NativeSearch is always false: the agent searches.
func (p *Provider) NativeSearch(string) bool { return false }

// Render returns the body Send would post, with the resolved search mode.
func (p *Provider) Render(req *agent.Request) ([]byte, agent.SearchMode, error) {
	r, err := p.render(req)
	if err != nil {
		return nil, "", err
	}
	return r.body, r.mode, nil
}

// ToolsHash is the sha256 of the tools array Send would post.
func (p *Provider) ToolsHash(req *agent.Request) (string, error) {
	r, err := p.render(req)
	if err != nil {
		return "", err
	}
	return r.toolsHash, nil
}

// Endpoint is the URL of a request for model.
func (p *Provider) Endpoint(model string, stream bool) string {
	if p.opts.Endpoint != nil {
		return p.opts.Endpoint(model, stream)
	}
	u := p.opts.BaseURL + "/v1beta/models/" + url.PathEscape(strings.TrimPrefix(model, "models/"))
	if stream {
		return u + ":streamGenerateContent?alt=sse"
	}
	return u + ":generateContent"
}

// Send performs one request.
func (p *Provider) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	if emit == nil {
		emit = func(agent.StreamEvent) {}
	}
	for _, pt := range req.ProviderTools {
		if pt.Alias != "" {
			return nil, fmt.Errorf("gemini: provider tool %q is not supported: the Gemini adapter has no hosted tools", pt.Alias)
		}
	}
	r, err := p.render(req)
	if err != nil {
		return nil, fmt.Errorf("gemini: build request: %w", err)
	}
	h := http.Header{}
	if p.opts.APIKey != "" {
		h.Set("x-goog-api-key", p.opts.APIKey)
	}
	resp, err := p.http.Post(ctx, p.Endpoint(req.Model, !req.NoStream), r.body, !req.NoStream, h)
	if err != nil {
		return nil, claudeplatform.ExplainAuth(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		err := apiError(resp, p.opts.Tag)
		if e, ok := err.(*agent.APIError); ok && resp.StatusCode == 400 && r.declared > maxDeclarations {
			// Gemini takes at most 512 function declarations.
			e.Message += fmt.Sprintf(" — %d functions were declared: defer some servers' tools (--defer, or \"defer\": true in the server's config) so search finds them instead", r.declared)
		}
		return nil, err
	}
	acc := &accumulator{r: r, emit: emit}
	out := &agent.Response{ToolsHash: r.toolsHash, Resolved: r.mode}
	if req.NoStream {
		err = acc.readJSON(resp.Body)
	} else {
		err = acc.readStream(resp.Body)
	}
	if err == nil && acc.finish == "MALFORMED_FUNCTION_CALL" && acc.calls == 0 && len(acc.neutral) == 0 {
		// Nothing usable came back; asking again usually works.
		return nil, &agent.APIError{Provider: p.opts.Tag, Status: 502, Type: "MALFORMED_FUNCTION_CALL",
			Message: "the model produced a malformed function call"}
	}
	out.Message, out.StopReason, out.Usage = acc.message(err != nil), acc.stopReason(), acc.usage
	out.OutputLimit, out.OutputMax = r.maxTokens, r.maxOutput
	return out, err
}

// maxDeclarations is the most function declarations Gemini takes in a
// request (the 400 in gemini-cli#19083).
const maxDeclarations = 512

var _ agent.ToolLimiter = (*Provider)(nil)

// ToolLimit counts the function declarations req would carry (the active
// tools, with tool_search and tool_call when searching on the client, every
// tool with search off) against Gemini's 512; provider tools (google_search
// and the like) are tools of their own, not declarations.
func (p *Provider) ToolLimit(req *agent.Request) (n, max int) {
	n = len(req.Tools)
	switch agent.ResolveSearch(p, req) {
	case agent.SearchClient:
		n += 2
	case agent.SearchOff:
		n += len(req.Deferred)
	}
	return n, maxDeclarations
}

// apiError reads Google's error body: {"error": {code, message, status}}.
func apiError(resp *http.Response, tag string) error {
	raw := httpx.ReadErrorBody(resp)
	e := &agent.APIError{Provider: tag, Status: resp.StatusCode, RetryAfter: httpx.RetryAfter(resp.Header)}
	var w struct {
		Error struct {
			Message string `json:"message"`
			Status  string `json:"status"`
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &w) == nil && w.Error.Message != "" {
		e.Type, e.Message = w.Error.Status, httpx.Cut(w.Error.Message, httpx.SnippetLimit)
		for _, d := range w.Error.Details {
			// A 429's google.rpc.RetryInfo says how long to wait ("23s").
			if strings.HasSuffix(d.Type, "google.rpc.RetryInfo") && e.RetryAfter == "" {
				if v, err := time.ParseDuration(d.RetryDelay); err == nil && v >= 0 {
					e.RetryAfter = strconv.FormatFloat(v.Seconds(), 'f', -1, 64)
				}
			}
		}
	} else {
		e.Message = httpx.Snippet(raw)
	}
	switch {
	case tag != Name:
		// Another route (Vertex AI) explains its own auth failures.
	case resp.StatusCode == 400 && strings.Contains(strings.ToLower(e.Message), "api key"),
		resp.StatusCode == 401, resp.StatusCode == 403 && e.Type == "PERMISSION_DENIED":
		e.Message += " — check GEMINI_API_KEY (or GOOGLE_API_KEY)"
	}
	return e
}

// marshal encodes without escaping <, > and &.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
