// Package geminitest is a strict fake of the native Gemini API
// (models/{model}:streamGenerateContent?alt=sse and :generateContent). It
// answers from a scripted model that searches with the client tool_search
// function and calls what it found through tool_call, writes the real SSE
// chunk shapes (text split across chunks, thoughtSignature on the first
// function call of a step and on the last text part), and rejects with the
// API's own 400s what the API rejects: unknown fields (schemas outside the
// Gemini dialect included), bad function names, function responses that do
// not answer the previous turn's calls in number, and, on Gemini 3, a
// function call of the current turn replayed without its thoughtSignature
// or with one the model never issued; and function responses whose id is
// not the id of the call they answer (ids.go).
package geminitest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// DefaultKey is the API key the server accepts unless APIKey is changed.
const DefaultKey = "gemini-test-key"

// Dummy signatures Google documents for calls Gemini did not make.
var dummySignatures = map[string]bool{"skip_thought_signature_validator": true, "context_engineering_is_the_way_to_go": true}

// Server is a running fake.
type Server struct {
	// URL is the API root (what --base-url takes).
	URL    string
	APIKey string
	// Script answers requests in order.
	Script *Script
	// CallIDs says which ids the model gives its function calls (ids.go):
	// by default unique ones on Gemini 3 and none on 2.x.
	CallIDs IDMode

	mu     sync.Mutex
	faults []Fault
	reqs   []*Request
	issued map[string]bool
	order  []string
	seq    int
	calls  int
}

// Request is one request as received.
type Request struct {
	Path, Query string
	Header      http.Header
	Body        []byte
	Model       string
	Stream      bool
	Status      int
	Rejection   string
}

// NewServer starts a fake closed with the test.
func NewServer(t testing.TB) *Server {
	s := &Server{APIKey: DefaultKey, issued: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Fault is an injected answer for one (valid) request: an error status, or
// a finishReason MALFORMED_FUNCTION_CALL with no content.
type Fault struct {
	Status     int
	GStatus    string
	Message    string
	RetryDelay string // "23s": a google.rpc.RetryInfo detail
	Malformed  bool
}

// FailNext queues faults answered before the script.
func (s *Server) FailNext(fs ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fs...)
}

// Requests returns every request, rejected ones included.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Rejected returns the requests answered with a 4xx.
func (s *Server) Rejected() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Status >= 400 && r.Status < 500 {
			out = append(out, r)
		}
	}
	return out
}

// Signatures returns every thoughtSignature the fake issued, in order.
func (s *Server) Signatures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

var route = regexp.MustCompile(`^/v1beta/models/([^/:]+):(streamGenerateContent|generateContent)$`)

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	req := &Request{Path: hr.URL.Path, Query: hr.URL.RawQuery, Header: hr.Header.Clone(), Body: body}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	fail := func(status int, gstatus, msg string) {
		req.Status, req.Rejection = status, msg
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": gstatus}})
	}
	m := route.FindStringSubmatch(hr.URL.Path)
	if hr.Method != http.MethodPost || m == nil {
		fail(404, "NOT_FOUND", "The requested URL "+hr.URL.Path+" was not found on this server.")
		return
	}
	req.Model, req.Stream = m[1], m[2] == "streamGenerateContent"
	key := hr.Header.Get("x-goog-api-key")
	if key == "" {
		key = hr.URL.Query().Get("key")
	}
	switch {
	case key == "":
		fail(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.")
		return
	case s.APIKey != "" && key != s.APIKey:
		fail(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")
		return
	}
	if req.Stream && hr.URL.Query().Get("alt") != "sse" {
		fail(400, "INVALID_ARGUMENT", "this fake streams SSE only: add ?alt=sse")
		return
	}
	var b body_
	if msg := s.validate(body, req.Model, &b); msg != "" {
		fail(400, "INVALID_ARGUMENT", msg)
		return
	}
	s.mu.Lock()
	var fault *Fault
	if len(s.faults) > 0 {
		fault = &s.faults[0]
		s.faults = s.faults[1:]
	}
	s.mu.Unlock()
	if fault != nil && fault.Status != 0 {
		req.Status = fault.Status
		e := map[string]any{"code": fault.Status, "message": fault.Message, "status": fault.GStatus}
		if fault.RetryDelay != "" {
			e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fault.RetryDelay}}
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(fault.Status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
		return
	}
	req.Status = 200
	if fault != nil && fault.Malformed {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model"}, "finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}}})
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
			return
		}
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		return
	}
	parts := s.reply(&b, req.Model)
	s.write(w, req, &b, parts)
}

