package openairesponses

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-dev/agent/agent"
)

// renderer turns the neutral history into input items for one request.
//
// Rules (PROTOCOLS.md §2.3):
//   - our own assistant messages are replayed from their Raw items; a
//     function_call keeps the namespace it came with, unless the function
//     now lives elsewhere (another namespace group, or the default
//     namespace): the API requires the namespace the function has in the
//     request's tools array;
//   - hosted search items are replayed only when this request uses hosted
//     search; otherwise they become the client form the request uses
//     (tool_search_call/output with execution "client", or the
//     tool_search function), or are dropped when search is off;
//   - other providers' messages are rendered from their neutral parts;
//   - an item id never appears twice, and an output is only sent after the
//     call it answers.
type renderer struct {
	req  *agent.Request
	pl   plan
	out  []json.RawMessage
	seen map[string]bool // item ids already in the input
	// calls and searches hold call_ids of rendered calls, so outputs are
	// only sent with their call.
	calls     map[string]bool
	searches  map[string]bool
	approvals map[string]bool
	// loaded holds the deferred tools a client tool_search_output of this
	// input has loaded: with client search nothing deferred is in the
	// tools array, so a call of a tool is only valid after that.
	loaded map[string]bool
	// provResults indexes provider search results of the whole history: an
	// Anthropic search can be answered at the start of the next message.
	provResults map[string]*agent.SearchResult
	// reasoning holds reasoning items until the item after them is known;
	// filter says whose go in, replayed counts those that did.
	reasoning []json.RawMessage
	filter    replayFilter
	replayed  int
	userText  []string
}

func renderInput(req *agent.Request, pl plan, f replayFilter) ([]json.RawMessage, int, error) {
	r := &renderer{req: req, pl: pl, filter: f, seen: map[string]bool{}, calls: map[string]bool{}, searches: map[string]bool{},
		approvals: map[string]bool{}, loaded: map[string]bool{}, provResults: map[string]*agent.SearchResult{}}
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if p.Type == agent.PartSearchResult && p.SearchResult != nil && p.SearchResult.Where == agent.WhereProvider {
				if _, dup := r.provResults[p.SearchResult.CallID]; !dup {
					r.provResults[p.SearchResult.CallID] = p.SearchResult
				}
			}
		}
	}
	for _, m := range req.Messages {
		var err error
		if m.Role == agent.RoleAssistant {
			err = r.assistant(m)
		} else {
			r.user(m)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	if r.out == nil {
		r.out = []json.RawMessage{}
	}
	if repeatsCallID(req.Messages) {
		r.out = uniqueCallIDs(r.out)
	}
	return r.out, r.replayed, nil
}

// add appends an item the adapter built. A reasoning item waiting for the
// item it preceded is dropped: the API rejects a reasoning item replayed
// without its following item, and that item was just rewritten.
func (r *renderer) add(v any) {
	r.reasoning = nil
	b, err := json.Marshal(v)
	if err != nil {
		return // only our own well-formed values reach here
	}
	r.out = append(r.out, b)
}

// addRaw appends a received item, dropping its id if the id is already in
// the input (the API rejects duplicates).
func (r *renderer) addRaw(raw json.RawMessage, id string) {
	r.replayed += len(r.reasoning)
	r.out = append(r.out, r.reasoning...)
	r.reasoning = nil
	if id != "" && r.seen[id] {
		raw = withField(raw, "id", nil)
	} else if id != "" {
		r.seen[id] = true
	}
	r.out = append(r.out, raw)
}

// withField sets (or, with v nil, deletes) one top-level field of an item.
func withField(raw json.RawMessage, k string, v any) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if v == nil {
		delete(m, k)
	} else {
		b, _ := json.Marshal(v)
		m[k] = b
	}
	b, _ := json.Marshal(m)
	return b
}

type msgItem struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (r *renderer) flushUserText() {
	if len(r.userText) > 0 {
		r.add(msgItem{Role: "user", Content: strings.Join(r.userText, "\n\n")})
		r.userText = nil
	}
}

func (r *renderer) user(m agent.Message) {
	for i, p := range m.Parts {
		if p.Type == agent.PartText {
			r.userText = append(r.userText, p.Text)
			continue
		}
		if p.Type == agent.PartImage {
			r.attached(m.Parts[i:])
			break
		}
		r.flushUserText()
		switch {
		case p.Type == agent.PartToolResult && p.ToolResult != nil:
			if r.calls[p.ToolResult.CallID] {
				r.add(callOutput(*p.ToolResult))
			}
		case p.Type == agent.PartSearchResult && p.SearchResult != nil:
			r.clientResult(*p.SearchResult)
		case p.Type == agent.PartServerTool && p.ServerTool != nil && r.approvals[p.ServerTool.ID]:
			var d struct {
				Approve bool `json:"approve"`
			}
			if a := p.ServerTool.Approved; a != nil {
				d.Approve = *a
			} else {
				// Sessions stored before Approved existed kept the answer here.
				_ = json.Unmarshal(p.ServerTool.Result, &d)
			}
			r.add(struct {
				Type              string `json:"type"`
				ApprovalRequestID string `json:"approval_request_id"`
				Approve           bool   `json:"approve"`
			}{"mcp_approval_response", p.ServerTool.ID, d.Approve})
		}
	}
	r.flushUserText()
}

type functionCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output any    `json:"output"`
}

// attached renders the user's text with the images attached to it (the
// image parts and any text after them) as one message of input_text and
// input_image parts.
func (r *renderer) attached(rest []agent.Part) {
	content := []map[string]string{}
	if len(r.userText) > 0 {
		content = append(content, map[string]string{"type": "input_text", "text": strings.Join(r.userText, "\n\n")})
		r.userText = nil
	}
	for _, p := range rest {
		switch {
		case p.Type == agent.PartText:
			content = append(content, map[string]string{"type": "input_text", "text": p.Text})
		case p.Type == agent.PartImage && p.Image != nil:
			content = append(content, inputImage(*p.Image))
		}
	}
	r.add(struct {
		Role    string              `json:"role"`
		Content []map[string]string `json:"content"`
	}{"user", content})
}

// inputImage is an input_image part with its bytes in a data URL.
func inputImage(im agent.Image) map[string]string {
	return map[string]string{"type": "input_image", "image_url": "data:" + im.MediaType + ";base64," + im.Data}
}

func callOutput(tr agent.ToolResult) functionCallOutput {
	text := tr.Text
	if text == "" && len(tr.Images) == 0 {
		text = "(no output)"
	}
	if len(tr.Images) == 0 {
		return functionCallOutput{"function_call_output", wireCallID(tr.CallID), text}
	}
	parts := []map[string]string{}
	if text != "" {
		parts = append(parts, map[string]string{"type": "input_text", "text": text})
	}
	for _, im := range tr.Images {
		parts = append(parts, inputImage(im))
	}
	return functionCallOutput{"function_call_output", wireCallID(tr.CallID), parts}
}

// clientResult answers a client search in the form this request uses.
func (r *renderer) clientResult(res agent.SearchResult) {
	if res.Where != agent.WhereClient || !r.searches[res.CallID] {
		return
	}
	r.searchOutput(res.CallID, res.Tools, res.Error)
}

// searchOutput renders the answer to a client-form search call.
func (r *renderer) searchOutput(callID string, names []string, errText string) {
	switch {
	case r.pl.hosted || r.pl.clientTS:
		for _, n := range names {
			r.loaded[n] = true
		}
		r.add(struct {
			Type      string          `json:"type"`
			CallID    string          `json:"call_id"`
			Execution string          `json:"execution"`
			Status    string          `json:"status"`
			Tools     []namespaceTool `json:"tools"`
		}{"tool_search_output", wireCallID(callID), "client", "completed", r.loadedNamespaces(names)})
	case r.pl.fnSearch:
		r.add(functionCallOutput{"function_call_output", wireCallID(callID), fnSearchOutput(r.pl, names, errText)})
	}
}

// loadedNamespaces is what a client tool_search_output loads: each found
// tool inside its namespace, the namespace holding only the found members,
// the way hosted search answers (a namespace with the members it loaded)
// and the way OpenAI's agents SDK answers a client search over namespace
// members. Namespaces come in the order of their first found tool.
func (r *renderer) loadedNamespaces(names []string) []namespaceTool {
	out := []namespaceTool{}
	at := map[string]int{}
	for _, n := range names {
		ns, ok := r.pl.nsOf[n]
		if !ok {
			continue
		}
		i, ok := at[ns]
		if !ok {
			i = len(out)
			at[ns] = i
			for _, g := range r.pl.groups {
				if g.Name == ns {
					out = append(out, g.defOf(nil))
					break
				}
			}
		}
		dup := false
		for _, f := range out[i].Tools {
			dup = dup || f.Name == n
		}
		if !dup {
			out[i].Tools = append(out[i].Tools, fnDef(r.pl.catalog[n], true))
		}
	}
	return out
}

// fnSearchOutput is the text a tool_search function call returns: the found
// tools with full schemas, so the model can call them through tool_call.
func fnSearchOutput(pl plan, names []string, errText string) string {
	if errText != "" {
		return "tool search failed: " + errText
	}
	type found struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema,omitempty"`
	}
	list := []found{}
	for _, n := range names {
		if d, ok := pl.catalog[n]; ok {
			list = append(list, found{d.Name, d.Description, d.Schema})
		}
	}
	b, _ := json.Marshal(map[string]any{"tools": list, "note": "call these with tool_call {name, arguments}"})
	if len(list) == 0 {
		return `{"tools":[],"note":"no matching tools; try other keywords"}`
	}
	return string(b)
}

type functionCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Namespace string `json:"namespace,omitempty"`
}

// toolCall renders a neutral tool call for this request.
func (r *renderer) toolCall(tc agent.ToolCall) {
	args := string(tc.Input)
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	r.calls[tc.ID] = true
	if r.pl.fnSearch && !r.pl.topLevel[tc.Name] {
		if _, ok := r.pl.catalog[tc.Name]; ok {
			w, _ := json.Marshal(struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}{tc.Name, json.RawMessage(args)})
			r.add(functionCall{"function_call", wireCallID(tc.ID), fnCallName, string(w), ""})
			return
		}
	}
	r.ensureLoaded(tc.Name, tc.ID)
	r.add(functionCall{"function_call", wireCallID(tc.ID), tc.Name, args, r.namespaceFor(tc.Name)})
}

// ensureLoaded puts a client search pair that loads name before a call of
// it when client search has not loaded it yet in this input: the tools
// array holds no deferred definition, and OpenAI makes callable only what
// a tool_search_output listed. It happens when the model called a tool it
// never searched for (deferral is not a permission) or the history comes
// from a form that declared the tool in the tools array.
func (r *renderer) ensureLoaded(name, callID string) {
	if !r.pl.clientTS || r.pl.topLevel[name] || r.loaded[name] {
		return
	}
	if _, ok := r.pl.catalog[name]; !ok {
		return
	}
	id := "load_" + callID
	r.searchCall(agent.SearchCall{ID: id, Names: []string{name}, Where: agent.WhereClient})
	r.searchOutput(id, []string{name}, "")
}

// inCatalog reports whether the request offers name, deferred or not.
func (r *renderer) inCatalog(name string) bool {
	_, ok := r.pl.catalog[name]
	return ok || r.pl.topLevel[name]
}

// namespaceFor is the namespace a call of a function needs in this
// request: its group's name for a deferred tool sent with tool_search, none
// for a function in the default namespace.
func (r *renderer) namespaceFor(name string) string {
	if r.pl.topLevel[name] {
		return ""
	}
	return r.pl.nsOf[name]
}

// searchCall renders the call half of a client-form search (a neutral
// client search, or a provider search carried over from elsewhere).
func (r *renderer) searchCall(sc agent.SearchCall) bool {
	q := sc.Query
	if q == "" && sc.Pattern != "" {
		q = sc.Pattern
	}
	if q == "" && len(sc.Names) > 0 {
		q = "select:" + strings.Join(sc.Names, ",")
	}
	args := map[string]any{"query": q}
	if sc.Limit > 0 {
		args["limit"] = sc.Limit
	}
	switch {
	case r.pl.hosted || r.pl.clientTS:
		r.searches[sc.ID] = true
		r.add(struct {
			Type      string         `json:"type"`
			CallID    string         `json:"call_id"`
			Execution string         `json:"execution"`
			Status    string         `json:"status"`
			Arguments map[string]any `json:"arguments"`
		}{"tool_search_call", wireCallID(sc.ID), "client", "completed", args})
		return true
	case r.pl.fnSearch:
		r.searches[sc.ID] = true
		b, _ := json.Marshal(args)
		r.add(functionCall{"function_call", wireCallID(sc.ID), fnSearchName, string(b), ""})
		return true
	}
	return false
}

// providerSearch carries a provider-run search over as a client-form pair.
func (r *renderer) providerSearch(sc agent.SearchCall) {
	if !r.searchCall(sc) {
		return
	}
	var names []string
	errText := ""
	if res := r.provResults[sc.ID]; res != nil {
		names, errText = res.Tools, res.Error
	}
	r.searchOutput(sc.ID, names, errText)
}

func (r *renderer) assistant(m agent.Message) error {
	if raw := m.RawFor("openai", "responses"); raw != nil {
		var items []json.RawMessage
		if err := json.Unmarshal(raw.Data, &items); err != nil {
			return fmt.Errorf("replay openai output items: %w", err)
		}
		r.rawItems(items, m)
		return nil
	}
	var text []string
	flush := func() {
		if len(text) > 0 {
			r.add(msgItem{Role: "assistant", Content: strings.Join(text, "")})
			text = nil
		}
	}
	for _, p := range m.Parts {
		if p.Type == agent.PartText {
			text = append(text, p.Text)
			continue
		}
		flush()
		switch {
		case p.Type == agent.PartToolCall && p.ToolCall != nil:
			r.toolCall(*p.ToolCall)
		case p.Type == agent.PartSearchCall && p.SearchCall != nil && p.SearchCall.Where == agent.WhereProvider:
			r.providerSearch(*p.SearchCall)
		case p.Type == agent.PartSearchCall && p.SearchCall != nil:
			r.searchCall(*p.SearchCall)
		}
		// Other providers' server tools cannot be replayed here; their text
		// answer is kept.
	}
	flush()
	return nil
}

