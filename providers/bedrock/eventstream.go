package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// sseBody reads InvokeModelWithResponseStream's event-stream frames and
// yields the Messages API stream events they carry as SSE: each "chunk"
// event's payload is {"bytes": base64 of one stream event}; an exception
// frame becomes an SSE error event.
type sseBody struct {
	src  io.ReadCloser
	dec  *eventstream.Decoder
	buf  bytes.Buffer
	pay  []byte
	done bool
}

func newSSEBody(src io.ReadCloser) io.ReadCloser {
	return &sseBody{src: src, dec: eventstream.NewDecoder()}
}

func (s *sseBody) Close() error { return s.src.Close() }

func (s *sseBody) Read(p []byte) (int, error) {
	for s.buf.Len() == 0 {
		if s.done {
			return 0, io.EOF
		}
		if err := s.next(); err != nil {
			if errors.Is(err, io.EOF) {
				s.done = true
				continue
			}
			return 0, err
		}
	}
	return s.buf.Read(p)
}

// next decodes one frame into buf.
func (s *sseBody) next() error {
	msg, err := s.dec.Decode(s.src, s.pay)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return io.ErrUnexpectedEOF
		}
		return fmt.Errorf("bedrock: event stream: %w", err)
	}
	switch header(msg, ":message-type") {
	case "event":
		if t := header(msg, ":event-type"); t != "chunk" {
			return nil // unknown events are skipped, as the SDKs do
		}
		var chunk struct {
			Bytes []byte `json:"bytes"` // base64 in JSON
		}
		if err := json.Unmarshal(msg.Payload, &chunk); err != nil {
			return fmt.Errorf("bedrock: event stream chunk: %w", err)
		}
		s.writeData(chunk.Bytes)
	case "exception":
		exc := header(msg, ":exception-type")
		var body struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(msg.Payload, &body)
		s.writeError(exc, body.Message)
	case "error":
		s.writeError(header(msg, ":error-code"), header(msg, ":error-message"))
	}
	return nil
}

func (s *sseBody) writeData(data []byte) {
	var c bytes.Buffer
	if json.Compact(&c, data) != nil {
		c.Reset()
		c.WriteString(base64.StdEncoding.EncodeToString(data)) // not JSON: the adapter reports it
	}
	s.buf.WriteString("data: ")
	s.buf.Write(c.Bytes())
	s.buf.WriteString("\n\n")
}

func (s *sseBody) writeError(exc, msg string) {
	typ := errorTypes[upperFirst(exc)]
	if typ == "" {
		typ = "api_error"
	}
	if exc != "" {
		msg = exc + ": " + msg
	}
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	s.writeData(b)
}

func header(m eventstream.Message, name string) string {
	v := m.Headers.Get(name)
	if v == nil {
		return ""
	}
	return v.String()
}

// upperFirst turns the stream's "throttlingException" into the
// "ThrottlingException" of the error table.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
