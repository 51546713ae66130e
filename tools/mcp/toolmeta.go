package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agent-dev/agent/tools"
)

// The parts of a tool's definition that are for the agent, not the model:
// annotations (shown in agent tools, used by approvals), outputSchema
// (structuredContent is checked against it) and execution.taskSupport (a
// tool that can only run as a task is called as one, tasks.go, or hidden
// on a server that declares no tasks), and MCP Apps' _meta.ui.visibility
// (a tool for the server's own UI only is hidden: the agent shows no UI).

// toolMeta is what a listed tool says besides name, description and input
// schema. It is kept in the catalog cache as its JSON.
type toolMeta struct {
	Annotations  *tools.Annotations `json:"annotations,omitempty"`
	OutputSchema json.RawMessage    `json:"outputSchema,omitempty"`
	TaskSupport  string             `json:"taskSupport,omitempty"`
	// AppOnly: _meta.ui.visibility leaves out "model".
	AppOnly bool `json:"appOnly,omitempty"`
}

// toolMetaWire is how the fields appear in tools/list.
type toolMetaWire struct {
	Annotations  *tools.Annotations `json:"annotations"`
	OutputSchema json.RawMessage    `json:"outputSchema"`
	Execution    *struct {
		TaskSupport string `json:"taskSupport"`
	} `json:"execution"`
	Meta *struct {
		UI *struct {
			Visibility []string `json:"visibility"`
		} `json:"ui"`
	} `json:"_meta"`
}

// appOnly reports whether the MCP Apps visibility is given and leaves out
// the model: such a tool is called by the server's UI, never by the model
// (absent, it is visible to both).
func (w toolMetaWire) appOnly() bool {
	if w.Meta == nil || w.Meta.UI == nil || w.Meta.UI.Visibility == nil {
		return false
	}
	return !slices.Contains(w.Meta.UI.Visibility, "model")
}

func (w toolMetaWire) meta() *toolMeta {
	m := toolMeta{Annotations: w.Annotations}
	if s := bytes.TrimSpace(w.OutputSchema); len(s) > 0 && s[0] == '{' {
		var buf bytes.Buffer
		if json.Compact(&buf, s) == nil {
			m.OutputSchema = buf.Bytes()
		}
	}
	if w.Execution != nil {
		m.TaskSupport = w.Execution.TaskSupport
	}
	m.AppOnly = w.appOnly()
	if m.Annotations == nil && m.OutputSchema == nil && m.TaskSupport == "" && !m.AppOnly {
		return nil // allocated only when there is a meta: most tools have none
	}
	out := new(toolMeta)
	*out = m
	return out
}

func (m *toolMeta) annotations() *tools.Annotations {
	if m == nil {
		return nil
	}
	return m.Annotations
}

func (m *toolMeta) equal(o *toolMeta) bool {
	return string(m.encode()) == string(o.encode())
}

// encode is the cache's form of the meta (nil when there is none).
func (m *toolMeta) encode() []byte {
	if m == nil {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

func decodeToolMeta(b []byte) *toolMeta {
	if len(b) == 0 {
		return nil
	}
	var m toolMeta
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return &m
}

// HiddenTool is a tool a server lists that the agent does not offer.
type HiddenTool struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// ToolInfo is what agent tools shows about a server's tool beyond the
// model's view: its annotations and output schema.
type ToolInfo struct {
	Annotations  *tools.Annotations
	OutputSchema bool
}

// Info returns the extra facts of an agent tool name (false for a name the
// manager does not know).
func (m *Manager) Info(name string) (ToolInfo, bool) {
	for _, c := range m.conns {
		if orig, ok := c.lookup(name); ok {
			if t, ok := c.rawTool(orig); ok {
				return ToolInfo{Annotations: t.Meta.annotations(), OutputSchema: t.Meta != nil && t.Meta.OutputSchema != nil}, true
			}
		}
	}
	return ToolInfo{}, false
}

func (c *conn) rawTool(name string) (rawTool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.list {
		if t.Name == name {
			return t, true
		}
	}
	return rawTool{}, false
}

// checkOutput checks a result's structuredContent against the tool's
// outputSchema. The model reads the text content (or the structured JSON
// when there is no text, convertResult); a result that breaks the schema
// the server promised is an error the model is told about.
func (c *conn) checkOutput(tool string, res *mcpgo.CallToolResult, out *tools.Result) {
	if res.IsError {
		return // an error result need not match (specification)
	}
	t, ok := c.rawTool(tool)
	if !ok || t.Meta == nil || t.Meta.OutputSchema == nil {
		return
	}
	raw := bytes.TrimSpace(res.RawStructuredContent)
	if len(raw) == 0 && res.StructuredContent != nil {
		raw, _ = json.Marshal(res.StructuredContent)
	}
	var problem string
	if len(raw) == 0 || string(raw) == "null" {
		problem = "it has an outputSchema but returned no structuredContent"
	} else if err := validateOutput(t.Meta.OutputSchema, raw); err != nil {
		problem = "its structuredContent does not match its outputSchema: " + err.Error()
	}
	if problem == "" {
		return
	}
	c.m.log.Warn("mcp: tool result breaks its output schema", "server", c.cfg.Name, "tool", tool, "problem", problem)
	out.IsError = true
	out.Text = strings.TrimSpace(fmt.Sprintf("MCP tool %s on server %s: %s\n%s", tool, c.cfg.Name, problem, out.Text))
}

// validateOutput checks a structured result against an output schema. A
// schema that does not compile is not enforced (servers ship odd ones).
func validateOutput(schema, value json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil
	}
	comp := jsonschema.NewCompiler()
	if comp.AddResource("output.json", doc) != nil {
		return nil
	}
	sch, err := comp.Compile("output.json")
	if err != nil {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if err := sch.Validate(v); err != nil {
		msg := err.Error()
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			msg = leafMessage(ve)
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

func leafMessage(e *jsonschema.ValidationError) string {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	return "at /" + strings.Join(e.InstanceLocation, "/") + ": " + e.ErrorKind.LocalizedString(message.NewPrinter(language.English))
}
