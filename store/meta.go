package store

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agent-dev/agent/agent"
)

// SessionMeta describes a session: who it talks to and the settings that
// shape its requests, so a resume can rebuild the same tools array.
type SessionMeta struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created_at"`
	Updated  time.Time `json:"updated_at"`
	Workdir  string    `json:"workdir"`
	Provider string    `json:"provider"`
	API      string    `json:"api,omitempty"`
	Model    string    `json:"model"`
	Settings Settings  `json:"settings"`
}

// Settings are what shapes a request besides the history. They are
// sanitised before storing: no API key or header value ever reaches the file.
type Settings struct {
	Search        agent.SearchMode     `json:"search,omitempty"`
	SearchAlgo    string               `json:"search_algo,omitempty"`
	Defer         string               `json:"defer,omitempty"`
	DeferTools    []string             `json:"defer_tools,omitempty"`
	MCPServers    []string             `json:"mcp_servers,omitempty"`
	ProviderTools []agent.ProviderTool `json:"provider_tools,omitempty"`
	System        string               `json:"system,omitempty"`
	MaxTokens     int                  `json:"max_tokens,omitempty"`
	NoStream      bool                 `json:"no_stream,omitempty"`
	FallbackModel string               `json:"fallback_model,omitempty"`
	// Agent is the agent profile the session runs (restored on resume).
	Agent string `json:"agent,omitempty"`
	// Extra holds anything else a caller wants back on resume.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// sanitized returns the settings as stored: credentials redacted.
func (s Settings) sanitized(environ []string) (json.RawMessage, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode settings: %w", err)
	}
	return sanitizeJSON(b, environ), nil
}

// idEncoding is lower-case base32 without padding: readable, unambiguous
// in a terminal and safe in a file name.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewID returns a random 8-character session id (40 bits).
func NewID() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return idEncoding.EncodeToString(b[:])
}

// titleFrom makes a one-line title of at most 80 characters from user text.
func titleFrom(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	const max = 80
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:max-1])) + "…"
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v) }
