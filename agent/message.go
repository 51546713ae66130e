// Package agent is the provider-neutral core: the message model, the turn
// loop, tool dispatch and the event stream. It never imports a provider
// package and never sees a provider's field names; provider-specific blocks
// travel as opaque Raw parts tagged with the provider and API that made them.
package agent

import (
	"encoding/json"
	"strings"

	"github.com/agent-dev/agent/tools"
)

// Role is who authored a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// PartType is the closed set of message part kinds.
type PartType string

const (
	PartText         PartType = "text"
	PartToolCall     PartType = "tool_call"
	PartToolResult   PartType = "tool_result"
	PartSearchCall   PartType = "search_call"
	PartSearchResult PartType = "search_result"
	PartServerTool   PartType = "server_tool"
	PartRaw          PartType = "raw"
	// PartImage is an image the user attached to a prompt (@file.png,
	// --image); each adapter renders it as its API's image input.
	PartImage PartType = "image"
	// PartReasoning is the model's thinking or reasoning summary as it
	// streamed to the user, kept so a resumed session shows it. No adapter
	// sends it back: a provider replays its own reasoning from the Raw part.
	PartReasoning PartType = "reasoning"
)

// Where a tool search ran.
const (
	WhereProvider = "provider"
	WhereClient   = "client"
)

// Message is one entry of the conversation history.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
	// Interrupted marks a message cut off mid-stream (cancel, crash, stream error).
	Interrupted bool `json:"interrupted,omitempty"`
}

// Part is one typed piece of a message. Exactly one payload field is set,
// matching Type.
type Part struct {
	Type         PartType      `json:"type"`
	Text         string        `json:"text,omitempty"`
	ToolCall     *ToolCall     `json:"tool_call,omitempty"`
	ToolResult   *ToolResult   `json:"tool_result,omitempty"`
	SearchCall   *SearchCall   `json:"search_call,omitempty"`
	SearchResult *SearchResult `json:"search_result,omitempty"`
	ServerTool   *ServerTool   `json:"server_tool,omitempty"`
	Raw          *Raw          `json:"raw,omitempty"`
	Image        *Image        `json:"image,omitempty"`
	// Hook marks a text part of a user message that a hook added (a
	// UserPromptSubmit or SessionStart hook's context): the model reads
	// it with the prompt, but the user did not type it, and a resumed
	// session shows it as the hook's.
	Hook bool `json:"hook,omitempty"`
}

// ToolCall is a model's request to run a local (client-executed) tool.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolResult answers a ToolCall (or a client-side SearchCall, see SearchResult).
type ToolResult struct {
	CallID  string  `json:"call_id"`
	Name    string  `json:"name,omitempty"`
	Text    string  `json:"text"`
	Images  []Image `json:"images,omitempty"`
	IsError bool    `json:"is_error,omitempty"`
}

// Image is binary content: returned by a tool (in a ToolResult) or
// attached by the user (a PartImage part).
type Image struct {
	MediaType string `json:"media_type"`
	Data      string `json:"data"` // base64
	// Name is the file the user attached it from (its base name), shown in
	// transcripts instead of the bytes; tools' images have none.
	Name string `json:"name,omitempty"`
}

// Size is the decoded size of the image in bytes.
func (im Image) Size() int {
	n := len(im.Data) / 4 * 3
	switch {
	case strings.HasSuffix(im.Data, "=="):
		n -= 2
	case strings.HasSuffix(im.Data, "="):
		n--
	}
	return n
}

// Input is what the user sends in one turn: the prompt's text and the
// images attached to it.
type Input struct {
	Text   string
	Images []Image
}

// Parts are the parts of the user message the input makes: the text,
// then each image.
func (in Input) Parts() []Part {
	var out []Part
	if in.Text != "" {
		out = append(out, TextPart(in.Text))
	}
	for _, im := range in.Images {
		out = append(out, ImagePart(im))
	}
	return out
}

// SearchCall is a tool search the model asked for. Where tells whether the
// provider runs it (native search) or the agent does (client-side search).
// The type lives in tools so that the search engine needs nothing of the
// core.
type SearchCall = tools.SearchCall

// SearchResult carries the tools a search discovered. For provider searches it
// sits in the assistant message (or, when the provider split the pair, at the
// start of the next one); for client searches the agent appends it in the
// following user message as the answer to the SearchCall.
type SearchResult struct {
	CallID string   `json:"call_id"`
	Where  string   `json:"where"`
	Tools  []string `json:"tools"`
	Error  string   `json:"error,omitempty"`
}

// ServerTool is a provider-hosted tool call (web search, code execution,
// remote MCP) that ran inside the provider's own request.
type ServerTool struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	Sources []Source        `json:"sources,omitempty"`
	// Pending is set when the provider waits for the user's approval.
	Pending bool `json:"pending,omitempty"`
	// Approved is the user's answer to a pending call (set on the part
	// that answers it; the adapter renders it in its API's words).
	Approved *bool `json:"approved,omitempty"`
}

// Source is a web source cited by an answer.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Raw carries a provider's own blocks verbatim so they can be replayed
// byte for byte to the provider and API that produced them, and only to it.
type Raw struct {
	Provider string          `json:"provider"`
	API      string          `json:"api"`
	Data     json.RawMessage `json:"data"`
}

// Text joins the message's text parts.
func (m Message) Text() string {
	var s string
	for _, p := range m.Parts {
		if p.Type == PartText {
			s += p.Text
		}
	}
	return s
}

// RawFor returns the message's raw payload for provider and api, if any.
func (m Message) RawFor(provider, api string) *Raw {
	for _, p := range m.Parts {
		if p.Type == PartRaw && p.Raw != nil && p.Raw.Provider == provider && p.Raw.API == api {
			return p.Raw
		}
	}
	return nil
}

// TextPart, and friends, build parts.
func TextPart(s string) Part { return Part{Type: PartText, Text: s} }

func ToolCallPart(c ToolCall) Part { return Part{Type: PartToolCall, ToolCall: &c} }

func ToolResultPart(r ToolResult) Part { return Part{Type: PartToolResult, ToolResult: &r} }

func SearchCallPart(c SearchCall) Part { return Part{Type: PartSearchCall, SearchCall: &c} }

func SearchResultPart(r SearchResult) Part { return Part{Type: PartSearchResult, SearchResult: &r} }

func ServerToolPart(s ServerTool) Part { return Part{Type: PartServerTool, ServerTool: &s} }

func ImagePart(im Image) Part { return Part{Type: PartImage, Image: &im} }

func RawPart(provider, api string, data json.RawMessage) Part {
	return Part{Type: PartRaw, Raw: &Raw{Provider: provider, API: api, Data: data}}
}
