package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxNameLen is the longest tool name every provider accepts
// (^[a-zA-Z0-9_-]{1,64}$ is OpenAI's rule, the strictest).
const MaxNameLen = 64

// maxPrefixLen keeps long server names from eating the tool's part.
const maxPrefixLen = 32

// ToolName is the name a server's tool gets in the agent: "<server>__<tool>",
// valid for every provider, the same on every run, and distinct for distinct
// (server, tool) pairs.
//
// The server part never contains "__" nor ends in "_", so the first "__"
// separates the two parts and names built from valid parts cannot collide.
// Whatever had to be changed (invalid characters, length) is replaced by a
// short hash of the original, which keeps lossy names apart too.
func ToolName(server, tool string) string {
	name := ServerPrefix(server) + "__" + toolPart(server, tool)
	if len(name) > MaxNameLen {
		h := shortHash(server+"\x00"+tool, 8)
		name = strings.TrimRight(name[:MaxNameLen-len(h)-1], "_") + "_" + h
	}
	return name
}

// ServerPrefix is the server's part of its tools' names.
func ServerPrefix(server string) string {
	p := sanitize(server)
	for strings.Contains(p, "__") {
		p = strings.ReplaceAll(p, "__", "_")
	}
	p = strings.Trim(p, "_")
	if p == "" {
		p = "mcp"
	}
	if p != server || len(p) > maxPrefixLen {
		h := shortHash(server, 4)
		p = strings.TrimRight(p[:min(len(p), maxPrefixLen-len(h)-1)], "_") + "-" + h
	}
	return p
}

func toolPart(server, tool string) string {
	t := sanitize(tool)
	if t != tool || t == "" {
		t += "_" + shortHash(server+"\x00"+tool, 6)
	}
	return t
}

// sanitize replaces every character a provider rejects with "_".
func sanitize(s string) string {
	if validChars(s) {
		return s // most names: no copy (ToolName runs for every tool on every start)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// validChars reports whether every byte of s is one sanitize keeps.
func validChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func shortHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

// ValidName reports whether name is a valid provider tool name.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > MaxNameLen {
		return false
	}
	return sanitize(name) == name
}