// body_ is the parsed request.
type body_ struct {
	Contents []struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ThinkingConfig struct {
			IncludeThoughts bool `json:"includeThoughts"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
	parts [][]part
}

type part struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string            `json:"id"`
		Name     string            `json:"name"`
		Response json.RawMessage   `json:"response"`
		Parts    []json.RawMessage `json:"parts"`
	} `json:"functionResponse"`
}

var (
	topLevel = map[string]bool{"contents": true, "tools": true, "toolConfig": true, "safetySettings": true,
		"systemInstruction": true, "generationConfig": true, "cachedContent": true}
	genConfig = map[string]bool{"maxOutputTokens": true, "temperature": true, "topP": true, "topK": true,
		"candidateCount": true, "stopSequences": true, "thinkingConfig": true, "responseMimeType": true, "responseSchema": true}
	partFields = map[string]bool{"text": true, "thought": true, "thoughtSignature": true, "inlineData": true,
		"functionCall": true, "functionResponse": true, "fileData": true, "executableCode": true, "codeExecutionResult": true}
	schemaFields = map[string]bool{"type": true, "format": true, "title": true, "description": true, "nullable": true, "enum": true,
		"maxItems": true, "minItems": true, "properties": true, "required": true, "minProperties": true,
		"maxProperties": true, "minLength": true, "maxLength": true, "pattern": true, "example": true,
		"anyOf": true, "propertyOrdering": true, "default": true, "items": true, "minimum": true, "maximum": true}
	types    = map[string]bool{"STRING": true, "NUMBER": true, "INTEGER": true, "BOOLEAN": true, "ARRAY": true, "OBJECT": true, "NULL": true}
	nameRule = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)
)

func unknown(name, at string) string {
	return fmt.Sprintf("Invalid JSON payload received. Unknown name %q at '%s': Cannot find field.", name, at)
}

func (s *Server) validate(raw []byte, model string, b *body_) string {
	if len(raw) > MaxRequest {
		return fmt.Sprintf("Request payload size exceeds the limit: %d bytes.", MaxRequest)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return "Invalid JSON payload received. " + err.Error()
	}
	for k := range top {
		if !topLevel[k] {
			return fmt.Sprintf("Invalid JSON payload received. Unknown name %q: Cannot find field.", k)
		}
	}
	if err := json.Unmarshal(raw, b); err != nil {
		return "Invalid JSON payload received. " + err.Error()
	}
	if len(b.Contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	if gc, ok := top["generationConfig"]; ok {
		var g map[string]json.RawMessage
		_ = json.Unmarshal(gc, &g)
		for k := range g {
			if !genConfig[k] {
				return unknown(k, "generation_config")
			}
		}
		if tc, ok := g["thinkingConfig"]; ok {
			var t struct {
				ThinkingLevel  string `json:"thinkingLevel"`
				ThinkingBudget *int   `json:"thinkingBudget"`
			}
			_ = json.Unmarshal(tc, &t)
			if t.ThinkingLevel != "" && !gemini3(model) {
				return "Thinking level is not supported for this model."
			}
			if t.ThinkingBudget != nil && *t.ThinkingBudget == 0 && strings.Contains(model, "pro") {
				return "Budget 0 is invalid. This model only works in thinking mode."
			}
		}
	}
	declared := map[string]bool{}
	for i, t := range b.Tools {
		if len(t.FunctionDeclarations) > MaxDeclarations {
			// gemini-cli#19083 and #25440.
			return fmt.Sprintf("The GenerateContentRequest proto is invalid:\n  * tools[%d].function_declarations: [FIELD_INVALID] At most %d function declarations can be specified.", i, MaxDeclarations)
		}
		for j, d := range t.FunctionDeclarations {
			at := fmt.Sprintf("tools[%d].function_declarations[%d]", i, j)
			if !nameRule.MatchString(d.Name) {
				return fmt.Sprintf("* GenerateContentRequest.%s.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.", at)
			}
			if declared[d.Name] {
				return fmt.Sprintf("* GenerateContentRequest.%s.name: Duplicate function declaration name %s", at, d.Name)
			}
			declared[d.Name] = true
			if len(d.Parameters) > 0 {
				if msg := checkSchema(d.Parameters, at+".parameters"); msg != "" {
					return msg
				}
				if msg := SchemaRules(d.Parameters, at+".parameters"); msg != "" {
					return msg
				}
			}
		}
	}
	b.parts = make([][]part, len(b.Contents))
	for i, c := range b.Contents {
		if c.Role != "user" && c.Role != "model" {
			return fmt.Sprintf("Please use a valid role: user, model. (contents[%d].role %q)", i, c.Role)
		}
		if len(c.Parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		for j, rp := range c.Parts {
			var f map[string]json.RawMessage
			_ = json.Unmarshal(rp, &f)
			data := 0
			for k := range f {
				if !partFields[k] {
					return unknown(k, fmt.Sprintf("contents[%d].parts[%d]", i, j))
				}
				if k != "thought" && k != "thoughtSignature" {
					data++
				}
			}
			if data != 1 {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field", i, j)
			}
			var p part
			_ = json.Unmarshal(rp, &p)
			if p.Text != nil && *p.Text == "" && p.ThoughtSignature == "" {
				return "Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again."
			}
			if msg := checkInline(f["inlineData"], fmt.Sprintf("contents[%d].parts[%d].inline_data", i, j)); msg != "" {
				return msg
			}
			if msg := checkStruct(f["functionCall"], "args", fmt.Sprintf("contents[%d].parts[%d].function_call", i, j)); msg != "" {
				return msg
			}
			if msg := checkStruct(f["functionResponse"], "response", fmt.Sprintf("contents[%d].parts[%d].function_response", i, j)); msg != "" {
				return msg
			}
			if msg := checkFunctionResponse(f["functionResponse"], p, model, fmt.Sprintf("contents[%d].parts[%d].function_response", i, j)); msg != "" {
				return msg
			}
			if p.ThoughtSignature != "" {
				if _, err := base64.StdEncoding.DecodeString(p.ThoughtSignature); err != nil && !dummySignatures[p.ThoughtSignature] {
					return fmt.Sprintf("Invalid value at 'contents[%d].parts[%d].thought_signature' (TYPE_BYTES), Base64 decoding failed for %q", i, j, p.ThoughtSignature)
				}
			}
			b.parts[i] = append(b.parts[i], p)
		}
	}
	// Function responses answer the previous turn's calls, in number.
	for i, ps := range b.parts {
		calls, resps := 0, 0
		for _, p := range ps {
			if p.FunctionCall != nil {
				calls++
			}
			if p.FunctionResponse != nil {
				resps++
			}
		}
		if calls > 0 && b.Contents[i].Role != "model" {
			return "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
		}
		if resps > 0 {
			prevCalls := -1
			if i > 0 && b.Contents[i-1].Role == "model" {
				prevCalls = 0
				for _, p := range b.parts[i-1] {
					if p.FunctionCall != nil {
						prevCalls++
					}
				}
			}
			if prevCalls <= 0 {
				return "Please ensure that function response turn comes immediately after a function call turn."
			}
			if prevCalls != resps {
				return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
			}
		}
		if calls > 0 && i+1 < len(b.parts) {
			n := 0
			for _, p := range b.parts[i+1] {
				if p.FunctionResponse != nil {
					n++
				}
			}
			if n != calls {
				return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
			}
		}
	}
	if msg := checkResponseIDs(b); msg != "" {
		return msg
	}
	if gemini3(model) {
		if msg := s.checkSignatures(b); msg != "" {
			return msg
		}
	}
	return ""
}

// MaxDeclarations is the most function declarations a tool may carry.
const MaxDeclarations = 512

// MaxRequest is the largest request the API takes with its media inline
// (the image understanding docs: larger files go through the File API).
const MaxRequest = 20 << 20

// inlineTypes are the image MIME types the API reads (image understanding
// docs); anything else, GIF and "image/jpg" included, draws "Unsupported
// MIME type" (gemini-cli, crush and vscode bug reports).
var inlineTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/heic": true, "image/heif": true,
	"application/pdf": true, "audio/wav": true, "audio/mp3": true, "video/mp4": true, "text/plain": true}

// checkInline applies the API's rules to a part's inlineData at path at.
func checkInline(raw json.RawMessage, at string) string {
	if raw == nil {
		return ""
	}
	var blob struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	}
	_ = json.Unmarshal(raw, &blob)
	switch {
	case blob.MimeType == "":
		return "* GenerateContentRequest." + at + ".mime_type: mime_type is required."
	case !inlineTypes[blob.MimeType]:
		return "Unsupported MIME type: " + blob.MimeType
	}
	if _, err := base64.StdEncoding.DecodeString(blob.Data); err != nil || blob.Data == "" {
		return fmt.Sprintf("Invalid value at '%s.data' (TYPE_BYTES), Base64 decoding failed for %q", at, blob.Data)
	}
	return ""
}

func gemini3(model string) bool { return strings.HasPrefix(model, "gemini-3") }

var responseFields = map[string]bool{"id": true, "name": true, "response": true, "parts": true, "willContinue": true, "scheduling": true}

// checkFunctionResponse applies the API's rules to a functionResponse
// (raw, decoded into p) at path at: known fields only, and media in parts
// (multimodal function responses) only on Gemini 3, each part one
// inlineData (a MIME type and base64 bytes) or fileData. Gemini 2.x
// answers media there with a 400 (reported by gemini-cli and lm15 users).
// checkStruct: a function call's args and a function response's response
// are protobuf Structs, so JSON objects. A list is the API's "Proto field
// is not repeating, cannot start list" (danny-avila/LibreChat#5525,
// vercel/ai#3589, symfony/ai#2040: a tool's list result sent as it came);
// any other value is not a Struct either.
func checkStruct(raw json.RawMessage, field, at string) string {
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil {
		return ""
	}
	v := bytes.TrimSpace(f[field])
	switch {
	case len(v) == 0 || v[0] == '{' || string(v) == "null":
		return ""
	case v[0] == '[':
		return fmt.Sprintf("Invalid JSON payload received. Unknown name %q at '%s': Proto field is not repeating, cannot start list.", field, at)
	}
	return fmt.Sprintf("Invalid value at '%s.%s' (type.googleapis.com/google.protobuf.Struct), %s", at, field, v)
}

func checkFunctionResponse(raw json.RawMessage, p part, model, at string) string {
	if p.FunctionResponse == nil {
		return ""
	}
	var f map[string]json.RawMessage
	_ = json.Unmarshal(raw, &f)
	for k := range f {
		if !responseFields[k] {
			return unknown(k, at)
		}
	}
	if len(p.FunctionResponse.Parts) > 0 && !gemini3(model) {
		return "Multimodal function responses are not supported for this model."
	}
	for k, rp := range p.FunctionResponse.Parts {
		var mp map[string]json.RawMessage
		_ = json.Unmarshal(rp, &mp)
		if len(mp) != 1 || (mp["inlineData"] == nil && mp["fileData"] == nil) {
			return fmt.Sprintf("* GenerateContentRequest.%s.parts[%d].data: required oneof field 'data' must have one initialized field", at, k)
		}
		if in := mp["inlineData"]; in != nil {
			var blob struct {
				MimeType string `json:"mimeType"`
				Data     string `json:"data"`
			}
			_ = json.Unmarshal(in, &blob)
			if blob.MimeType == "" {
				return fmt.Sprintf("* GenerateContentRequest.%s.parts[%d].inline_data.mime_type: mime_type is required.", at, k)
			}
			if _, err := base64.StdEncoding.DecodeString(blob.Data); err != nil || blob.Data == "" {
				return fmt.Sprintf("Invalid value at '%s.parts[%d].inline_data.data' (TYPE_BYTES), Base64 decoding failed for %q", at, k, blob.Data)
			}
		}
	}
	return ""
}

// checkSignatures applies Gemini 3's rule: in the current turn (since the
// last user content with text), the first function call of every model
// step carries the signature the model issued with it (or a documented
// dummy); any signature sent must be one the model issued.
func (s *Server) checkSignatures(b *body_) string {
	start := 0
	for i, ps := range b.parts {
		if b.Contents[i].Role != "user" {
			continue
		}
		for _, p := range ps {
			if p.Text != nil && p.FunctionResponse == nil {
				start = i
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, ps := range b.parts {
		if b.Contents[i].Role != "model" {
			continue
		}
		first := true
		for j, p := range ps {
			if p.ThoughtSignature != "" && !s.issued[p.ThoughtSignature] && !dummySignatures[p.ThoughtSignature] {
				return fmt.Sprintf("Unable to submit request because Thought signature is not valid (contents[%d].parts[%d]).", i, j)
			}
			if p.FunctionCall == nil {
				continue
			}
			if first && i >= start && p.ThoughtSignature == "" {
				return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", p.FunctionCall.Name, j+1)
			}
			first = false
		}
	}
	return ""
}

func checkSchema(raw json.RawMessage, at string) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Sprintf("Invalid JSON payload received at '%s': not an object", at)
	}
	for k, v := range m {
		if !schemaFields[k] {
			return unknown(k, at)
		}
		switch k {
		case "type":
			var t string
			_ = json.Unmarshal(v, &t)
			if !types[strings.ToUpper(t)] {
				return fmt.Sprintf("Invalid value at '%s.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), %q", at, t)
			}
		case "properties":
			var props map[string]json.RawMessage
			_ = json.Unmarshal(v, &props)
			for n, p := range props {
				if msg := checkSchema(p, at+".properties["+n+"].value"); msg != "" {
					return msg
				}
			}
		case "items":
			if msg := checkSchema(v, at+".items"); msg != "" {
				return msg
			}
		case "anyOf":
			var alts []json.RawMessage
			_ = json.Unmarshal(v, &alts)
			for i, a := range alts {
				if msg := checkSchema(a, fmt.Sprintf("%s.any_of[%d]", at, i)); msg != "" {
					return msg
				}
			}
		case "enum":
			var e []any
			_ = json.Unmarshal(v, &e)
			for _, x := range e {
				if _, ok := x.(string); !ok {
					return fmt.Sprintf("Invalid value at '%s.enum' (TYPE_STRING), %v", at, x)
				}
			}
		}
	}
	return ""
}

// sig issues a new signature.
func (s *Server) sig() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	v := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("fake-thought-signature-%04d", s.seq)))
	s.issued[v] = true
	s.order = append(s.order, v)
	return v
}
