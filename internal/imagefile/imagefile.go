// Package imagefile reads the image files a user attaches to a prompt
// (@shot.png in the TUI, a pasted path, -p --image FILE): the bytes, the
// media type sniffed from them, the file's base name. Whether the model and
// the provider take the image is the application's to say.
package imagefile

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-dev/agent/agent"
)

// MaxBytes bounds a file read: no provider takes a larger image inline.
const MaxBytes = 20 << 20

// Types are the media types an attached image may have: those every
// provider reads (Gemini takes no GIF; the provider's rules say so).
var Types = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

var extensions = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// ErrNotImage is the kind of Read's error for a file that is not an image
// of Types (a text file named with @ is attached as text instead).
var ErrNotImage = errors.New("not an image")

// Named reports whether path names an image by its extension.
func Named(path string) bool {
	return slices.Contains(extensions, strings.ToLower(filepath.Ext(path)))
}

// Sniff returns the media type of content when it is an image of Types,
// else "".
func Sniff(content []byte) string {
	if t := http.DetectContentType(content); slices.Contains(Types, t) {
		return t
	}
	return ""
}

// Read reads the image at path. Its errors are one line naming the file
// and what is wrong.
func Read(path string) (agent.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return agent.Image{}, fmt.Errorf("image %s: no such file", path)
		}
		return agent.Image{}, fmt.Errorf("image %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return agent.Image{}, fmt.Errorf("image %s: %w", path, err)
	case fi.IsDir():
		return agent.Image{}, fmt.Errorf("image %s: it is a directory; name an image file", path)
	case !fi.Mode().IsRegular():
		return agent.Image{}, fmt.Errorf("image %s: not a regular file", path)
	case fi.Size() > MaxBytes:
		return agent.Image{}, fmt.Errorf("image %s: %s is over the %s any provider takes; make it smaller", path, Size(int(fi.Size())), Size(MaxBytes))
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return agent.Image{}, fmt.Errorf("image %s: %w", path, err)
	}
	mt := Sniff(b)
	if mt == "" {
		return agent.Image{}, fmt.Errorf("image %s: %w: its content is %s, not png, jpeg, gif or webp", path, ErrNotImage, strings.Split(http.DetectContentType(b), ";")[0])
	}
	return agent.Image{MediaType: mt, Data: base64.StdEncoding.EncodeToString(b), Name: filepath.Base(path)}, nil
}

// Size is n bytes for a person: "812 B", "34 KB", "2.4 MB".
func Size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MB"
}

// Chip is the one-line label of an attached image: its name, type and size.
func Chip(im agent.Image) string {
	name := im.Name
	if name == "" {
		name = "image"
	}
	return fmt.Sprintf("%s (%s, %s)", name, strings.TrimPrefix(im.MediaType, "image/"), Size(im.Size()))
}

// PastedPath reports the image file a prompt names when the prompt is
// nothing but that path, as a terminal pastes a dropped file: bare,
// in single or double quotes, with backslash-escaped spaces, or as a
// file:// URL. It checks that the file exists.
func PastedPath(prompt string) (string, bool) {
	// Some terminals paste a path with spaces as it is.
	if p := strings.TrimSpace(prompt); Named(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	p, ok := Unquote(prompt)
	if !ok {
		return "", false
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return p, true
}

// Unquote is PastedPath without looking at the file: the path a pasted
// text names when it is one path named as an image (by its extension).
func Unquote(pasted string) (string, bool) {
	p := strings.TrimSpace(pasted)
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	} else {
		switch {
		case strings.ContainsRune(p, '\n'):
			return "", false
		case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~/"):
			// Some terminals paste a dropped file's path as it is, spaces
			// and all: a text starting at the root is that path.
			if !strings.Contains(p, `\`) {
				break
			}
			p = unescape(p)
		case strings.ContainsAny(strings.ReplaceAll(p, `\ `, ""), " \t"):
			return "", false
		default:
			p = unescape(p)
		}
	}
	p = strings.TrimPrefix(p, "file://")
	if p == "" || !Named(p) {
		return "", false
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	return p, true
}

// unescape drops the backslashes a shell-style paste puts before spaces
// and other special characters ("my\ shot.png", "a\(1\).png").
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
