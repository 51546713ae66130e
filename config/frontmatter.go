package config

import (
	"strconv"
	"strings"
)

// SplitFrontMatter splits a Markdown file with YAML front matter (agent
// profiles, custom commands): "---", the front matter, "---", then the
// body. A file that does not open with "---" has no front matter (ok
// false, body the whole text). A front matter never closed is an error
// the caller reports on line 1. A BOM and CRLF line ends are read too.
func SplitFrontMatter(b []byte) (front, body string, ok bool, closed bool) {
	text := strings.ReplaceAll(strings.TrimPrefix(string(b), "\ufeff"), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return "", text, false, true
	}
	rest := text[len("---\n"):]
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, " \t") == "---" {
			body = rest[off:]
			if i := strings.IndexByte(body, '\n'); i >= 0 {
				body = body[i+1:]
			} else {
				body = ""
			}
			return rest[:off], body, true, true
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return "", "", true, false
}

// YAMLErrLine pulls the line out of a yaml error ("yaml: line 3: ...").
func YAMLErrLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				return n, strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return 0, msg
}
