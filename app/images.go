package app

import (
	"fmt"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/internal/imagefile"
	"github.com/agent-dev/agent/providers/registry"
)

// ReadImages reads the image files of -p --image FILE, in order. A file
// that cannot be read, or is not a png, jpeg, gif or webp image, is a
// usage error naming it.
func ReadImages(paths []string) ([]agent.Image, error) {
	var out []agent.Image
	for _, p := range paths {
		im, err := imagefile.Read(p)
		if err != nil {
			return nil, &UsageError{fmt.Errorf("--image: %w", err)}
		}
		out = append(out, im)
	}
	return out, nil
}

// CheckImages says why the session's model cannot be sent these images,
// before anything is sent: a model the capability table says reads no
// images, or an image its provider's API would refuse (type, size). The
// error is one line naming the model or the image and what to do.
func (a *App) CheckImages(images []agent.Image) error {
	if len(images) == 0 {
		return nil
	}
	provider := a.Provider()
	_, model := a.session.Target()
	if !a.settings.modelTable().Lookup(provider, model).TakesImages {
		what := "the image was"
		if len(images) > 1 {
			what = fmt.Sprintf("the %d images were", len(images))
		}
		return Usagef("%s takes no images, so %s not sent: switch to a model that reads images (/model, --model) or send the prompt without them", model, what)
	}
	d, _ := registry.Lookup(provider)
	for _, im := range images {
		if err := d.Images.Check(provider, im); err != nil {
			return &UsageError{fmt.Errorf("not sent: %w", err)}
		}
	}
	return nil
}