// rawItems replays our own output items, adapted to this request's plan.
func (r *renderer) rawItems(items []json.RawMessage, m agent.Message) {
	// Reasoning made for another organization is refused (origin.go).
	keep := r.filter.keeps(messageOrigin(m))
	byID := map[string]agent.Part{}
	for _, p := range m.Parts {
		switch {
		case p.ToolCall != nil:
			byID[p.ToolCall.ID] = p
		case p.SearchCall != nil:
			byID[p.SearchCall.ID] = p
		}
	}
	for _, raw := range items {
		var it item
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		callID := ""
		if it.CallID != nil {
			callID = *it.CallID
		}
		switch it.Type {
		case "tool_search_call":
			p, ok := byID[it.ID]
			if it.Execution == "client" {
				p, ok = byID[callID]
			}
			switch {
			case r.pl.hosted || (r.pl.clientTS && it.Execution == "client"):
				if it.Execution == "client" {
					r.searches[callID] = true
				}
				r.addRaw(raw, it.ID)
			case ok && it.Execution == "client":
				r.searchCall(*p.SearchCall)
			case ok:
				r.providerSearch(*p.SearchCall)
			}
		case "tool_search_output":
			if r.pl.hosted {
				r.addRaw(raw, it.ID)
			}
			// Otherwise the pair was rendered with its call.
		case "function_call":
			r.functionCallItem(raw, it, callID, byID[callID])
		case "reasoning":
			// A model that does not reason cannot take another model's
			// reasoning (after a switch to, say, gpt-4.1): it rejects
			// encrypted content, so the items are left out.
			if !r.pl.reasoning || !keep {
				continue
			}
			// Without storage a reasoning item can only be replayed with its
			// encrypted content; the API answers 404 for a bare rs_ id.
			var rs struct {
				EncryptedContent *string `json:"encrypted_content"`
			}
			_ = json.Unmarshal(raw, &rs)
			if rs.EncryptedContent == nil && !r.pl.store {
				continue
			}
			if r.seen[it.ID] {
				raw = withField(raw, "id", nil)
			}
			r.seen[it.ID] = true
			r.reasoning = append(r.reasoning, raw)
		case "mcp_approval_request":
			r.approvals[it.ID] = true
			r.addRaw(raw, it.ID)
		default:
			r.addRaw(raw, it.ID)
		}
	}
	r.reasoning = nil
}

func (r *renderer) functionCallItem(raw json.RawMessage, it item, callID string, p agent.Part) {
	// A call our parser read as a function-based search or wrapped call.
	if p.SearchCall != nil {
		if r.pl.fnSearch {
			r.searches[callID] = true
			r.addRaw(raw, it.ID)
			return
		}
		r.searchCall(*p.SearchCall)
		return
	}
	if p.ToolCall != nil && p.ToolCall.Name != it.Name {
		if r.pl.fnSearch {
			r.calls[callID] = true
			r.addRaw(raw, it.ID)
			return
		}
		r.toolCall(*p.ToolCall)
		return
	}
	if r.pl.fnSearch && !r.pl.topLevel[it.Name] {
		if _, ok := r.pl.catalog[it.Name]; ok {
			r.toolCall(agent.ToolCall{ID: callID, Name: it.Name, Input: argsObject(it.Arguments)})
			return
		}
	}
	r.calls[callID] = true
	r.ensureLoaded(it.Name, callID)
	// A call is replayed with the namespace it came with, which is the one
	// this request's tools array gives it while the settings are unchanged.
	// When they changed (search mode, the deferred set, or history from
	// before tools were grouped, where a deferred function was its own
	// namespace), the namespace is the one the function has now: the API
	// rejects a call whose namespace does not hold the function.
	want := r.namespaceFor(it.Name)
	switch {
	case want != "" && it.Namespace != want:
		raw = withField(raw, "namespace", want)
	case want == "" && it.Namespace != "" && r.pl.topLevel[it.Name]:
		// The function is in the default namespace in this request.
		raw = withField(raw, "namespace", nil)
	case want == "" && it.Namespace != "" && !r.pl.hosted && !r.inCatalog(it.Name):
		// The function is gone (its server removed or disabled since), and
		// no namespace of this request holds it: only a hosted search's
		// replayed output still defines it. The API rejects a call in a
		// namespace that does not hold the function; in the default
		// namespace a call of a function no longer offered is history.
		raw = withField(raw, "namespace", nil)
	}
	r.addRaw(raw, it.ID)
}
