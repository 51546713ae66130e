package store

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"reflect"
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
	// ParentID is the session whose run_agent call ran this one (a
	// subagent's session), "" for a session of its own.
	ParentID string `json:"parent_session_id,omitempty"`
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
	// Servers are the definitions of the MCP servers the session ran with,
	// so a resume elsewhere brings them back or names them.
	Servers []MCPServerDef `json:"servers,omitempty"`
	// Extra holds anything else a caller wants back on resume.
	Extra map[string]json.RawMessage `json:"extra,omitempty"`
}

// MCPServerDef is an MCP server as a session remembers it: how to start
// or reach it, and the names (never the values) of the environment
// variables and headers it was given.
type MCPServerDef struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	// URL is kept without its query, which may carry a credential;
	// HasQuery says one was dropped.
	URL      string   `json:"url,omitempty"`
	HasQuery bool     `json:"has_query,omitempty"`
	Env      []string `json:"env_names,omitempty"`
	Headers  []string `json:"header_names,omitempty"`
	// Source is the file that defined it (or "preset").
	Source string `json:"source,omitempty"`
	// Protocol and Start are the server's "protocol" and "start" settings,
	// so a server brought back from here is spoken to and started as it
	// was configured (empty in sessions stored before they were kept: the
	// defaults).
	Protocol string `json:"protocol,omitempty"`
	Start    string `json:"start,omitempty"`
}

// sanitized returns the settings as stored: credentials redacted.
func (s Settings) sanitized(environ []string) (json.RawMessage, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode settings: %w", err)
	}
	return sanitizeJSON(b, environ), nil
}

// decodeSettings decodes stored settings into new ones, sharing no memory
// with any caller's.
func decodeSettings(b json.RawMessage) (Settings, error) {
	var s Settings
	err := json.Unmarshal(b, &s)
	return s, err
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

// Value returns the stored setting called key (its config key): from its
// own field when Settings has one, from Extra otherwise; nil when unset.
func (s Settings) Value(key string) json.RawMessage {
	if f, ok := settingField(key); ok {
		v := reflect.ValueOf(s).FieldByIndex(f)
		if v.IsZero() {
			return nil
		}
		b, err := json.Marshal(v.Interface())
		if err != nil {
			return nil
		}
		return b
	}
	return s.Extra[key]
}

// SetValue stores the setting called key (its config key): in its own
// field when Settings has one, in Extra otherwise.
func (s *Settings) SetValue(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("store setting %s: %w", key, err)
	}
	if f, ok := settingField(key); ok {
		return json.Unmarshal(b, reflect.ValueOf(s).Elem().FieldByIndex(f).Addr().Interface())
	}
	if s.Extra == nil {
		s.Extra = map[string]json.RawMessage{}
	}
	s.Extra[key] = b
	return nil
}

// settingField finds the field of Settings stored under key.
func settingField(key string) ([]int, bool) {
	t := reflect.TypeOf(Settings{})
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name == key && key != "extra" {
			return []int{i}, true
		}
	}
	return nil, false
}
