// Package imagecheck judges an image sent inline as a data URL the way
// OpenAI's APIs do (Chat Completions image_url, Responses input_image), for
// the strict fakes: png, jpeg, gif and webp only, 20 MB at most, and bytes
// that are an image of the type the URL says. The messages and codes are
// the API's own, as its 400 bodies carry them (vision guide; client bug
// reports quoting the answers).
package imagecheck

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
)

// MaxBytes is the largest image OpenAI takes, decoded.
const MaxBytes = 20 << 20

var types = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// OpenAI returns the error code and message the API answers for url, or
// "", "" when it takes it. A URL that is not a data URL is not fetched.
func OpenAI(url string) (code, msg string) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return "", ""
	}
	mediaType, data, ok := strings.Cut(rest, ";base64,")
	if !ok || !slices.Contains(types, mediaType) {
		return "invalid_image_format", "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp']."
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) == 0 || http.DetectContentType(raw) != mediaType {
		return "invalid_image", "The image data you provided does not represent a valid image. Please check your input and try again with one of the supported image formats: ['image/jpeg', 'image/png', 'image/gif', 'image/webp']."
	}
	if len(raw) > MaxBytes {
		return "sanitizer_server_error", "You uploaded an unsupported image. Please make sure your image is below 20 MB in size and is of one the following formats: ['png', 'jpeg', 'gif', 'webp']."
	}
	return "", ""
}
