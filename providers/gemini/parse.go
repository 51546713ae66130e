package gemini

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/internal/searchargs"
	"github.com/agent-dev/agent/providers/sse"
	toolschema "github.com/agent-dev/agent/tools/schema"
)

// wireResponse is one GenerateContentResponse (a whole answer, or one
// chunk of a stream).
type wireResponse struct {
	Candidates []struct {
		Content struct {
			Parts []json.RawMessage `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount        int `json:"promptTokenCount"`
		CandidatesTokenCount    int `json:"candidatesTokenCount"`
		CachedContentTokenCount int `json:"cachedContentTokenCount"`
		ThoughtsTokenCount      int `json:"thoughtsTokenCount"`
		ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount"`
	} `json:"usageMetadata"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

type wirePart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
}

// textRun is a text part still growing across chunks.
type textRun struct {
	text    strings.Builder
	thought bool
	sig     string
}

// accumulator rebuilds the answer's content from chunks: consecutive text
// pieces of one kind become one part, closed by the piece that carries a
// thoughtSignature (kept on that part, where the API put it); other parts
// are kept as they came.
type accumulator struct {
	r       *rendered
	emit    func(agent.StreamEvent)
	raws    []json.RawMessage
	cur     *textRun
	neutral []agent.Part
	calls   int
	finish  string
	usage   agent.Usage
}

func (a *accumulator) add(raw json.RawMessage) error {
	var p wirePart
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("bad part: %w", err)
	}
	switch {
	case p.FunctionCall != nil:
		a.flush()
		a.raws = append(a.raws, compact(raw))
		a.calls++
		id := a.r.callID(p.FunctionCall.ID)
		a.neutral = append(a.neutral, a.neutralCall(id, p.FunctionCall.Name, p.FunctionCall.Args))
	case p.Text != nil || p.ThoughtSignature != "" && !hasOther(raw):
		text := ""
		if p.Text != nil {
			text = *p.Text
		}
		if a.cur == nil || a.cur.thought != p.Thought || a.cur.sig != "" {
			a.flush()
			a.cur = &textRun{thought: p.Thought}
		}
		a.cur.text.WriteString(text)
		if p.ThoughtSignature != "" {
			a.cur.sig = p.ThoughtSignature
		}
		if p.Thought && text != "" {
			a.emit(agent.StreamEvent{Type: agent.EventReasoningDelta, Text: text})
		}
		if !p.Thought && text != "" {
			if n := len(a.neutral); n > 0 && a.neutral[n-1].Type == agent.PartText {
				a.neutral[n-1].Text += text
			} else {
				a.neutral = append(a.neutral, agent.TextPart(text))
			}
			a.emit(agent.StreamEvent{Type: agent.EventTextDelta, Text: text})
		}
	default:
		// Parts this adapter does not read (code execution, inline data)
		// are replayed as they came.
		a.flush()
		a.raws = append(a.raws, compact(raw))
	}
	return nil
}

// hasOther reports whether a part carries data besides text and signature.
func hasOther(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	for k := range m {
		if k != "text" && k != "thought" && k != "thoughtSignature" {
			return true
		}
	}
	return false
}

func (a *accumulator) flush() {
	if a.cur == nil {
		return
	}
	if a.cur.text.Len() == 0 && a.cur.sig == "" {
		// Streams end with an empty text part; sent back it is a 400
		// ("empty text parameter").
		a.cur = nil
		return
	}
	part := map[string]any{"text": a.cur.text.String()}
	if a.cur.thought {
		part["thought"] = true
	}
	if a.cur.sig != "" {
		part["thoughtSignature"] = a.cur.sig
	}
	a.raws = append(a.raws, mustJSON(part))
	a.cur = nil
}

func (a *accumulator) neutralCall(id, name string, args json.RawMessage) agent.Part {
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage(`{}`)
	}
	if a.r.mode == agent.SearchClient {
		switch name {
		case SearchTool:
			return agent.SearchCallPart(searchargs.Parse(id, args))
		case CallTool:
			if c, ok := unwrapCall(id, args); ok {
				return agent.ToolCallPart(c)
			}
			return agent.ToolCallPart(agent.ToolCall{ID: id, Name: CallTool, Input: compact(args)})
		}
	}
	if orig, ok := a.r.fromWire[name]; ok {
		name = orig
	}
	input := compact(args)
	if sch, ok := a.r.schemas[name]; ok {
		// Free-form objects were declared as JSON text.
		input = toolschema.ArgsFromGemini(sch, input)
	}
	return agent.ToolCallPart(agent.ToolCall{ID: id, Name: name, Input: input})
}

func (a *accumulator) chunk(data []byte) error {
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("gemini: stream cut: bad chunk: %w", err)
	}
	if w.Error != nil {
		return &agent.APIError{Provider: a.r.tag, Status: w.Error.Code, Type: w.Error.Status, Message: w.Error.Message}
	}
	if w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "" {
		return &agent.APIError{Provider: a.r.tag, Status: 400, Type: "blocked", Message: "the prompt was blocked: " + w.PromptFeedback.BlockReason}
	}
	if u := w.UsageMetadata; u != nil {
		a.usage = agent.Usage{
			InputTokens:     u.PromptTokenCount - u.CachedContentTokenCount + u.ToolUsePromptTokenCount,
			CacheReadTokens: u.CachedContentTokenCount,
			OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
		}
	}
	for _, c := range w.Candidates {
		for _, p := range c.Content.Parts {
			if err := a.add(p); err != nil {
				return fmt.Errorf("gemini: %w", err)
			}
		}
		if c.FinishReason != "" {
			a.finish = c.FinishReason
		}
		break //nolint:staticcheck // one candidate is asked for: the first is the answer
	}
	return nil
}

func (a *accumulator) readJSON(body io.Reader) error {
	data, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("gemini: read response: %w", err)
	}
	return a.chunk(data)
}

// readStream reads the SSE chunks; an end before a finishReason is a cut.
func (a *accumulator) readStream(body io.Reader) error {
	rd := sse.NewReader(body)
	for {
		ev, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if a.finish == "" {
					return fmt.Errorf("gemini: stream cut: the connection closed before a finishReason: %w", io.ErrUnexpectedEOF)
				}
				return nil
			}
			return fmt.Errorf("gemini: stream cut: %w", err)
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		if err := a.chunk(data); err != nil {
			return err
		}
	}
}

// message is the assistant message: the neutral parts, then the content
// as the API sent it (merged text runs), to be replayed verbatim.
func (a *accumulator) message(interrupted bool) agent.Message {
	a.flush()
	m := agent.Message{Role: agent.RoleAssistant, Parts: append([]agent.Part(nil), a.neutral...), Interrupted: interrupted}
	if len(a.raws) > 0 {
		m.Parts = append(m.Parts, agent.RawPart(a.r.tag, API, mustJSON(wireContent{Role: "model", Parts: a.raws})))
	}
	return m
}

func (a *accumulator) stopReason() agent.StopReason {
	switch {
	case a.calls > 0:
		return agent.StopToolUse
	case a.finish == "MAX_TOKENS":
		return agent.StopMaxTokens
	case a.finish == "SAFETY", a.finish == "RECITATION", a.finish == "BLOCKLIST", a.finish == "PROHIBITED_CONTENT", a.finish == "SPII":
		return agent.StopRefused
	}
	return agent.StopEnd
}

func newCallID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "gemini_call_" + hex.EncodeToString(b)
}

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}

// unwrapCall reads tool_call arguments; the inner arguments may be JSON
// text (as declared) or an object.
func unwrapCall(id string, args json.RawMessage) (agent.ToolCall, bool) {
	var a struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Name == "" {
		return agent.ToolCall{}, false
	}
	inner := bytes.TrimSpace(a.Arguments)
	switch {
	case len(inner) == 0 || bytes.Equal(inner, []byte("null")):
		inner = []byte(`{}`)
	case inner[0] == '"':
		var s string
		if err := json.Unmarshal(inner, &s); err != nil {
			return agent.ToolCall{}, false
		}
		if strings.TrimSpace(s) == "" {
			s = "{}"
		}
		if json.Valid([]byte(s)) {
			inner = compact([]byte(s))
		} else {
			b, _ := json.Marshal(s)
			inner = b
		}
	}
	return agent.ToolCall{ID: id, Name: a.Name, Input: json.RawMessage(inner)}, true
}
