package vertex

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"

	"github.com/agent-dev/agent/providers/gemini"
)

// GeminiTag tags the raw parts and errors of Gemini on Vertex AI.
const GeminiTag = "vertex-gemini"

// GeminiFromEnv reads what Google's Gen AI SDK reads for Vertex AI:
// GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION (default global),
// GOOGLE_VERTEX_BASE_URL, and Application Default Credentials.
func GeminiFromEnv(ctx context.Context, getenv func(string) string) (Options, error) {
	o := Options{ProjectID: getenv("GOOGLE_CLOUD_PROJECT"), Region: getenv("GOOGLE_CLOUD_LOCATION"), BaseURL: getenv("GOOGLE_VERTEX_BASE_URL")}
	creds, err := adc(ctx, getenv)
	if err != nil {
		return o, err
	}
	if o.ProjectID == "" {
		o.ProjectID = creds.ProjectID
	}
	if o.ProjectID == "" {
		return o, errors.New("vertex: no Google Cloud project: set GOOGLE_CLOUD_PROJECT")
	}
	o.TokenSource = creds.TokenSource
	return o, nil
}

// NewGemini returns the Gemini adapter on Vertex AI's publishers/google
// route ({base}/projects/{p}/locations/{r}/publishers/google/models/{m}:
// streamGenerateContent?alt=sse), with the ADC token. g carries the
// adapter's own options (models table, effort, timeouts).
func NewGemini(o Options, g gemini.Options) (*gemini.Provider, error) {
	if o.ProjectID == "" {
		return nil, errors.New("vertex: no Google Cloud project: set GOOGLE_CLOUD_PROJECT")
	}
	if o.TokenSource == nil {
		return nil, errors.New("vertex: no Google credentials: " + loginHint)
	}
	if o.Region == "" {
		o.Region = DefaultRegion
	}
	base := strings.TrimRight(o.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL(o.Region)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	authed := *hc
	authed.Transport = &transport{base: rt, ts: oauth2.ReuseTokenSource(nil, o.TokenSource)}
	prefix := base + "/projects/" + url.PathEscape(o.ProjectID) + "/locations/" + url.PathEscape(o.Region) + "/publishers/google/models/"
	g.APIKey, g.HTTPClient, g.Tag = "", &authed, GeminiTag
	g.Endpoint = func(model string, stream bool) string {
		u := prefix + url.PathEscape(strings.TrimPrefix(model, "models/"))
		if stream {
			return u + ":streamGenerateContent?alt=sse"
		}
		return u + ":generateContent"
	}
	return gemini.New(g), nil
}
