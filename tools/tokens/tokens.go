// Package tokens estimates token counts offline with tiktoken's o200k_base
// encoding (its ranks ship inside the binary). The figures are estimates:
// each provider tokenizes differently; the benchmark and the status bar use
// the same method so they agree with each other.
package tokens

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

var (
	once   sync.Once
	enc    *tiktoken.Tiktoken
	err    error
	loaded atomic.Bool
)

// Loaded reports whether this process has loaded the o200k tables (about
// 35 MB once decoded). A -p turn never should: counts are made when
// something asks for them (agent tools, the status bar), and a test holds
// print mode to that.
func Loaded() bool { return loaded.Load() }

func encoding() (*tiktoken.Tiktoken, error) {
	once.Do(func() {
		loaded.Store(true)
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		enc, err = tiktoken.GetEncoding("o200k_base")
	})
	return enc, err
}

// Count returns the o200k token count of s, or a bytes/4 estimate if the
// encoding cannot load.
func Count(s string) int {
	e, err := encoding()
	if err != nil {
		return (len(s) + 3) / 4
	}
	return len(e.Encode(s, nil, nil))
}

// ToolDef is the part of a tool definition that costs tokens.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
}

// Tool counts one definition as it is sent: its JSON.
func Tool(name, description string, schema json.RawMessage) int {
	b, _ := json.Marshal(ToolDef{Name: name, Description: description, Schema: schema})
	return CountCached(string(b))
}
