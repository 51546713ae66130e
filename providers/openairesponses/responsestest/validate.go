package responsestest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agent-dev/agent/models"
	"github.com/agent-dev/agent/providers/internal/imagecheck"
)

// parsed is a validated request.
type parsed struct {
	Model  string
	Stream bool
	Store  bool
	Input  []map[string]json.RawMessage
	// Functions in the default namespace.
	Default map[string]json.RawMessage
	// Deferred top-level functions (callable in the namespace of their name)
	// and namespace groups: namespace -> member -> definition.
	Deferred   map[string]json.RawMessage
	Namespaces map[string]map[string]json.RawMessage
	// Loaded holds what tool_search_output items of the input loaded:
	// namespace -> member -> definition, and top-level functions under "".
	Loaded map[string]map[string]json.RawMessage
	// DeferredOrder keeps the request order of searchable definitions.
	DeferredOrder []searchable
	Hosted        bool
	ClientSearch  bool
	WebSearch     bool
	MCP           map[string]bool
	// Approvals maps an mcp_approval_request id to the decision in the input.
	Approvals map[string]bool
	Requests  map[string]map[string]json.RawMessage
	// MaxOutputTokens, Summary and Encrypted are what the request asks of
	// the output: its limit, reasoning summaries, encrypted reasoning.
	MaxOutputTokens int
	Summary         bool
	Encrypted       bool
	// Org is the organization of the request's key: what encrypted
	// reasoning is made for and checked against; Recorded is
	// Server.RecordedContent.
	Org      string
	Recorded bool
}

type searchable struct {
	Path string          // name to put in paths
	Def  json.RawMessage // definition loaded by a search
	Text string          // what is matched
	// For a namespace: its description and deferred members, which a
	// search loads selectively.
	Description string
	Members     []searchable
}

// nameRE is the API's pattern for function and namespace names.
var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func str(r json.RawMessage) string {
	var s string
	_ = json.Unmarshal(r, &s)
	return s
}

