// Package azure serves Azure OpenAI through its v1 Responses API
// ({AZURE_OPENAI_ENDPOINT}/openai/v1/responses) with the Responses adapter:
// the body is the same, the auth is an `api-key` header
// (AZURE_OPENAI_API_KEY) or, with no key, a Microsoft Entra ID token from
// azidentity's default credential chain (environment, workload identity,
// managed identity, Azure CLI, azd). --model is the deployment name; what
// it can do (tool search, reasoning) comes from the config's models table,
// or is read from the name when it names the model ("gpt-5.4").
//
// Claude on Azure AI Foundry is not this provider: it speaks the Anthropic
// Messages API, so it is --provider anthropic with --base-url
// https://{resource}.services.ai.azure.com/anthropic and the resource's key
// in ANTHROPIC_API_KEY.
package azure

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/internal/claudeplatform"
	"github.com/agent-dev/agent/providers/openairesponses"
)

const (
	// Name tags raw items and errors of this provider.
	Name = "azure"
	// Scope is the Entra ID scope of Azure OpenAI.
	Scope = "https://cognitiveservices.azure.com/.default"

	openaiTag    = "openai"
	responsesAPI = "responses"
	loginHint    = "run `az login` (or set AZURE_OPENAI_API_KEY, or AZURE_CLIENT_ID/AZURE_TENANT_ID/AZURE_CLIENT_SECRET)"
)

// Options configure the provider.
type Options struct {
	// Endpoint is the resource, https://{resource}.openai.azure.com.
	Endpoint string
	// APIKey is sent as api-key; without it Credential gives Entra ID tokens.
	APIKey     string
	Credential azcore.TokenCredential
	HTTPClient *http.Client
	// Models decides capabilities per deployment name.
	Models *models.Table
	// FirstByteTimeout and StreamIdleTimeout as in the Responses adapter.
	FirstByteTimeout, StreamIdleTimeout time.Duration
}

// FromEnv reads AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_API_KEY; with no key
// it sets up azidentity's default credential (nothing is fetched yet).
func FromEnv(_ context.Context, getenv func(string) string) (Options, error) {
	o := Options{Endpoint: getenv("AZURE_OPENAI_ENDPOINT"), APIKey: getenv("AZURE_OPENAI_API_KEY")}
	if o.Endpoint == "" {
		return o, errors.New("azure: AZURE_OPENAI_ENDPOINT is not set: export it (https://RESOURCE.openai.azure.com) or use --base-url")
	}
	if o.APIKey == "" {
		cred, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return o, fmt.Errorf("azure: AZURE_OPENAI_API_KEY is not set and Entra ID is not configured (%v): %s", err, loginHint)
		}
		o.Credential = cred
	}
	return o, nil
}

// Provider is the Responses adapter under the azure tag.
type Provider struct {
	*openairesponses.Provider
}

var _ agent.Provider = (*Provider)(nil)

// New returns the provider.
func New(o Options) (*Provider, error) {
	if o.Endpoint == "" {
		return nil, errors.New("azure: AZURE_OPENAI_ENDPOINT is not set: export it (https://RESOURCE.openai.azure.com)")
	}
	if o.APIKey == "" && o.Credential == nil {
		return nil, errors.New("azure: set AZURE_OPENAI_API_KEY, or sign in for Entra ID: " + loginHint)
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
	authed.Transport = &transport{base: rt, key: o.APIKey, cred: o.Credential}
	// The deployment name is looked up under "azure": the config's models
	// entries scoped to Azure apply, and a name that says its model
	// ("gpt-5.4") resolves like that model.
	return &Provider{Provider: openairesponses.New(openairesponses.Options{
		BaseURL: BaseURL(o.Endpoint), HTTPClient: &authed, Models: o.Models, LookupAs: Name,
		FirstByteTimeout: o.FirstByteTimeout, StreamIdleTimeout: o.StreamIdleTimeout,
	})}, nil
}

// BaseURL is the v1 API root of a resource endpoint; an endpoint already
// ending in /openai/v1 is kept.
func BaseURL(endpoint string) string {
	e := strings.TrimRight(endpoint, "/")
	e = strings.TrimSuffix(e, "/openai/v1")
	e = strings.TrimSuffix(e, "/openai")
	return e + "/openai/v1"
}

// Name is the provider tag.
func (p *Provider) Name() string { return Name }

// API is the Responses API.
func (p *Provider) API() string { return responsesAPI }

// ListModels hides the adapter's GET /models: Azure lists base models there,
// while --model takes a deployment name, so the picker keeps to the table.
func (p *Provider) ListModels(context.Context) ([]string, error) {
	return nil, errors.New("azure: deployments are not listed")
}

// Send hands the adapter Azure's own raw items (never api.openai.com's:
// their encrypted reasoning does not decrypt elsewhere) and tags the answer.
func (p *Provider) Send(ctx context.Context, req *agent.Request, emit func(agent.StreamEvent)) (*agent.Response, error) {
	resp, err := p.Provider.Send(ctx, p.prepare(req), emit)
	if resp != nil {
		resp.Message = claudeplatform.Retag([]agent.Message{resp.Message}, responsesAPI, openaiTag, Name)[0]
	}
	if err != nil {
		var ae *agent.APIError
		if errors.As(err, &ae) && ae.Provider == openaiTag {
			ae.Provider = Name
			if ae.Status == 401 {
				ae.Message += " — check AZURE_OPENAI_API_KEY and AZURE_OPENAI_ENDPOINT, or " + loginHint
			}
			if ae.Status == 404 {
				ae.Message += " — --model must be a deployment name of this resource"
			}
		}
		err = claudeplatform.ExplainAuth(err)
	}
	return resp, err
}

// prepare is the request as the adapter gets it: Azure's raw items under
// the adapter's tag.
func (p *Provider) prepare(req *agent.Request) *agent.Request {
	r := *req
	r.Messages = claudeplatform.Retag(req.Messages, responsesAPI, Name, openaiTag)
	return &r
}

// Render is the body Send would post.
func (p *Provider) Render(req *agent.Request) ([]byte, agent.SearchMode, error) {
	return p.Provider.Render(p.prepare(req))
}

// ToolsHash is the hash of the tools array Send would post.
func (p *Provider) ToolsHash(req *agent.Request) (string, error) {
	return p.Provider.ToolsHash(p.prepare(req))
}

// transport adds api-key, or an Entra ID bearer token, reused until five
// minutes before it expires.
type transport struct {
	base http.RoundTripper
	key  string
	cred azcore.TokenCredential

	mu  sync.Mutex
	tok azcore.AccessToken
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Del("Authorization")
	if t.key != "" {
		r.Header.Set("api-key", t.key)
		return t.base.RoundTrip(r)
	}
	tok, err := t.token(r.Context())
	if err != nil {
		return nil, &claudeplatform.AuthError{Platform: Name, Err: fmt.Errorf("could not get a Microsoft Entra ID token: %w", err), Hint: loginHint}
	}
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.base.RoundTrip(r)
}

func (t *transport) token(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok.Token != "" && time.Until(t.tok.ExpiresOn) > 5*time.Minute {
		return t.tok.Token, nil
	}
	tok, err := t.cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{Scope}})
	if err != nil {
		return "", err
	}
	t.tok = tok
	return tok.Token, nil
}
