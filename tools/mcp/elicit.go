package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Elicitation actions, as the protocol spells them.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// Elicitation is a server's elicitation/create: in form mode a message and
// the fields of requestedSchema; in URL mode a message and the URL the user
// is asked to open (the server learns the outcome out of band).
type Elicitation struct {
	Server  string
	Mode    string // "form" or "url"
	Message string
	Fields  []Field
	URL     string
	ID      string // elicitationId (URL mode)
	// Retry: a tool call answered URLElicitationRequiredError (-32042) and
	// is retried once the Host returns (urlelicit.go). The Host returns
	// when the user is done; its context ends, with cause
	// ErrElicitationComplete, when the server says so first.
	Retry bool
}

// ElicitAnswer is the user's answer. Content holds the form's values by
// field name (accept only); omitted fields get their defaults.
type ElicitAnswer struct {
	Action  string
	Content map[string]any
}

// Field is one property of a form's requestedSchema: the primitive types
// the specification allows (string, number, integer, boolean), single
// choice (enum, or oneOf of const/title) and multiple choice (an array of
// such items).
type Field struct {
	Name        string
	Title       string
	Description string
	Type        string // string, number, integer, boolean, array (multiple choice)
	Format      string // email, uri, date, date-time (strings)
	// Options are the choices of a single or multiple choice field, with
	// their labels (Labels[i] names Options[i]; the option itself when no
	// title was given).
	Options []string
	Labels  []string
	Default any
	// HasDefault: Default was given (false and 0 are defaults too).
	HasDefault bool
	Required   bool
	Min, Max   *float64 // number bounds; string and array lengths
}

// Label is what a form shows for the field.
func (f Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// ParseForm reads a form's requestedSchema: an object whose properties are
// the fields, in the order the server wrote them.
func ParseForm(schema any) ([]Field, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var s struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf("type %q: a form's schema is an object", s.Type)
	}
	names, err := objectKeys(s.Properties)
	if err != nil {
		return nil, err
	}
	var props map[string]json.RawMessage
	if len(s.Properties) > 0 {
		if err := json.Unmarshal(s.Properties, &props); err != nil {
			return nil, fmt.Errorf("properties: %w", err)
		}
	}
	var out []Field
	for _, n := range names {
		f, err := parseField(n, props[n])
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", n, err)
		}
		f.Required = slices.Contains(s.Required, n)
		out = append(out, f)
	}
	return out, nil
}

// objectKeys lists an object's keys in the order they were written.
func objectKeys(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("properties is not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

type choice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

func parseField(name string, raw json.RawMessage) (Field, error) {
	var p struct {
		Type        string          `json:"type"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Format      string          `json:"format"`
		Enum        []string        `json:"enum"`
		EnumNames   []string        `json:"enumNames"`
		OneOf       []choice        `json:"oneOf"`
		AnyOf       []choice        `json:"anyOf"`
		Default     json.RawMessage `json:"default"`
		Minimum     *float64        `json:"minimum"`
		Maximum     *float64        `json:"maximum"`
		MinLength   *float64        `json:"minLength"`
		MaxLength   *float64        `json:"maxLength"`
		MinItems    *float64        `json:"minItems"`
		MaxItems    *float64        `json:"maxItems"`
		Items       *struct {
			Enum  []string `json:"enum"`
			AnyOf []choice `json:"anyOf"`
			OneOf []choice `json:"oneOf"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return Field{}, err
	}
	f := Field{Name: name, Title: p.Title, Description: p.Description, Type: p.Type, Format: p.Format}
	choices := func(enum, names []string, cs []choice) {
		for i, e := range enum {
			f.Options = append(f.Options, e)
			if i < len(names) {
				f.Labels = append(f.Labels, names[i])
			} else {
				f.Labels = append(f.Labels, e)
			}
		}
		for _, c := range cs {
			f.Options = append(f.Options, c.Const)
			f.Labels = append(f.Labels, cmpOr(c.Title, c.Const))
		}
	}
	switch p.Type {
	case "string":
		choices(p.Enum, p.EnumNames, append(p.OneOf, p.AnyOf...))
		f.Min, f.Max = p.MinLength, p.MaxLength
	case "number", "integer":
		f.Min, f.Max = p.Minimum, p.Maximum
	case "boolean":
	case "array":
		if p.Items == nil {
			return Field{}, errors.New("an array field needs items with enum or anyOf (multiple choice)")
		}
		choices(p.Items.Enum, nil, append(p.Items.AnyOf, p.Items.OneOf...))
		if len(f.Options) == 0 {
			return Field{}, errors.New("an array field's items need enum or anyOf (multiple choice)")
		}
		f.Min, f.Max = p.MinItems, p.MaxItems
	default:
		return Field{}, fmt.Errorf("type %q: a form field is a string, number, integer, boolean or array of choices", p.Type)
	}
	if d := strings.TrimSpace(string(p.Default)); d != "" && d != "null" {
		var v any
		if err := json.Unmarshal(p.Default, &v); err != nil {
			return Field{}, fmt.Errorf("default: %w", err)
		}
		f.Default, f.HasDefault = v, true
	}
	return f, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// DefaultText is the field's default as the form shows it in its text box
// ("" when none). A choice shows its label, as the choices are listed: the
// form cycles on from the label shown, and Parse reads a label back into
// its option (a titled default shown as its const, "hero-2", matched no
// label and the first arrow key went back to the first choice).
func (f Field) DefaultText() string {
	if !f.HasDefault {
		return ""
	}
	switch v := f.Default.(type) {
	case string:
		return f.label(v)
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			parts = append(parts, f.label(fmt.Sprint(x)))
		}
		return strings.Join(parts, ", ")
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(f.Default)
}

// Parse reads what the user typed for the field into its JSON value.
// ok=false: the field was left empty (omitted from the answer).
func (f Field) Parse(text string) (v any, ok bool, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, false, nil
	}
	switch f.Type {
	case "boolean":
		switch strings.ToLower(text) {
		case "y", "yes", "true", "1", "on":
			return true, true, nil
		case "n", "no", "false", "0", "off":
			return false, true, nil
		}
		return nil, false, fmt.Errorf("%s: answer yes or no", f.Label())
	case "number", "integer":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, false, fmt.Errorf("%s: %q is not a number", f.Label(), text)
		}
		if f.Type == "integer" {
			if n != math.Trunc(n) {
				return nil, false, fmt.Errorf("%s: %q is not a whole number", f.Label(), text)
			}
			return int64(n), true, f.check(int64(n))
		}
		return n, true, f.check(n)
	case "array":
		var out []any
		for _, part := range strings.Split(text, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, f.option(part))
			}
		}
		return out, true, f.check(out)
	}
	s := text
	if len(f.Options) > 0 {
		s = f.option(text)
	}
	return s, true, f.check(s)
}

