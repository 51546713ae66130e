// Package vertex serves Claude on Google Cloud Vertex AI: POST
// {base}/projects/{project}/locations/{region}/publishers/anthropic/models/
// {model}:streamRawPredict (:rawPredict when not streaming) with the
// Messages body minus "model" plus "anthropic_version": "vertex-2023-10-16",
// so native tool search works as on Anthropic. Auth is Application Default
// Credentials through golang.org/x/oauth2/google (a service account key in
// GOOGLE_APPLICATION_CREDENTIALS, honouring its token_uri; gcloud's user
// credentials; the metadata server); tokens are cached and refreshed by the
// library's token source.
package vertex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/internal/claudeplatform"
)

const (
	// Name tags the raw blocks and errors of this provider.
	Name = "vertex"
	// SearchBeta is the beta flag of tool search on this platform.
	SearchBeta = "tool-search-tool-2025-10-19"
	// Version is the body's anthropic_version on Vertex AI.
	Version = "vertex-2023-10-16"
	// DefaultModel is Claude Sonnet 4.5 as Vertex names it.
	DefaultModel = "claude-sonnet-4-5@20250929"
	// DefaultRegion is where Claude Code and the SDKs go without CLOUD_ML_REGION.
	DefaultRegion = "global"
	// Scope is the OAuth scope Vertex AI needs.
	Scope = "https://www.googleapis.com/auth/cloud-platform"
)

// loginHint is what to run when Google refuses or cannot produce a token.
const loginHint = "run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service account key file"

// Options configure the provider.
type Options struct {
	ProjectID string
	// Region defaults to global.
	Region string
	// BaseURL replaces https://{region}-aiplatform.googleapis.com/v1
	// (https://aiplatform.googleapis.com/v1 for global).
	BaseURL string
	// TokenSource gives the access tokens (cached by the caller or wrapped
	// in oauth2.ReuseTokenSource here).
	TokenSource  oauth2.TokenSource
	HTTPClient   *http.Client
	NativeModels map[string]bool
	// Models is the capability table (nil: the built-in one), read with
	// this platform's model ids.
	Models *models.Table
	// FirstByteTimeout and StreamIdleTimeout bound the waits of a request.
	FirstByteTimeout, StreamIdleTimeout time.Duration
}

// FromEnv reads what the official SDKs and Claude Code read:
// ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT, or the credentials'
// project), CLOUD_ML_REGION, ANTHROPIC_VERTEX_BASE_URL, and Application
// Default Credentials (GOOGLE_APPLICATION_CREDENTIALS first). No token is
// fetched here.
func FromEnv(ctx context.Context, getenv func(string) string) (Options, error) {
	o := Options{
		ProjectID: getenv("ANTHROPIC_VERTEX_PROJECT_ID"),
		Region:    getenv("CLOUD_ML_REGION"),
		BaseURL:   getenv("ANTHROPIC_VERTEX_BASE_URL"),
	}
	if o.ProjectID == "" {
		o.ProjectID = getenv("GOOGLE_CLOUD_PROJECT")
	}
	creds, err := adc(ctx, getenv)
	if err != nil {
		return o, err
	}
	if o.ProjectID == "" {
		o.ProjectID = creds.ProjectID
	}
	if o.ProjectID == "" {
		return o, errors.New("vertex: no Google Cloud project: set ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT)")
	}
	o.TokenSource = creds.TokenSource
	return o, nil
}

// adc finds Application Default Credentials: the file named by
// GOOGLE_APPLICATION_CREDENTIALS (read through getenv), else the library's
// search (gcloud's file, the metadata server).
func adc(ctx context.Context, getenv func(string) string) (*google.Credentials, error) {
	// The token source outlives this call: refreshes must not be cancelled
	// with the command's context.
	ctx = context.WithoutCancel(ctx)
	path := getenv("GOOGLE_APPLICATION_CREDENTIALS")
	if path == "" {
		creds, err := google.FindDefaultCredentials(ctx, Scope)
		if err != nil {
			return nil, errors.New("vertex: no Google credentials: " + loginHint)
		}
		return creds, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("vertex: GOOGLE_APPLICATION_CREDENTIALS: %w", err)
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Type == "" {
		return nil, fmt.Errorf("vertex: GOOGLE_APPLICATION_CREDENTIALS (%s) is not a Google credentials JSON file", path)
	}
	creds, err := google.CredentialsFromJSONWithType(ctx, data, google.CredentialsType(head.Type), Scope)
	if err != nil {
		return nil, fmt.Errorf("vertex: GOOGLE_APPLICATION_CREDENTIALS (%s): %w", path, err)
	}
	return creds, nil
}

// New returns the provider.
func New(o Options) (*claudeplatform.Provider, error) {
	if o.ProjectID == "" {
		return nil, errors.New("vertex: no Google Cloud project: set ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT)")
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
	authed.Transport = &transport{base: rt, ts: oauth2.ReuseTokenSource(nil, o.TokenSource), anthropic: true}
	project, region := o.ProjectID, o.Region
	ap := anthropic.New(anthropic.Options{
		HTTPClient:       &authed,
		NativeModels:     o.NativeModels,
		Models:           o.Models,
		FirstByteTimeout: o.FirstByteTimeout, StreamIdleTimeout: o.StreamIdleTimeout,
		Platform: &anthropic.Platform{
			URL: func(model string, stream bool) string {
				op := "rawPredict"
				if stream {
					op = "streamRawPredict"
				}
				return base + "/projects/" + url.PathEscape(project) + "/locations/" + url.PathEscape(region) +
					"/publishers/anthropic/models/" + url.PathEscape(model) + ":" + op
			},
			Version:    Version,
			SearchBeta: SearchBeta,
		},
	})
	return &claudeplatform.Provider{Provider: ap, Tag: Name, Explain: claudeplatform.ExplainAuth}, nil
}

// DefaultBaseURL is the regional endpoint, or the global one.
func DefaultBaseURL(region string) string {
	if region == "" || region == "global" {
		return "https://aiplatform.googleapis.com/v1"
	}
	return "https://" + region + "-aiplatform.googleapis.com/v1"
}
