package gemini

import (
	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/provider"
)

// ModelPrefixes are the ids of Google's priced models.
var ModelPrefixes = []string{"gemini-"}

// Images are the Gemini API's limits on an inline image (the image
// understanding docs): png, jpeg, webp, heic and heif (no GIF), in a
// request of 20 MB at most.
var Images = provider.ImageRules{MediaTypes: []string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}, MaxBytes: 20 << 20}

// Descriptor is the Gemini API as the registry lists it.
func Descriptor() provider.Descriptor {
	return provider.Descriptor{
		Name: Name, Family: "google", Home: true, DefaultModel: DefaultModel,
		KeyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}, KeyRequired: true, BaseURLEnv: []string{"GOOGLE_GEMINI_BASE_URL"},
		ModelPrefixes: ModelPrefixes,
		Images:        Images,
		New: provider.Constructor(FromEnv, func(o Options, c provider.Config) (agent.Provider, error) {
			return New(Configured(o, c)), nil
		}),
	}
}

// Configured is o with what the settings decide: the models table,
// --effort and the timeouts (Gemini on Vertex AI takes them too).
func Configured(o Options, c provider.Config) Options {
	o.Models, o.Effort = c.Models, c.Effort
	o.FirstByteTimeout, o.StreamIdleTimeout = c.FirstByteTimeout, c.StreamIdleTimeout
	return o
}
