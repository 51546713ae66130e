// Package bedrock serves Claude on Amazon Bedrock through InvokeModel
// (POST /model/{modelId}/invoke-with-response-stream, or /invoke when not
// streaming), which carries the Messages API body and therefore native tool
// search (Converse does not). The body is the Anthropic adapter's without
// "model" and "stream", with "anthropic_version": "bedrock-2023-05-31" and
// beta flags as an "anthropic_beta" array. Requests are signed with SigV4
// by aws-sdk-go-v2 with the default credential chain (environment, shared
// config and SSO, container and instance roles), or carry a Bedrock API key
// (AWS_BEARER_TOKEN_BEDROCK). The response stream is AWS event-stream
// framing, decoded by the SDK's eventstream package and handed to the
// Anthropic adapter as the SSE it already reads.
package bedrock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/logging"

	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/internal/claudeplatform"
)

const (
	// Name tags the raw blocks and errors of this provider.
	Name = "bedrock"
	// SearchBeta is the beta flag of tool search on this platform.
	SearchBeta = "tool-search-tool-2025-10-19"
	// Version is the body's anthropic_version on Bedrock.
	Version = "bedrock-2023-05-31"
	// DefaultModel is Claude Sonnet 4.5 through the US cross-region
	// inference profile, which on-demand use of recent models requires.
	DefaultModel = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	// signingName is the SigV4 service name of bedrock-runtime.
	signingName = "bedrock"
)

// Options configure the provider.
type Options struct {
	// Region signs the requests and picks the default endpoint.
	Region string
	// BaseURL replaces https://bedrock-runtime.{region}.amazonaws.com.
	BaseURL string
	// BearerToken is a Bedrock API key: sent as a bearer token, unsigned.
	BearerToken string
	// Credentials sign with SigV4 when there is no BearerToken.
	Credentials aws.CredentialsProvider
	HTTPClient  *http.Client
	// NativeModels overrides the tool search table by exact model id.
	NativeModels map[string]bool
	// Models is the capability table (nil: the built-in one), read with
	// this platform's model ids.
	Models *models.Table
	// FirstByteTimeout and StreamIdleTimeout bound the waits of a request.
	FirstByteTimeout, StreamIdleTimeout time.Duration
}

// FromEnv reads what the AWS SDKs and Claude Code read: AWS_REGION (or
// AWS_DEFAULT_REGION, or the profile's region), AWS_BEARER_TOKEN_BEDROCK,
// ANTHROPIC_BEDROCK_BASE_URL or AWS_ENDPOINT_URL_BEDROCK_RUNTIME, and the
// default credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/
// AWS_SESSION_TOKEN, AWS_PROFILE, SSO, roles), whose credentials it
// resolves (and caches) once, so that none is an error at start.
func FromEnv(ctx context.Context, getenv func(string) string) (Options, error) {
	o := Options{
		Region:      firstOf(getenv, "AWS_REGION", "AWS_DEFAULT_REGION"),
		BearerToken: getenv("AWS_BEARER_TOKEN_BEDROCK"),
		BaseURL:     firstOf(getenv, "ANTHROPIC_BEDROCK_BASE_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"),
	}
	// The SDK logs to stderr by default ("falling back to IMDSv1" when
	// no credentials are found); its failures reach the user as errors.
	opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
	if p := getenv("AWS_PROFILE"); p != "" {
		opts = append(opts, config.WithSharedConfigProfile(p))
	}
	if o.Region != "" {
		opts = append(opts, config.WithRegion(o.Region))
	}
	if id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		// The environment comes first in the default chain too; read
		// through getenv so a caller's environment is the one used.
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(id, secret, getenv("AWS_SESSION_TOKEN"))))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return o, fmt.Errorf("bedrock: reading the AWS configuration: %w (check AWS_PROFILE and ~/.aws/config)", err)
	}
	if o.Region == "" {
		o.Region = cfg.Region
	}
	if o.Region == "" {
		return o, errors.New("bedrock: no AWS region: set AWS_REGION (e.g. us-east-1) or a region in your AWS profile")
	}
	o.Credentials = cfg.Credentials
	if o.BearerToken == "" {
		// Resolved now rather than at the first request: a run without
		// credentials stops at start, saying what to set, as a missing
		// key does for every other provider. The chain caches what it
		// finds, so the first request does not resolve them again.
		rctx, cancel := context.WithTimeout(ctx, credentialCheck)
		_, err := cfg.Credentials.Retrieve(rctx)
		cancel()
		if err != nil {
			return o, errNoCredentials
		}
	}
	return o, nil
}

// credentialCheck bounds resolving the credentials at start (an instance
// role's metadata service off EC2 does not answer).
const credentialCheck = 10 * time.Second

var errNoCredentials = errors.New("bedrock: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (after `aws sso login`), or AWS_BEARER_TOKEN_BEDROCK")

func firstOf(getenv func(string) string, keys ...string) string {
	for _, k := range keys {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return ""
}

// New returns the provider.
func New(o Options) (*claudeplatform.Provider, error) {
	if o.Region == "" {
		return nil, errors.New("bedrock: no AWS region: set AWS_REGION (e.g. us-east-1)")
	}
	if o.BearerToken == "" && o.Credentials == nil {
		return nil, errNoCredentials
	}
	base := strings.TrimRight(o.BaseURL, "/")
	if base == "" {
		base = "https://bedrock-runtime." + o.Region + ".amazonaws.com"
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	signed := *hc
	signed.Transport = &transport{base: rt, region: o.Region, bearer: o.BearerToken, creds: o.Credentials, signer: v4.NewSigner()}
	ap := anthropic.New(anthropic.Options{
		HTTPClient:       &signed,
		NativeModels:     o.NativeModels,
		Models:           o.Models,
		FirstByteTimeout: o.FirstByteTimeout, StreamIdleTimeout: o.StreamIdleTimeout,
		Platform: &anthropic.Platform{
			URL:           func(model string, stream bool) string { return base + Path(model, stream) },
			Version:       Version,
			SearchBeta:    SearchBeta,
			BetasInBody:   true,
			NoStreamField: true,
		},
	})
	return &claudeplatform.Provider{Provider: ap, Tag: Name, Explain: claudeplatform.ExplainAuth}, nil
}

// Path is the InvokeModel route for a model id, inference profile id or ARN.
func Path(model string, stream bool) string {
	op := "invoke"
	if stream {
		op = "invoke-with-response-stream"
	}
	return "/model/" + url.PathEscape(model) + "/" + op
}
