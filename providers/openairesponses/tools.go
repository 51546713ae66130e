package openairesponses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/models"
)

// Names of the two functions of the function-based client search, used on
// models without tool_search (the same pair as the Chat Completions adapter).
const (
	fnSearchName = "tool_search"
	fnCallName   = "tool_call"
)

// SupportsToolSearch reports whether model takes tool_search (hosted and
// client-executed) by the models table, with override (exact model id, or
// a prefix ending in "*") forcing the answer.
func SupportsToolSearch(model string, override map[string]bool) bool {
	t, err := (*models.Table)(nil).WithNativeSearch(override)
	if err != nil {
		return models.Lookup("openai", model).NativeSearch
	}
	return t.Lookup("openai", model).NativeSearch
}

// plan is the per-request rendering decision derived from the resolved mode.
type plan struct {
	mode agent.SearchMode
	// hosted: {"type":"tool_search"} and namespaces of deferred functions.
	hosted bool
	// clientTS: {"type":"tool_search","execution":"client"} alone, as OpenAI
	// documents it and Codex sends it: no deferred definition goes out, and
	// each tool_search_output carries the found tools' full definitions
	// inside their namespaces, so the request's size does not depend on
	// the catalog's.
	clientTS bool
	// fnSearch: client search through plain tool_search/tool_call functions,
	// for models without tool_search; deferred tools are not sent at all.
	fnSearch bool
	// groups are the namespaces of the deferred definitions (hosted or
	// clientTS; only hosted sends them in the tools array, clientTS loads
	// them by tool_search_output); nsOf maps a deferred tool to its
	// namespace.
	groups []namespaceGroup
	nsOf   map[string]string
	// catalog holds every deferred definition by name, whatever the mode.
	catalog map[string]agent.ToolDef
	// topLevel holds the names of the functions in the default namespace.
	topLevel map[string]bool
	// store mirrors Options.Store: stored reasoning items replay by id.
	store bool
	// reasoning: the model takes reasoning items back (with their
	// encrypted content); a model that does not rejects them.
	reasoning bool
}

func (p *Provider) plan(req *agent.Request, mode agent.SearchMode) plan {
	caps := p.caps(req.Model)
	// Sized up front: grown from empty, the maps of thousands of deferred
	// tools were rehashed several times on every request.
	pl := plan{mode: mode, store: p.opts.Store, catalog: make(map[string]agent.ToolDef, len(req.Deferred)), topLevel: make(map[string]bool, len(req.Tools)+2),
		reasoning: caps.Reasoning == models.ReasoningEffort && caps.EncryptedReasoning}
	for _, d := range req.Deferred {
		pl.catalog[d.Name] = d
	}
	for _, t := range req.Tools {
		pl.topLevel[t.Name] = true
	}
	switch mode {
	case agent.SearchNative:
		pl.hosted = true
	case agent.SearchClient:
		if caps.DeferLoading {
			pl.clientTS = true
		} else {
			pl.fnSearch = true
			pl.topLevel[fnSearchName], pl.topLevel[fnCallName] = true, true
		}
	default:
		for _, d := range req.Deferred {
			pl.topLevel[d.Name] = true
		}
	}
	if pl.hosted || pl.clientTS {
		pl.groups = groupDeferred(req.Deferred, pl.topLevel)
		pl.nsOf = make(map[string]string, len(req.Deferred))
		for _, g := range pl.groups {
			for _, t := range g.Tools {
				pl.nsOf[t.Name] = g.Name
			}
		}
	}
	return pl
}

