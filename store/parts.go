package store

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/agent-dev/agent/agent"
)

// storedPart is how a part is kept in parts.json. encoding/json compacts
// (and HTML-escapes) json.RawMessage values, so the payloads a provider may
// replay (tool inputs, server tool inputs and results) are kept as strings
// holding their exact bytes; the shallower fields shadow agent.Part's. The
// Raw payload lives in its own columns and is shadowed out of the JSON.
//
// An image the user attached keeps its bytes, decoded, in the raw column
// (with no raw provider): once per message, a third smaller than its
// base64, and never in the JSON a listing reads.
type storedPart struct {
	agent.Part
	ToolCall   *storedToolCall   `json:"tool_call,omitempty"`
	ServerTool *storedServerTool `json:"server_tool,omitempty"`
	Raw        *struct{}         `json:"raw,omitempty"`
	Image      *storedImage      `json:"image,omitempty"`
}

type storedImage struct {
	MediaType string `json:"media_type"`
	Name      string `json:"name,omitempty"`
}

type storedToolCall struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input string `json:"input"`
}

type storedServerTool struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Input   string         `json:"input,omitempty"`
	Result  string         `json:"result,omitempty"`
	IsError bool           `json:"is_error,omitempty"`
	Sources []agent.Source `json:"sources,omitempty"`
	Pending bool           `json:"pending,omitempty"`
}

// partRow is one row of the parts table.
type partRow struct {
	typ         string
	text        *string // text parts only
	json        []byte  // nil for text and raw parts
	rawProvider any     // nil or string
	rawAPI      any
	raw         []byte
}

func encodePart(p agent.Part) (partRow, error) {
	switch {
	case p.Type == agent.PartText && p == agent.TextPart(p.Text):
		return partRow{typ: string(p.Type), text: &p.Text}, nil
	case p.Type == agent.PartRaw && p.Raw != nil && p == (agent.Part{Type: agent.PartRaw, Raw: p.Raw}):
		// A non-nil empty slice so a present-but-empty payload is not NULL.
		return partRow{typ: string(p.Type), rawProvider: p.Raw.Provider, rawAPI: p.Raw.API, raw: append([]byte{}, p.Raw.Data...)}, nil
	}
	sp := storedPart{Part: p}
	var imageBytes []byte
	if im := p.Image; im != nil {
		b, err := base64.StdEncoding.DecodeString(im.Data)
		if err != nil {
			return partRow{}, fmt.Errorf("encode image part: %w", err)
		}
		sp.Image = &storedImage{MediaType: im.MediaType, Name: im.Name}
		imageBytes = append([]byte{}, b...)
	}
	if c := p.ToolCall; c != nil {
		sp.ToolCall = &storedToolCall{ID: c.ID, Name: c.Name, Input: string(c.Input)}
	}
	if t := p.ServerTool; t != nil {
		sp.ServerTool = &storedServerTool{ID: t.ID, Name: t.Name, Input: string(t.Input), Result: string(t.Result),
			IsError: t.IsError, Sources: t.Sources, Pending: t.Pending}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sp); err != nil {
		return partRow{}, fmt.Errorf("encode %s part: %w", p.Type, err)
	}
	row := partRow{typ: string(p.Type), json: bytes.TrimRight(buf.Bytes(), "\n"), raw: imageBytes}
	if p.Raw != nil {
		row.rawProvider, row.rawAPI = p.Raw.Provider, p.Raw.API
		row.raw = append([]byte{}, p.Raw.Data...)
	}
	return row, nil
}

func decodePart(typ string, text *string, js []byte, rawProvider, rawAPI *string, raw []byte) (agent.Part, error) {
	var sp storedPart
	switch {
	case js != nil:
		if err := json.Unmarshal(js, &sp); err != nil {
			return agent.Part{}, fmt.Errorf("decode %s part: %w", typ, err)
		}
	case typ == string(agent.PartText) && text != nil:
		return agent.TextPart(*text), nil
	case typ == string(agent.PartRaw) && rawProvider != nil:
		sp.Type = agent.PartRaw
	default:
		return agent.Part{}, fmt.Errorf("decode %s part: no content stored", typ)
	}
	p := sp.Part
	if c := sp.ToolCall; c != nil {
		p.ToolCall = &agent.ToolCall{ID: c.ID, Name: c.Name, Input: rawOrNil(c.Input)}
	}
	if t := sp.ServerTool; t != nil {
		p.ServerTool = &agent.ServerTool{ID: t.ID, Name: t.Name, Input: rawOrNil(t.Input), Result: rawOrNil(t.Result),
			IsError: t.IsError, Sources: t.Sources, Pending: t.Pending}
	}
	if im := sp.Image; im != nil {
		p.Image = &agent.Image{MediaType: im.MediaType, Name: im.Name, Data: base64.StdEncoding.EncodeToString(raw)}
	}
	if rawProvider != nil {
		p.Raw = &agent.Raw{Provider: *rawProvider, Data: json.RawMessage(raw)}
		if rawAPI != nil {
			p.Raw.API = *rawAPI
		}
		if len(raw) == 0 {
			p.Raw.Data = nil // so it encodes as null, not as invalid JSON
		}
	}
	return p, nil
}

func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