// label is the label of option o (o itself when it is no option).
func (f Field) label(o string) string {
	if i := slices.Index(f.Options, o); i >= 0 && i < len(f.Labels) {
		return f.Labels[i]
	}
	return o
}

// option maps a label (or a 1-based number) to its option.
func (f Field) option(text string) string {
	if i, err := strconv.Atoi(text); err == nil && i >= 1 && i <= len(f.Options) && !slices.Contains(f.Options, text) {
		return f.Options[i-1]
	}
	for i, l := range f.Labels {
		if strings.EqualFold(l, text) {
			return f.Options[i]
		}
	}
	return text
}

// check validates a value of the field's type against its constraints.
func (f Field) check(v any) error {
	bad := func(format string, a ...any) error { return fmt.Errorf(f.Label()+": "+format, a...) }
	switch f.Type {
	case "boolean":
		if _, ok := v.(bool); !ok {
			return bad("must be true or false")
		}
	case "number", "integer":
		n, ok := number(v)
		if !ok {
			return bad("must be a number")
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return bad("must be a whole number")
		}
		if f.Min != nil && n < *f.Min {
			return bad("must be at least %v", *f.Min)
		}
		if f.Max != nil && n > *f.Max {
			return bad("must be at most %v", *f.Max)
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return bad("must be a list of choices")
		}
		for _, it := range items {
			s, _ := it.(string)
			if !slices.Contains(f.Options, s) {
				return bad("%v is not one of %s", it, strings.Join(f.Labels, ", "))
			}
		}
		if f.Min != nil && float64(len(items)) < *f.Min {
			return bad("choose at least %v", *f.Min)
		}
		if f.Max != nil && float64(len(items)) > *f.Max {
			return bad("choose at most %v", *f.Max)
		}
	default:
		s, ok := v.(string)
		if !ok {
			return bad("must be text")
		}
		if len(f.Options) > 0 && !slices.Contains(f.Options, s) {
			return bad("%q is not one of %s", s, strings.Join(f.Labels, ", "))
		}
		n := float64(len([]rune(s)))
		if f.Min != nil && n < *f.Min {
			return bad("must be at least %v characters", *f.Min)
		}
		if f.Max != nil && n > *f.Max {
			return bad("must be at most %v characters", *f.Max)
		}
		switch f.Format {
		case "email":
			if _, err := mail.ParseAddress(s); err != nil {
				return bad("%q is not an email address", s)
			}
		case "uri":
			if u, err := url.Parse(s); err != nil || u.Scheme == "" {
				return bad("%q is not a URI (with a scheme, like https://)", s)
			}
		case "date":
			if _, err := time.Parse(time.DateOnly, s); err != nil {
				return bad("%q is not a date (YYYY-MM-DD)", s)
			}
		case "date-time":
			if _, err := time.Parse(time.RFC3339, s); err != nil {
				return bad("%q is not a date and time (RFC 3339, like 2026-01-31T12:00:00Z)", s)
			}
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// CompleteAnswer is an accepted form's content as it goes to the server:
// fields the answer omits take their defaults (SEP-1034), every value is
// checked against its field, a required field left without a value is an
// error, and names the form does not have are dropped.
func CompleteAnswer(fields []Field, content map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range fields {
		v, ok := content[f.Name]
		if !ok || v == nil {
			if !f.HasDefault {
				if f.Required {
					return nil, fmt.Errorf("%s is required", f.Label())
				}
				continue
			}
			v = f.Default
		}
		if err := f.check(v); err != nil {
			return nil, err
		}
		out[f.Name] = v
	}
	return out, nil
}

// Defaults is the answer accept-defaults gives: every field with a default
// set to it. ok is false when a required field has none (the form cannot
// be accepted without a person).
func Defaults(fields []Field) (map[string]any, bool) {
	out := map[string]any{}
	for _, f := range fields {
		if f.HasDefault {
			out[f.Name] = f.Default
		} else if f.Required {
			return nil, false
		}
	}
	return out, true
}
