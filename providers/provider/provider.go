// Package provider is what a provider package declares of itself to the
// registry (providers/registry): its names, the variables it reads, the
// models it serves, its hosted tools, and how to build it. The application
// asks the registry, never a provider package, so adding a provider is its
// package plus one registry line.
package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
)

// Descriptor describes one --provider value.
type Descriptor struct {
	// Name is the --provider value ("anthropic", "ollama", "vertex-gemini").
	Name string
	// Family is the vendor whose models its API is made for ("anthropic"
	// for bedrock, "google" for vertex-gemini), as the capability table
	// spells it; "" for a server of many vendors' models.
	Family string
	// Home marks the family's own API: /model names it for the family's
	// models, and it refuses a model the table gives another family.
	Home bool
	// DefaultModel is used without --model; "" means the user names one.
	DefaultModel string
	// KeyEnv are the variables the API key is read from, first wins.
	// KeyRequired: without one, building fails naming them.
	KeyEnv      []string
	KeyRequired bool
	// BaseURLEnv are the variables the base URL (or endpoint) is read
	// from; --base-url replaces them all.
	BaseURLEnv []string
	// ModelPrefixes pick the priced models /model offers when the server
	// cannot list its own ("claude-").
	ModelPrefixes []string
	// Aliases are the model ids Claude Code's model aliases (sonnet, opus,
	// haiku) stand for on this provider, in its own spelling, so an agent
	// file written for Claude Code runs here; nil when it serves no Claude.
	Aliases map[string]string
	// Local marks a server on the user's own machine: it costs nothing.
	Local bool
	// Hosted is the tools the provider runs itself (--provider-tool); nil
	// when it has none.
	Hosted *Hosted
	// Images is what the API takes of an image the user attaches, checked
	// before a turn is sent; the zero value is OpenAI's rules.
	Images ImageRules
	// New builds the adapter from the environment (c.Getenv, with the
	// base-URL variables already replaced by --base-url) and c.
	New func(ctx context.Context, c Config) (agent.Provider, error)
	// ListModels asks the server which models it serves; nil when it
	// cannot say.
	ListModels func(ctx context.Context, p agent.Provider) ([]string, error)
}

// Hosted describes a provider's hosted tools.
type Hosted struct {
	// Aliases are the names --provider-tool takes ("web_search").
	Aliases []string
	// Validate refuses what the provider cannot run, before any request.
	Validate func([]agent.ProviderTool) error
	// ReadOnly tells whether a hosted tool only reads (web search, web
	// fetch, tool search): plan mode keeps it and drops the others (code
	// execution, the MCP connector, anything it does not know); nil keeps
	// none.
	ReadOnly func(agent.ProviderTool) bool
}

// ImageRules are an API's documented limits on an image sent inline.
type ImageRules struct {
	// MediaTypes the API reads; nil: png, jpeg, gif and webp.
	MediaTypes []string
	// MaxBytes is the largest image, decoded; 0: 20 MB.
	MaxBytes int
}

// Check refuses an image the API would answer with a 400, in one line
// naming the image, the provider and what to do.
func (r ImageRules) Check(provider string, im agent.Image) error {
	types := r.MediaTypes
	if types == nil {
		types = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}
	}
	limit := r.MaxBytes
	if limit == 0 {
		limit = 20 << 20
	}
	name := im.Name
	if name == "" {
		name = "the image"
	}
	if !slices.Contains(types, im.MediaType) {
		short := make([]string, len(types))
		for i, t := range types {
			short[i] = strings.TrimPrefix(t, "image/")
		}
		return fmt.Errorf("%s is %s, which %s does not read (it takes %s): convert it, or switch provider", name, im.MediaType, provider, strings.Join(short, ", "))
	}
	if n := im.Size(); n > limit {
		return fmt.Errorf("%s is %s, over the %s %s takes per image: make it smaller and attach it again", name, MB(n), MB(limit), provider)
	}
	return nil
}

// MB is n bytes in megabytes, for a message ("3.75 MB").
func MB(n int) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/(1<<20)), "0"), ".") + " MB"
}

// Config is what every constructor gets from the settings.
type Config struct {
	// Model is --model ("" for the default).
	Model string
	// BaseURL is --base-url, for the providers without a base-URL variable.
	BaseURL string
	// Models is the capability table with the config's entries.
	Models *models.Table
	// Effort is --effort.
	Effort string
	// FirstByteTimeout and StreamIdleTimeout bound the waits of a request.
	FirstByteTimeout, StreamIdleTimeout time.Duration
	// Getenv reads the environment.
	Getenv func(string) string
}

// Lister is an adapter that can list the models its server serves.
type Lister interface {
	ListModels(ctx context.Context) ([]string, error)
}

// ErrNoListing is ListVia's answer for an adapter that cannot list.
var ErrNoListing = errors.New("the provider does not list its models")

// ListVia lists through the adapter's own ListModels (Descriptor.ListModels
// for adapters that are Listers).
func ListVia(ctx context.Context, p agent.Provider) ([]string, error) {
	l, ok := p.(Lister)
	if !ok {
		return nil, ErrNoListing
	}
	return l.ListModels(ctx)
}

// FromEnv is the one shape of every provider package's FromEnv: the
// options the environment gives (keys, base URL, credentials), read
// through getenv; nothing is fetched.
type FromEnv[O any] func(ctx context.Context, getenv func(string) string) (O, error)

// Constructor is a Descriptor.New: the options from fromEnv, then build
// with what the settings decide.
func Constructor[O any](fromEnv FromEnv[O], build func(O, Config) (agent.Provider, error)) func(context.Context, Config) (agent.Provider, error) {
	return func(ctx context.Context, c Config) (agent.Provider, error) {
		o, err := fromEnv(ctx, c.Getenv)
		if err != nil {
			return nil, err
		}
		return build(o, c)
	}
}
