// Package demo is the offline demo of the program: a scripted local model
// (an agent.Provider that searches the catalog, calls the best tool it found
// and answers in Markdown) and a bundled catalog of synthetic tools with a
// local executor. `agent --demo` runs the real TUI, agent loop, search engine
// and store over it, so nobody needs an API key to see tool search at work.
// It is never a stand-in for a provider in any other code path.
package demo

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agent-dev/agent/tools"
)

//go:generate go run ./internal/gencatalog -o catalog.json

//go:embed catalog.json
var catalogJSON []byte

// Note is what the status bar shows while the demo runs.
const Note = "demo: scripted local model"

// Model is the only model the scripted provider answers as.
const Model = "scripted-1"

// Prompts are suggestions that each lead to a search, a call and an answer.
var Prompts = []string{
	"What's the weather in Lisbon this week?",
	"Convert 250 EUR to USD",
	"How far is Paris from Berlin?",
	"List my open tickets in the tracker",
	"Calculate (17 + 25) * 3",
}

// Options tune the demo.
type Options struct {
	// WordDelay is the pause between streamed words, so the stream is
	// visible; 0 picks 15ms, a negative value streams without pauses (tests).
	WordDelay time.Duration
}

// Kit is what the lead needs to build a session.
type Kit struct {
	Provider *Provider
	Model    string
	// Tools are the catalog with executors; Deferred is set per tool (a few
	// are active, the rest are found by search).
	Tools  []tools.Tool
	System string
	Note   string
}

// CatalogTool is one entry of the bundled catalog.
type CatalogTool struct {
	Server            string          `json:"server"`
	ServerDescription string          `json:"server_description"`
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	InputSchema       json.RawMessage `json:"inputSchema"`
	Deferred          bool            `json:"deferred"`
}

// Catalog returns the bundled catalog.
func Catalog() ([]CatalogTool, error) {
	var cat []CatalogTool
	if err := json.Unmarshal(catalogJSON, &cat); err != nil {
		return nil, fmt.Errorf("decode demo catalog: %w", err)
	}
	return cat, nil
}

// New builds the demo kit.
func New(opts Options) (*Kit, error) {
	cat, err := Catalog()
	if err != nil {
		return nil, err
	}
	if opts.WordDelay == 0 {
		opts.WordDelay = 15 * time.Millisecond
	}
	fs := newMemFS()
	ts := make([]tools.Tool, 0, len(cat))
	for _, c := range cat {
		ts = append(ts, tools.Tool{
			Name: c.Name, Description: c.Description, Schema: c.InputSchema,
			Server: c.Server, ServerDescription: c.ServerDescription, Deferred: c.Deferred,
			Exec: executor(c, fs),
		})
	}
	return &Kit{
		Provider: &Provider{delay: opts.WordDelay},
		Model:    Model,
		Tools:    ts,
		System:   "You are the scripted demo model of agent.",
		Note:     Note,
	}, nil
}
