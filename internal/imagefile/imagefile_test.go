package imagefile

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/agent"
)

var (
	pngHead  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpegHead = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	gifHead  = []byte("GIF89a\x01\x00\x01\x00")
	webpHead = []byte("RIFF\x24\x00\x00\x00WEBPVP8 ")
)

func TestSniffAndNamed(t *testing.T) {
	t.Parallel()
	for content, want := range map[string]string{string(pngHead): "image/png", string(jpegHead): "image/jpeg", string(gifHead): "image/gif",
		string(webpHead): "image/webp", "hello": "", "BM\x00\x00": ""} {
		if got := Sniff([]byte(content)); got != want {
			t.Errorf("Sniff(%q) = %q, want %q", content, got, want)
		}
	}
	for name, want := range map[string]bool{"a.png": true, "A.JPG": true, "b.jpeg": true, "c.gif": true, "d.webp": true, "e.bmp": false, "png": false, "f.png.txt": false} {
		if Named(name) != want {
			t.Errorf("Named(%q) = %v", name, !want)
		}
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	im, err := Read(write("shot.png", pngHead))
	if err != nil || im.MediaType != "image/png" || im.Name != "shot.png" || im.Data != base64.StdEncoding.EncodeToString(pngHead) || im.Size() != len(pngHead) {
		t.Fatalf("Read = %+v, %v", im, err)
	}
	// The content decides the type, not the name.
	if im, err := Read(write("really-a-jpeg.png", jpegHead)); err != nil || im.MediaType != "image/jpeg" {
		t.Errorf("mislabelled jpeg: %+v, %v", im, err)
	}
	cases := []struct{ path, want string }{
		{write("notes.png", []byte("some text")), "image " + filepath.Join(dir, "notes.png") + ": not an image: its content is text/plain, not png, jpeg, gif or webp"},
		{filepath.Join(dir, "missing.png"), "image " + filepath.Join(dir, "missing.png") + ": no such file"},
		{dir, "image " + dir + ": it is a directory; name an image file"},
	}
	for _, c := range cases {
		if _, err := Read(c.path); err == nil || err.Error() != c.want {
			t.Errorf("Read(%s) = %v\nwant %s", c.path, err, c.want)
		}
	}
	if _, err := Read(cases[0].path); !errors.Is(err, ErrNotImage) {
		t.Errorf("a text file's error is not ErrNotImage: %v", err)
	}
	big, err := os.Create(filepath.Join(dir, "big.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(MaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	if _, err := Read(big.Name()); err == nil || !strings.Contains(err.Error(), "20 MB is over the 20 MB any provider takes") {
		t.Errorf("a file over the limit: %v", err)
	}
}

func TestSizeAndChip(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0 B", 812: "812 B", 2048: "2 KB", 186_000: "182 KB", 3 << 20: "3 MB", 2_516_582: "2.4 MB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
	im := agent.Image{MediaType: "image/webp", Data: base64.StdEncoding.EncodeToString(make([]byte, 2048)), Name: "w.webp"}
	if got := Chip(im); got != "w.webp (webp, 2 KB)" {
		t.Errorf("Chip = %q", got)
	}
}

// What a terminal pastes for a dropped file, and what is not a path.
func TestUnquoteAndPastedPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "my shot (1).png")
	if err := os.WriteFile(p, pngHead, 0o600); err != nil {
		t.Fatal(err)
	}
	escaped := strings.NewReplacer(" ", `\ `, "(", `\(`, ")", `\)`).Replace(p)
	for _, in := range []string{p + "\n", "'" + p + "'", `"` + p + `"`, escaped, "file://" + escaped} {
		if got, ok := PastedPath(in); !ok || got != p {
			t.Errorf("PastedPath(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"look at " + p, filepath.Join(dir, "other.png"), filepath.Join(dir, "notes.txt"), "", "'unterminated.png"} {
		if got, ok := PastedPath(in); ok {
			t.Errorf("PastedPath(%q) = %q", in, got)
		}
	}
	for in, want := range map[string]string{"/nowhere/x.webp": "/nowhere/x.webp", "/no where/x y.png": "/no where/x y.png",
		`/no\ where/x.png`: "/no where/x.png", "see x.png": "", "/a.png\n/b.png": ""} {
		if got, ok := Unquote(in); got != want || ok != (want != "") {
			t.Errorf("Unquote(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