// functionTool is a function definition. Field order is fixed so the tools
// array is byte-identical on every request. strict is sent as false: the
// Responses API defaults it to true, which rejects most MCP schemas.
type functionTool struct {
	Type         string          `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	Parameters   json.RawMessage `json:"parameters"`
	Strict       bool            `json:"strict"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

func fnDef(d agent.ToolDef, deferLoading bool) functionTool {
	params := d.Schema
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return functionTool{Type: "function", Name: d.Name, Description: d.Description, Parameters: params, DeferLoading: deferLoading}
}

type clientSearchTool struct {
	Type        string          `json:"type"`
	Execution   string          `json:"execution"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

const searchDescription = "Search the catalog of additional tools that are not loaded yet. Describe the capability you need in a few keywords; the matching tools become callable."

var searchParams = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Keywords describing the tool you need, or select:NAME,NAME to load tools by exact name."},"limit":{"type":"integer","description":"Maximum number of tools to return (default 5).","minimum":1}},"required":["query"],"additionalProperties":false}`)

var toolCallParams = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Exact name of a tool returned by tool_search."},"arguments":{"type":"object","description":"Arguments for that tool, matching its input schema."}},"required":["name","arguments"]}`)

// renderTools renders the tools array. It is a pure function of the tool
// definitions, the plan, the provider tools and the model, so it does not
// change while a conversation goes on. With tool_search, deferred tools are
// sent as namespaces of deferred functions (see namespaces.go).
func renderTools(req *agent.Request, pl plan) ([]byte, error) {
	var out []any
	for _, t := range req.Tools {
		out = append(out, fnDef(t, false))
	}
	if pl.mode == agent.SearchOff {
		for _, t := range req.Deferred {
			out = append(out, fnDef(t, false))
		}
	}
	pts, err := renderProviderTools(req.ProviderTools)
	if err != nil {
		return nil, err
	}
	for _, pt := range pts {
		if !pl.hosted {
			// A hosted MCP server's tools defer behind hosted tool_search
			// only: without it, defer_loading would hide them for good.
			pt = withoutKey(pt, "defer_loading")
		}
		out = append(out, pt)
	}
	switch {
	case pl.hosted:
		out = append(out, json.RawMessage(`{"type":"tool_search"}`))
	case pl.clientTS:
		out = append(out, clientSearchTool{Type: "tool_search", Execution: "client", Description: req.WithDirectory(searchDescription), Parameters: searchParams})
	case pl.fnSearch:
		out = append(out,
			functionTool{Type: "function", Name: fnSearchName, Description: req.WithDirectory(searchDescription + " Returns the tools' names, descriptions and input schemas; call one with tool_call."), Parameters: searchParams},
			functionTool{Type: "function", Name: fnCallName, Description: "Call a tool found by tool_search, by exact name, with its arguments.", Parameters: toolCallParams})
	}
	if pl.hosted {
		for _, g := range pl.groups {
			out = append(out, g.def())
		}
	}
	if out == nil {
		return []byte("[]"), nil
	}
	// One buffer sized for the whole array, each element encoded into it
	// (the bytes json.Marshal(out) gives): Marshal would grow its buffer by
	// doubling and copy the result once more, three times the array's size
	// at thousands of deferred tools.
	size := 2
	sent := [][]agent.ToolDef{req.Tools}
	if pl.hosted || pl.mode == agent.SearchOff {
		sent = append(sent, req.Deferred)
	}
	for _, ds := range sent {
		for _, d := range ds {
			// The keys, type, strict and defer_loading of a function.
			size += len(d.Name) + len(d.Description) + len(d.Schema) + 128
		}
	}
	for _, pt := range pts {
		size += len(pt) + 1
	}
	size += 1024 * (len(pl.groups) + 2) // namespaces' and search tools' own text
	var b bytes.Buffer
	b.Grow(size)
	enc := json.NewEncoder(&b)
	b.WriteByte('[')
	for i, v := range out {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(v); err != nil {
			return nil, fmt.Errorf("encode tools: %w", err)
		}
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// SupportedAliases lists the provider-tool aliases this adapter maps.
func SupportedAliases() []string { return []string{"code_execution", "mcp", "web_search"} }

// ValidateProviderTools checks aliases and options before any request.
func ValidateProviderTools(pts []agent.ProviderTool) error {
	_, err := renderProviderTools(pts)
	return err
}

// renderProviderTools maps aliases to OpenAI's hosted tool types; a raw
// definition passes through unchanged. An alias given twice keeps its first
// position and its last options.
func renderProviderTools(pts []agent.ProviderTool) ([]json.RawMessage, error) {
	var out []json.RawMessage
	pos := map[string]int{}
	for _, pt := range pts {
		if len(bytes.TrimSpace(pt.Raw)) > 0 {
			var buf bytes.Buffer
			if err := json.Compact(&buf, pt.Raw); err != nil {
				return nil, fmt.Errorf("provider tool: raw definition is not valid JSON: %w", err)
			}
			out = append(out, buf.Bytes())
			continue
		}
		def, err := aliasDef(pt.Alias, pt.Options)
		if err != nil {
			return nil, err
		}
		if i, ok := pos[pt.Alias]; ok {
			out[i] = def
			continue
		}
		pos[pt.Alias] = len(out)
		out = append(out, def)
	}
	return out, nil
}

func aliasDef(alias string, opts json.RawMessage) (json.RawMessage, error) {
	o := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(opts)) > 0 {
		if err := json.Unmarshal(opts, &o); err != nil {
			return nil, fmt.Errorf("provider tool %s: options must be a JSON object: %w", alias, err)
		}
	}
	switch alias {
	case "web_search":
		// allowed_domains is accepted at the top level for symmetry with
		// Anthropic and moved to where OpenAI wants it.
		if ad, ok := o["allowed_domains"]; ok {
			f := map[string]json.RawMessage{}
			if raw, ok := o["filters"]; ok {
				if err := json.Unmarshal(raw, &f); err != nil {
					return nil, fmt.Errorf("provider tool web_search: filters: %w", err)
				}
			}
			f["allowed_domains"] = ad
			o["filters"], _ = json.Marshal(f)
			delete(o, "allowed_domains")
		}
		o["type"] = json.RawMessage(`"web_search"`)
	case "code_execution":
		o["type"] = json.RawMessage(`"code_interpreter"`)
		if _, ok := o["container"]; !ok {
			o["container"] = json.RawMessage(`{"type":"auto"}`)
		}
	case "mcp":
		rename := map[string]string{"name": "server_label", "url": "server_url", "description": "server_description"}
		for from, to := range rename {
			if v, ok := o[from]; ok {
				if _, set := o[to]; !set {
					o[to] = v
				}
				delete(o, from)
			}
		}
		if raw, ok := o["token_env"]; ok {
			var env string
			if err := json.Unmarshal(raw, &env); err != nil {
				return nil, fmt.Errorf("provider tool mcp: token_env must be a string")
			}
			tok := os.Getenv(env)
			if tok == "" {
				return nil, fmt.Errorf("provider tool mcp: environment variable %s is empty", env)
			}
			o["authorization"], _ = json.Marshal(tok)
			delete(o, "token_env")
		}
		if _, ok := o["server_label"]; !ok {
			return nil, fmt.Errorf("provider tool mcp: options need a name (server_label)")
		}
		if _, ok := o["server_url"]; !ok {
			if _, conn := o["connector_id"]; !conn {
				return nil, fmt.Errorf("provider tool mcp: options need a url (server_url)")
			}
		}
		o["type"] = json.RawMessage(`"mcp"`)
	case "":
		return nil, fmt.Errorf("provider tool: neither an alias nor a raw definition")
	default:
		return nil, fmt.Errorf("provider tool %q is not supported by OpenAI Responses; available aliases: %s (or pass a raw JSON definition)",
			alias, strings.Join(SupportedAliases(), ", "))
	}
	return marshalTypeFirst(o)
}

// marshalTypeFirst writes "type" first, then the other keys sorted, so the
// definition is stable and reads like the documentation.
func marshalTypeFirst(o map[string]json.RawMessage) (json.RawMessage, error) {
	keys := make([]string, 0, len(o))
	for k := range o {
		if k != "type" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	b.Write(o["type"])
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		var vb bytes.Buffer
		if err := json.Compact(&vb, o[k]); err != nil {
			return nil, fmt.Errorf("provider tool option %s: %w", k, err)
		}
		b.Write(vb.Bytes())
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// withoutKey drops a top-level key of a JSON object, keeping the rest as
// it was (a raw definition without the key is returned unchanged).
func withoutKey(def json.RawMessage, key string) json.RawMessage {
	if !bytes.Contains(def, []byte(`"`+key+`"`)) {
		return def
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(def, &o) != nil {
		return def
	}
	if _, ok := o[key]; !ok {
		return def
	}
	delete(o, key)
	b, err := json.Marshal(o)
	if err != nil {
		return def
	}
	return b
}
