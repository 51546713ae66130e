package anthropictest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// The image rules are the Messages API's own 400s for an image block (the
// vision docs: jpeg, png, gif and webp only, 5 MB at most per image counted
// on its base64 text; and what clients report the API answers): a media type
// outside the four, an empty or oversize image, and bytes that are not the
// image the media type says.

// MaxImageBase64 is the largest base64 text of one image the API takes.
const MaxImageBase64 = 5 << 20

var imageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

type wireImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

// checkImages returns the 400 message of the first bad image block of the
// request, in a message or inside a tool result, or "".
func checkImages(msgs []wireMessage) string {
	for i, m := range msgs {
		for j, b := range m.Content {
			at := fmt.Sprintf("messages.%d.content.%d", i, j)
			if msg := checkImage(at, b); msg != "" {
				return msg
			}
			if b.Type != "tool_result" {
				continue
			}
			var items []wireBlock
			if json.Unmarshal(b.Content, &items) != nil {
				continue
			}
			for k, it := range items {
				if msg := checkImage(fmt.Sprintf("%s.tool_result.content.%d", at, k), it); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

func checkImage(at string, b wireBlock) string {
	if b.Type != "image" {
		return ""
	}
	var src wireImageSource
	if err := json.Unmarshal(b.Source, &src); err != nil || src.Type == "" {
		return at + ".image.source: Field required"
	}
	switch src.Type {
	case "url":
		if src.URL == "" {
			return at + ".image.source.url.url: Field required"
		}
		return ""
	case "base64":
	default:
		return fmt.Sprintf("%s.image.source: Input tag '%s' found using 'type' does not match any of the expected tags: 'base64', 'file', 'url'", at, src.Type)
	}
	if !slices.Contains(imageTypes, src.MediaType) {
		return at + ".image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
	}
	if src.Data == "" {
		return at + ".image.source.base64: image cannot be empty"
	}
	if len(src.Data) > MaxImageBase64 {
		return fmt.Sprintf("%s.image.source.base64: image exceeds 5 MB maximum: %d bytes > %d bytes", at, len(src.Data), MaxImageBase64)
	}
	raw, err := base64.StdEncoding.DecodeString(src.Data)
	if err != nil {
		return at + ".image.source.base64.data: Invalid base64 data"
	}
	if http.DetectContentType(raw) != src.MediaType {
		return at + ".image.source.base64: Image does not match the provided media type " + src.MediaType
	}
	return ""
}