func (s *Server) validate(body []byte, org string) (*parsed, *apiErr) {
	var raw struct {
		Model              string            `json:"model"`
		Input              json.RawMessage   `json:"input"`
		Tools              []json.RawMessage `json:"tools"`
		Stream             bool              `json:"stream"`
		Store              *bool             `json:"store"`
		PreviousResponseID string            `json:"previous_response_id"`
		Include            []string          `json:"include"`
		MaxOutputTokens    int               `json:"max_output_tokens"`
		Reasoning          *struct {
			Effort  string `json:"effort"`
			Summary string `json:"summary"`
		} `json:"reasoning"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, bad(nil, "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)")
	}
	if raw.Model == "" {
		return nil, bad("model", "Missing required parameter: 'model'.")
	}
	p := &parsed{Org: org, Recorded: s.RecordedContent, Model: raw.Model, Stream: raw.Stream, Store: raw.Store == nil || *raw.Store,
		Default: map[string]json.RawMessage{}, Deferred: map[string]json.RawMessage{}, Namespaces: map[string]map[string]json.RawMessage{},
		Loaded: map[string]map[string]json.RawMessage{}, MCP: map[string]bool{}, Approvals: map[string]bool{},
		Requests: map[string]map[string]json.RawMessage{}}
	p.MaxOutputTokens = raw.MaxOutputTokens
	if e := s.checkModel(raw.Model, raw.Include, raw.MaxOutputTokens, raw.Reasoning); e != nil {
		return nil, e
	}
	for _, inc := range raw.Include {
		p.Encrypted = p.Encrypted || inc == "reasoning.encrypted_content"
	}
	if raw.Reasoning != nil {
		p.Summary = raw.Reasoning.Summary != ""
	}
	if raw.PreviousResponseID != "" && !p.Store {
		return nil, bad("previous_response_id", "Previous response with id '%s' not found.", raw.PreviousResponseID)
	}
	supports := s.SupportsToolSearch(raw.Model)
	for i, t := range raw.Tools {
		var d struct {
			Type         string            `json:"type"`
			Name         string            `json:"name"`
			Description  string            `json:"description"`
			DeferLoading bool              `json:"defer_loading"`
			Execution    string            `json:"execution"`
			ServerLabel  string            `json:"server_label"`
			Tools        []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(t, &d); err != nil {
			return nil, bad(fmt.Sprintf("tools[%d]", i), "Invalid tool definition.")
		}
		switch d.Type {
		case "tool_search":
			if !supports {
				return nil, bad("tools", "Tool 'tool_search' is not supported with model '%s'.", raw.Model)
			}
			if d.Execution == "client" {
				p.ClientSearch = true
			} else {
				p.Hosted = true
			}
		case "function":
			if e := checkFunction(fmt.Sprintf("tools[%d]", i), t); e != nil {
				return nil, e
			}
			if d.DeferLoading {
				if !supports {
					return nil, bad(fmt.Sprintf("tools[%d].defer_loading", i), "defer_loading is not supported with model '%s'.", raw.Model)
				}
				p.Deferred[d.Name] = t
				p.DeferredOrder = append(p.DeferredOrder, searchable{Path: d.Name, Def: t, Text: d.Name + " " + d.Description})
			} else {
				if _, dup := p.Default[d.Name]; dup {
					return nil, bad("tools", "Duplicate function name '%s' in tools.", d.Name)
				}
				p.Default[d.Name] = t
			}
		case "namespace":
			if d.DeferLoading {
				// "For namespaces, defer_loading applies to the functions
				// inside the namespace, not to the namespace object itself"
				// (the tool search guide); a NamespaceTool has no such field.
				return nil, &apiErr{status: 400, message: fmt.Sprintf("Unknown parameter: 'tools[%d].defer_loading'.", i), param: fmt.Sprintf("tools[%d].defer_loading", i), code: "unknown_parameter"}
			}
			if e := p.addNamespace(i, d.Name, d.Description, d.Tools, supports, raw.Model); e != nil {
				return nil, e
			}
		case "web_search", "web_search_preview":
			p.WebSearch = true
		case "mcp":
			p.MCP[d.ServerLabel] = true
		}
	}
	if p.hasDeferred() && !p.Hosted && !p.ClientSearch {
		return nil, bad("tools", "Tools with defer_loading require a tool_search tool.")
	}
	if err := p.readInput(raw.Input); err != nil {
		return nil, err
	}
	return p, nil
}

// addNamespace validates and records the namespace at tools[i]: a valid
// unique name, a description, and member functions; its deferred members
// are searchable.
func (p *parsed) addNamespace(i int, name, desc string, tools []json.RawMessage, supports bool, model string) *apiErr {
	if !nameRE.MatchString(name) {
		return bad(fmt.Sprintf("tools[%d].name", i), "Invalid 'tools[%d].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.", i)
	}
	if _, dup := p.Namespaces[name]; dup {
		return bad("tools", "Duplicate namespace name '%s' in tools.", name)
	}
	if desc == "" {
		return bad(fmt.Sprintf("tools[%d].description", i), "Missing required parameter: 'tools[%d].description'.", i)
	}
	if len(tools) == 0 {
		return bad(fmt.Sprintf("tools[%d].tools", i), "Missing required parameter: 'tools[%d].tools'.", i)
	}
	members := map[string]json.RawMessage{}
	ns := searchable{Path: name, Description: desc, Text: name + " " + desc}
	for k, m := range tools {
		var md struct {
			Type         string `json:"type"`
			Name         string `json:"name"`
			Description  string `json:"description"`
			DeferLoading bool   `json:"defer_loading"`
		}
		_ = json.Unmarshal(m, &md)
		param := fmt.Sprintf("tools[%d].tools[%d]", i, k)
		if md.Type != "function" && md.Type != "custom" {
			return bad(param+".type", "Invalid value: '%s'. Supported values are: 'function' and 'custom'.", md.Type)
		}
		if md.Type == "function" {
			if e := checkFunction(param, m); e != nil {
				return e
			}
		} else if !nameRE.MatchString(md.Name) {
			return bad(param+".name", "Invalid '%s.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.", param)
		}
		if _, dup := members[md.Name]; dup {
			return bad("tools", "Duplicate function name '%s' in namespace '%s'.", md.Name, name)
		}
		members[md.Name] = m
		if md.DeferLoading {
			if !supports {
				return bad(param+".defer_loading", "defer_loading is not supported with model '%s'.", model)
			}
			text := md.Name + " " + md.Description
			ns.Members = append(ns.Members, searchable{Path: md.Name, Def: m, Text: text})
			ns.Text += " " + text
		}
	}
	p.Namespaces[name] = members
	if len(ns.Members) > 0 {
		p.DeferredOrder = append(p.DeferredOrder, ns)
	}
	return nil
}

func (p *parsed) hasDeferred() bool {
	if len(p.Deferred) > 0 {
		return true
	}
	for _, d := range p.DeferredOrder {
		if len(d.Members) > 0 {
			return true
		}
	}
	return false
}

// checkLoaded validates the tools of the tool_search_output at input[i]
// as the API validates the tools array: they are the definitions that
// become callable (with client search, the only place a deferred tool is
// defined), so a namespace needs a valid name, a description and members,
// and a function a valid name.
func checkLoaded(i int, tools json.RawMessage) *apiErr {
	var ts []struct {
		Type        string `json:"type"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Tools       []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	var raws []struct {
		Tools []json.RawMessage `json:"tools"`
	}
	var self []json.RawMessage
	if json.Unmarshal(tools, &ts) != nil || json.Unmarshal(tools, &raws) != nil || json.Unmarshal(tools, &self) != nil {
		return bad(fmt.Sprintf("input[%d].tools", i), "Invalid type for 'input[%d].tools': expected an array of tools.", i)
	}
	name := func(param, n string) *apiErr {
		if nameRE.MatchString(n) {
			return nil
		}
		return bad(param+".name", "Invalid '%s.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.", param)
	}
	for k, t := range ts {
		param := fmt.Sprintf("input[%d].tools[%d]", i, k)
		switch t.Type {
		case "function":
			if e := checkFunction(param, self[k]); e != nil {
				return e
			}
		case "namespace":
			if e := name(param, t.Name); e != nil {
				return e
			}
			if t.Description == "" {
				return bad(param+".description", "Missing required parameter: '%s.description'.", param)
			}
			if len(t.Tools) == 0 {
				return bad(param+".tools", "Missing required parameter: '%s.tools'.", param)
			}
			for j, m := range t.Tools {
				mp := fmt.Sprintf("%s.tools[%d]", param, j)
				if m.Type != "function" && m.Type != "custom" {
					return bad(mp+".type", "Invalid value: '%s'. Supported values are: 'function' and 'custom'.", m.Type)
				}
				if e := name(mp, m.Name); e != nil {
					return e
				}
				if m.Type == "function" {
					if e := checkFunction(mp, raws[k].Tools[j]); e != nil {
						return e
					}
				}
			}
		case "mcp", "custom":
		default:
			return bad(param+".type", "Invalid value: '%s'. Supported values are: 'function', 'namespace', 'custom' and 'mcp'.", t.Type)
		}
	}
	return nil
}

// callable reports whether the model can call name in this request: a
// function of the tools array (deferred ones once hosted search can load
// them), or one a tool_search_output of the input loaded. With client
// search alone nothing deferred is callable before the client loads it
// ("tools not listed are not available", OpenAI's tool search guide).
func (p *parsed) callable(name string) bool {
	if _, ok := p.Default[name]; ok {
		return true
	}
	for _, m := range p.Loaded {
		if _, ok := m[name]; ok {
			return true
		}
	}
	if p.Hosted {
		return p.inSomeNamespace(name)
	}
	for _, m := range p.Namespaces {
		if d, ok := m[name]; ok && !bytes.Contains(d, []byte(`"defer_loading":true`)) {
			return true
		}
	}
	return false
}

// load records the definitions a tool_search_output makes callable.
func (p *parsed) load(tools json.RawMessage) {
	var ts []struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(tools, &ts)
	add := func(ns, name string) {
		if p.Loaded[ns] == nil {
			p.Loaded[ns] = map[string]json.RawMessage{}
		}
		p.Loaded[ns][name] = nil
	}
	for _, t := range ts {
		switch t.Type {
		case "namespace":
			for _, m := range t.Tools {
				add(t.Name, m.Name)
			}
		case "function":
			add("", t.Name)
		}
	}
}

func (p *parsed) readInput(in json.RawMessage) *apiErr {
	if len(in) > 0 && in[0] == '"' {
		return nil
	}
	if err := json.Unmarshal(in, &p.Input); err != nil {
		return bad("input", "Invalid type for 'input': expected a string or an array of input items.")
	}
	ids := map[string]bool{}
	calls := map[string]bool{}
	var callOrder []string
	answered := map[string]bool{}
	searches := map[string]bool{}
	for i, it := range p.Input {
		typ := str(it["type"])
		if typ == "" && it["role"] != nil {
			typ = "message"
		}
		if id := str(it["id"]); id != "" {
			if ids[id] {
				return bad("input", "Duplicate item found with id %s. Remove duplicate items from your input and try again.", id)
			}
			ids[id] = true
		}
		if e := checkImages(i, it); e != nil {
			return e
		}
		if e := checkCallID(i, it); e != nil {
			return e
		}
		switch typ {
		case "message":
			if str(it["role"]) == "" {
				return bad(fmt.Sprintf("input[%d].role", i), "Missing required parameter: 'input[%d].role'.", i)
			}
		case "function_call":
			// A call's item id is the API's fc_ id; a call_id put there is
			// refused (nodetool-ai/nodetool#4252, Wei-Shaw/sub2api#3785).
			if id := str(it["id"]); id != "" && !strings.HasPrefix(id, "fc") {
				return &apiErr{status: 400, message: fmt.Sprintf("Invalid 'input[%d].id': '%s'. Expected an ID that begins with 'fc'.", i, id),
					param: fmt.Sprintf("input[%d].id", i), code: "invalid_value"}
			}
			name, ns := str(it["name"]), str(it["namespace"])
			if cid := str(it["call_id"]); cid == "" {
				return bad(fmt.Sprintf("input[%d].call_id", i), "Missing required parameter: 'input[%d].call_id'.", i)
			} else {
				calls[cid] = true
				callOrder = append(callOrder, cid)
			}
			if ns == "" {
				_, inDefault := p.Default[name]
				if !inDefault && p.inSomeNamespace(name) {
					return bad(fmt.Sprintf("input[%d].namespace", i), "Missing namespace for function_call '%s'. It does not exist in the default namespace. Round-trip the model's function_call item with its namespace field included.", name)
				}
			} else if !p.inNamespace(ns, name) {
				return bad(fmt.Sprintf("input[%d].namespace", i), "Function '%s' not found in namespace '%s'.", name, ns)
			}
		case "function_call_output":
			cid := str(it["call_id"])
			switch {
			case !calls[cid]:
				return bad("input", "No tool call found for function call output with call_id %s.", cid)
			case answered[cid]:
				// One output per call_id: a history whose turns reuse an id
				// (Chat servers' call_0, Vertex AI's call_<n>) is refused
				// (NousResearch/hermes-agent#102629 quotes the words;
				// mnfst/llm-gateway#2858).
				return bad("input", "Duplicate function_call_output for call_id '%s'. Each function_call must have exactly one matching function_call_output", cid)
			}
			answered[cid] = true
		case "tool_search_call":
			if it["arguments"] == nil {
				return bad(fmt.Sprintf("input[%d].arguments", i), "Missing required parameter: 'input[%d].arguments'.", i)
			}
			if str(it["execution"]) == "client" {
				searches[str(it["call_id"])] = true
			}
		case "tool_search_output":
			if it["tools"] == nil {
				return bad(fmt.Sprintf("input[%d].tools", i), "Missing required parameter: 'input[%d].tools'.", i)
			}
			if str(it["execution"]) == "client" && !searches[str(it["call_id"])] {
				return bad("input", "No tool search call found for tool_search_output with call_id %s.", str(it["call_id"]))
			}
			if e := checkLoaded(i, it["tools"]); e != nil {
				return e
			}
			p.load(it["tools"])
		case "reasoning":
			if e := checkEncrypted(it, p.Org, p.Recorded); e != nil {
				return e
			}
			if !p.Store && it["encrypted_content"] == nil {
				return &apiErr{status: 404, message: fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", str(it["id"])), param: "input"}
			}
			// A reasoning item goes back with the item it preceded (the
			// API's 400 in continuedev/continue#8933, vercel/ai#7099).
			if !followsReasoning(p.Input, i) {
				return bad("input", "Item '%s' of type 'reasoning' was provided without its required following item.", str(it["id"]))
			}
		case "mcp_approval_request":
			p.Requests[str(it["id"])] = it
		case "mcp_approval_response":
			rid := str(it["approval_request_id"])
			if p.Requests[rid] == nil {
				return bad("input", "No approval request found for mcp_approval_response with approval_request_id %s.", rid)
			}
			var ok bool
			_ = json.Unmarshal(it["approve"], &ok)
			p.Approvals[rid] = ok
		case "item_reference":
			if !p.Store {
				return &apiErr{status: 404, message: fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false.", str(it["id"])), param: "input"}
			}
		}
	}
	// Every function call in the input has its output (the API's words:
	// router-for-me/CLIProxyAPI#2368, openai/codex#620).
	for _, cid := range callOrder {
		if !answered[cid] {
			return bad("input", "No tool output found for function call %s.", cid)
		}
	}
	return nil
}

// MaxCallID is the longest call_id an input item may carry.
const MaxCallID = 64

// checkCallID applies the API's length limits to an item's call_id (null
// on a hosted search's items): AnswerDotAI/fastllm#45,
// orchidfiles/ungate#26 (string_above_max_length), BigPizzaV3/CodexPlusPlus#315
// (empty_string).
func checkCallID(i int, it map[string]json.RawMessage) *apiErr {
	raw, ok := it["call_id"]
	if !ok || string(raw) == "null" {
		return nil
	}
	id := str(raw)
	param := fmt.Sprintf("input[%d].call_id", i)
	switch {
	case id == "":
		return &apiErr{status: 400, param: param, code: "empty_string",
			message: fmt.Sprintf("Invalid '%s': empty string. Expected a string with minimum length 1, but got an empty string instead.", param)}
	case len(id) > MaxCallID:
		return &apiErr{status: 400, param: param, code: "string_above_max_length",
			message: fmt.Sprintf("Invalid '%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", param, MaxCallID, len(id))}
	}
	return nil
}

// followsReasoning reports whether the item after input[i], a reasoning
// item, is one a model's output could have put there: not the end of the
// input, a user's (or system's) message or a tool's output.
func followsReasoning(in []map[string]json.RawMessage, i int) bool {
	if i+1 >= len(in) {
		return false
	}
	next := in[i+1]
	typ := str(next["type"])
	if typ == "" || typ == "message" {
		return str(next["role"]) == "assistant"
	}
	return !strings.HasSuffix(typ, "_output") && typ != "mcp_approval_response"
}

// checkImages applies OpenAI's image rules (imagecheck) to the input_image
// parts of a message's content or a function_call_output's output.
func checkImages(i int, it map[string]json.RawMessage) *apiErr {
	for _, key := range []string{"content", "output"} {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL string `json:"image_url"`
			FileID   string `json:"file_id"`
		}
		if json.Unmarshal(it[key], &parts) != nil {
			continue
		}
		for j, p := range parts {
			if p.Type != "input_image" {
				continue
			}
			if p.ImageURL == "" && p.FileID == "" {
				return bad(fmt.Sprintf("input[%d].%s[%d]", i, key, j), "Invalid input_image: one of 'image_url' or 'file_id' must be provided.")
			}
			if code, msg := imagecheck.OpenAI(p.ImageURL); code != "" {
				return &apiErr{status: 400, message: msg, code: code}
			}
		}
	}
	return nil
}

// inSomeNamespace: name is callable only through a namespace.
func (p *parsed) inSomeNamespace(name string) bool {
	if _, ok := p.Deferred[name]; ok {
		return true
	}
	for _, m := range p.Namespaces {
		if _, ok := m[name]; ok {
			return true
		}
	}
	return false
}

// inNamespace: ns holds name, in the tools array or as loaded by a
// tool_search_output. A deferred or loaded top-level function is its own
// namespace.
func (p *parsed) inNamespace(ns, name string) bool {
	if _, ok := p.Deferred[name]; ok && ns == name {
		return true
	}
	if _, ok := p.Loaded[""][name]; ok && ns == name {
		return true
	}
	if _, ok := p.Namespaces[ns][name]; ok {
		return true
	}
	_, ok := p.Loaded[ns][name]
	return ok
}

// namespaceOf is the namespace the model puts on a call of name.
func (p *parsed) namespaceOf(name string) string {
	if _, ok := p.Default[name]; ok {
		return ""
	}
	if _, ok := p.Deferred[name]; ok {
		return name
	}
	if _, ok := p.Loaded[""][name]; ok {
		return name
	}
	// In request order, so the answer does not depend on map order.
	for _, d := range p.DeferredOrder {
		for _, m := range d.Members {
			if m.Path == name {
				return d.Path
			}
		}
	}
	for ns, m := range p.Namespaces {
		if _, ok := m[name]; ok {
			return ns
		}
	}
	for ns, m := range p.Loaded {
		if _, ok := m[name]; ok && ns != "" {
			return ns
		}
	}
	return ""
}

// checkModel applies the model's capabilities (the models table, or
// Server.Models) with the API's own messages: encrypted reasoning on a model
// without it (gpt-5-chat-latest; pydantic/pydantic-ai#3326), an effort on a
// model that does not reason or a level it lacks, an output limit above
// the model's.
func (s *Server) checkModel(model string, include []string, maxOut int, r *struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}) *apiErr {
	c := s.Models.Lookup("openai", model)
	for _, inc := range include {
		if inc == "reasoning.encrypted_content" && !c.EncryptedReasoning {
			return bad("include", "Encrypted content is not supported with this model.")
		}
	}
	if r != nil && r.Effort != "" {
		if c.Reasoning != models.ReasoningEffort || len(c.Efforts) == 0 {
			return bad("reasoning.effort", "Unsupported parameter: 'reasoning.effort' is not supported with this model.")
		}
		if !slices.Contains(c.Efforts, r.Effort) {
			q := make([]string, len(c.Efforts))
			for i, e := range c.Efforts {
				q[i] = "'" + e + "'"
			}
			list := q[0]
			if len(q) > 1 {
				list = strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
			}
			// The API's words (openai/codex#6647).
			return bad("reasoning.effort", "Unsupported value: '%s' is not supported with the '%s' model. Supported values are: %s.", r.Effort, model, list)
		}
	}
	if c.Known && maxOut > c.MaxOutput {
		return bad("max_output_tokens", "Invalid 'max_output_tokens': integer above maximum value. Expected a value <= %d, but got %d instead.", c.MaxOutput, maxOut)
	}
	return nil
}
