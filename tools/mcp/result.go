package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-dev/agent/tools"
)

// maxImageBytes caps the base64 image data of one result: images are sent
// to the model as they are, and a few screenshots are fine, a flood is not.
const maxImageBytes = 8 << 20

// convertResult maps an MCP tools/call result to the provider-neutral one.
// limit caps the text (0: no cap).
func convertResult(r *mcpgo.CallToolResult, limit int) tools.Result {
	var texts []string
	var out tools.Result
	imageBytes := 0
	addImage := func(mime, data, what string) {
		if imageBytes+len(data) > maxImageBytes {
			texts = append(texts, fmt.Sprintf("[%s omitted: %s, %d bytes of base64 over the %d MB image budget of one result]", what, mime, len(data), maxImageBytes>>20))
			return
		}
		imageBytes += len(data)
		out.Images = append(out.Images, tools.Image{MediaType: mime, Data: data})
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case mcpgo.TextContent:
			texts = append(texts, c.Text)
		case *mcpgo.TextContent:
			texts = append(texts, c.Text)
		case mcpgo.ImageContent:
			addImage(c.MIMEType, c.Data, "image")
		case *mcpgo.ImageContent:
			addImage(c.MIMEType, c.Data, "image")
		case mcpgo.AudioContent:
			texts = append(texts, fmt.Sprintf("[audio %s, %d bytes: not shown]", c.MIMEType, decodedLen(c.Data)))
		case *mcpgo.AudioContent:
			texts = append(texts, fmt.Sprintf("[audio %s, %d bytes: not shown]", c.MIMEType, decodedLen(c.Data)))
		case mcpgo.EmbeddedResource:
			texts = appendResource(texts, c.Resource, addImage)
		case *mcpgo.EmbeddedResource:
			texts = appendResource(texts, c.Resource, addImage)
		case mcpgo.ResourceLink:
			texts = append(texts, resourceLink(c))
		case *mcpgo.ResourceLink:
			texts = append(texts, resourceLink(*c))
		default:
			// An unknown content kind is passed as its JSON rather than lost.
			if b, err := json.Marshal(c); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	// structuredContent duplicates the text by convention; it is the answer
	// only when there is no text.
	if len(texts) == 0 {
		if s := structured(r); s != "" {
			texts = append(texts, s)
		}
	}
	out.Text = strings.Join(texts, "\n")
	out.Text = truncate(out.Text, limit, cutBytes(out.Text))
	out.IsError = r.IsError
	return out
}

func structured(r *mcpgo.CallToolResult) string {
	raw := bytes.TrimSpace(r.RawStructuredContent)
	if len(raw) == 0 && r.StructuredContent != nil {
		raw, _ = json.Marshal(r.StructuredContent)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

func appendResource(texts []string, rc mcpgo.ResourceContents, addImage func(mime, data, what string)) []string {
	switch rc := rc.(type) {
	case mcpgo.TextResourceContents:
		return append(texts, fmt.Sprintf("[resource %s]\n%s", rc.URI, rc.Text))
	case *mcpgo.TextResourceContents:
		return append(texts, fmt.Sprintf("[resource %s]\n%s", rc.URI, rc.Text))
	case mcpgo.BlobResourceContents:
		return appendBlob(texts, rc, addImage)
	case *mcpgo.BlobResourceContents:
		return appendBlob(texts, *rc, addImage)
	}
	return texts
}

func appendBlob(texts []string, rc mcpgo.BlobResourceContents, addImage func(mime, data, what string)) []string {
	if strings.HasPrefix(rc.MIMEType, "image/") {
		addImage(rc.MIMEType, rc.Blob, "image resource "+rc.URI)
		return append(texts, fmt.Sprintf("[resource %s: image %s, attached]", rc.URI, rc.MIMEType))
	}
	if textual(rc.MIMEType) {
		if b, err := base64.StdEncoding.DecodeString(rc.Blob); err == nil && utf8.Valid(b) {
			return append(texts, fmt.Sprintf("[resource %s]\n%s", rc.URI, b))
		}
	}
	mime := rc.MIMEType
	if mime == "" {
		mime = "binary"
	}
	return append(texts, fmt.Sprintf("[resource %s: %s, %d bytes: binary content not shown]", rc.URI, mime, decodedLen(rc.Blob)))
}

// textual reports whether a blob of this media type is text the model can
// read: text/*, JSON (application/json, +json) and a few other text formats.
func textual(mime string) bool {
	mime, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mime)), ";")
	mime = strings.TrimSpace(mime)
	switch {
	case strings.HasPrefix(mime, "text/"), strings.HasSuffix(mime, "+json"), strings.HasSuffix(mime, "+xml"):
		return true
	}
	switch mime {
	case "application/json", "application/xml", "application/yaml", "application/x-yaml", "application/javascript", "application/ld+json", "application/x-ndjson":
		return true
	}
	return false
}

func resourceLink(l mcpgo.ResourceLink) string {
	s := fmt.Sprintf("[resource link %s", l.URI)
	if l.Name != "" {
		s += " (" + l.Name + ")"
	}
	if l.Description != "" {
		s += ": " + l.Description
	}
	return s + "]"
}

func decodedLen(b64 string) int {
	return base64.StdEncoding.DecodedLen(len(b64))
}

// cutNote finds the notes capReader left where it cut the result.
// Compiled on first use: package init runs on every start, -p and --help too.
var cutNote = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[tool result cut: (\d+) more bytes dropped over max_tool_result_bytes`)
})

// cutBytes adds up what capReader dropped from the result, by its notes.
func cutBytes(s string) int {
	n := 0
	for _, m := range cutNote().FindAllStringSubmatch(s, -1) {
		k, _ := strconv.Atoi(m[1])
		n += k
	}
	return n
}

// truncate cuts s to at most limit bytes on a character boundary and says
// so, so the model knows the output is partial; dropped is what was cut
// from it on the way in, counted in what the tool returned.
func truncate(s string, limit, dropped int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n\n[output truncated: the tool returned %d bytes; only the first %d are shown]", len(s)+dropped, cut)
}
