package geminitest

import "fmt"

// IDMode says which ids the fake model gives its function calls.
//
// FunctionCall.id is optional in the API reference ("If populated, the
// client to execute the function_call and return the response with the
// matching id"); Google's function calling guide says Gemini 3 always
// returns one. Gemini 2.x on the Developer API often returns none
// (apache/flink-agents#947), and ids are not unique over a session: Vertex
// AI's gemini-3.5-flash mints call_<n> from a space small enough to repeat
// within one session (google/adk-python#6761).
type IDMode int

const (
	// IDsDefault: unique ids on Gemini 3 (call_1, call_2, ... over the
	// server's life), none on other models.
	IDsDefault IDMode = iota
	// IDsNone: no call has an id.
	IDsNone
	// IDsPerResponse: every response numbers its calls from call_1, so a
	// session's turns reuse the same ids.
	IDsPerResponse
)

// callID is the id of the n-th function call (from 1) of a response.
func (s *Server) callID(model string, n int) string {
	switch {
	case s.CallIDs == IDsNone, s.CallIDs == IDsDefault && !gemini3(model):
		return ""
	case s.CallIDs == IDsPerResponse:
		return fmt.Sprintf("call_%d", n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return fmt.Sprintf("call_%d", s.calls)
}

// invalidArgument is the API's bare answer to a request it cannot map,
// without saying where (google/adk-python#6761); Google documents no
// wording for a call answered without its id, so that gets it too.
const invalidArgument = "Request contains an invalid argument."

// checkResponseIDs applies the id rules to every function response: one
// with an id answers the call of the previous model content that has that
// id and the same name (a response paired by id with another tool's call
// is the 400 of google/adk-python#6761); a call that has an id is answered
// with it ("This must be sent back in the associated FunctionResponse":
// Firebase AI Logic's FunctionCall.id reference; Google's function calling
// guide: include the call's exact id in the functionResponse). A response
// may carry an id its call lacks (gemini-cli#6974 sent such requests).
func checkResponseIDs(b *body_) string {
	for i, ps := range b.parts {
		if i == 0 || b.Contents[i-1].Role != "model" {
			continue
		}
		byID := map[string]string{}
		var withID []string
		for _, p := range b.parts[i-1] {
			if p.FunctionCall != nil && p.FunctionCall.ID != "" {
				byID[p.FunctionCall.ID] = p.FunctionCall.Name
				withID = append(withID, p.FunctionCall.ID)
			}
		}
		answered := map[string]bool{}
		for _, p := range ps {
			r := p.FunctionResponse
			if r == nil || r.ID == "" {
				continue
			}
			name, ok := byID[r.ID]
			if len(byID) > 0 && (!ok || name != r.Name) {
				return invalidArgument
			}
			answered[r.ID] = true
		}
		for _, id := range withID {
			if !answered[id] {
				return invalidArgument
			}
		}
	}
	return ""
}
