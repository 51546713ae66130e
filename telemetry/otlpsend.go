package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP senders are this package's own so that the binary does not link
// google.golang.org/grpc (and, through the collector packages of
// go.opentelemetry.io/proto/otlp, grpc-gateway): those packages are
// initialised on every start of every command, telemetry on or off. The
// data is still built by the official SDK and encoded with the official
// protobuf types; what is here is the transport the specification
// describes:
//   - OTLP/HTTP: POST of the binary protobuf request, 2xx with the
//     response message, else a google.rpc.Status body.
//   - OTLP/gRPC: one unary call over HTTP/2 (cleartext HTTP/2 with prior
//     knowledge for http:// endpoints): a length-prefixed message each way
//     and the outcome in the grpc-status trailer (gRPC's PROTOCOL-HTTP2).
// Both signals going to the same collector share one client, so over grpc
// they share one HTTP/2 connection.

// maxResponse bounds how much of a response is read.
const maxResponse = 4 << 20

// userAgent names this exporter to the collector.
const userAgent = "agent OTLP exporter (go.opentelemetry.io/otel/sdk)"

// clients are the HTTP clients of one Telemetry, one per kind of
// connection, shared by the signals.
type clients struct {
	mu sync.Mutex
	m  map[string]*conn
}

// conn is one kind of connection's client. Over HTTP/2 the first call
// goes alone: two signals exporting at once (as they do at shutdown) would
// otherwise each dial before either connection is up, and keep two.
type conn struct {
	hc    *http.Client
	h2    bool
	first chan struct{} // held by the call that opens the connection
	up    atomic.Bool   // a call went through: the pool has the connection
	// refused is the address of the last dial, when it was refused; down
	// is set when it was refused again just before the last export
	// (refused.go).
	refused atomic.Pointer[dialAddr]
	down    atomic.Pointer[dialAddr]
	// pre is the connection probe opened, which the next dial to its
	// address takes; proxy is the transport's.
	pre   atomic.Pointer[preDialed]
	proxy func(*http.Request) (*url.URL, error)
	// dialed: a connection was opened (so one may be idle in the pool).
	dialed atomic.Bool
}

func (c *conn) do(req *http.Request) (*http.Response, error) {
	if !c.h2 || c.up.Load() {
		return c.hc.Do(req)
	}
	select {
	case c.first <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	defer func() { <-c.first }()
	resp, err := c.hc.Do(req)
	if err == nil {
		c.up.Store(true)
	}
	return resp, err
}

func (cs *clients) get(c signalConfig) *conn {
	key := c.protocol + "\x00" + strconv.FormatBool(c.insecure) + "\x00" + c.tlsKey
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cn := cs.m[key]; cn != nil {
		return cn
	}
	cn := &conn{h2: c.protocol == "grpc", first: make(chan struct{}, 1)}
	t := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         cn.dialer(&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}),
		TLSClientConfig:     c.tls,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	if c.protocol == "grpc" {
		// gRPC is HTTP/2 only: h2 by ALPN over TLS, prior knowledge in
		// cleartext (no proxy can carry the latter).
		var p http.Protocols
		if c.insecure {
			p.SetUnencryptedHTTP2(true)
			t.Proxy = nil
		} else {
			p.SetHTTP2(true)
		}
		t.Protocols = &p
	}
	cn.hc, cn.proxy = &http.Client{Transport: t}, t.Proxy
	if cs.m == nil {
		cs.m = map[string]*conn{}
	}
	cs.m[key] = cn
	return cn
}

// close drops the idle connections once both signals are shut down.
func (cs *clients) close() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, cn := range cs.m {
		if p := cn.pre.Swap(nil); p != nil {
			_ = p.c.Close()
		}
		// Without a connection there is none to close, and the call
		// would set up the transport's HTTP/2 side (cold code) at exit.
		if cn.dialed.Load() {
			cn.hc.CloseIdleConnections()
		}
	}
}

// sender sends one signal's export requests.
type sender struct {
	cfg  signalConfig
	http *conn
	// what names the items a partial success counts (spans, data points).
	what string
}

// send posts one export request, msg being the request's encoding, within
// the export timeout.
func (s *sender) send(ctx context.Context, msg []byte) error {
	if s.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.timeout)
		defer cancel()
	}
	if s.cfg.protocol == "grpc" {
		return s.sendGRPC(ctx, msg)
	}
	return s.sendHTTP(ctx, msg)
}

func (s *sender) request(ctx context.Context, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range s.cfg.headers {
		if s.cfg.protocol == "grpc" {
			k = strings.ToLower(k) // gRPC metadata keys are lower case
		}
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", userAgent)
	return req, nil
}

func (s *sender) sendHTTP(ctx context.Context, msg []byte) error {
	body := msg
	if s.cfg.gzip {
		body = gzipped(msg)
	}
	req, err := s.request(ctx, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if s.cfg.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := s.http.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	defer drain(resp.Body)
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if resp.StatusCode/100 != 2 {
		detail := resp.Status
		if m := statusMessage(b); m != "" {
			detail += ": " + m
		}
		return &exportError{What: "OTLP/HTTP export to " + s.cfg.url, Detail: detail}
	}
	if err != nil {
		return err
	}
	s.partialSuccess(b)
	return nil
}

func (s *sender) sendGRPC(ctx context.Context, msg []byte) error {
	flag, payload := byte(0), msg
	if s.cfg.gzip {
		flag, payload = 1, gzipped(msg)
	}
	frame := make([]byte, 5, 5+len(payload))
	frame[0] = flag
	binary.BigEndian.PutUint32(frame[1:], uint32(len(payload)))
	frame = append(frame, payload...)
	req, err := s.request(ctx, frame)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
	if s.cfg.gzip {
		req.Header.Set("Grpc-Encoding", "gzip")
	}
	req.Header.Set("Grpc-Accept-Encoding", "gzip")
	if d, ok := ctx.Deadline(); ok {
		req.Header.Set("Grpc-Timeout", strconv.FormatInt(max(time.Until(d).Milliseconds(), 1), 10)+"m")
	}
	resp, err := s.http.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	defer drain(resp.Body)
	what := "OTLP/gRPC export to " + s.cfg.url
	if resp.StatusCode != http.StatusOK {
		return &exportError{What: what, Detail: resp.Status}
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/grpc") {
		return &exportError{What: what, Detail: "answered with content type " + strconv.Quote(ct) + ", not gRPC"}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return err
	}
	// The status is in the trailers, or in the headers of a trailers-only
	// answer (an error with no message).
	code := resp.Trailer.Get("Grpc-Status")
	message := resp.Trailer.Get("Grpc-Message")
	if code == "" {
		code, message = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	}
	if code == "" {
		return &exportError{What: what, Detail: "no grpc-status in the answer"}
	}
	if code != "0" {
		if m, err := url.PathUnescape(message); err == nil {
			message = m
		}
		return &exportError{What: what, Detail: "grpc-status " + code + " (" + grpcCodeName(code) + "): " + message}
	}
	if len(b) >= 5 {
		n := binary.BigEndian.Uint32(b[1:5])
		if int(n) <= len(b)-5 {
			m := b[5 : 5+n]
			if b[0] == 1 {
				m, err = gunzip(m, resp.Header.Get("Grpc-Encoding"))
				if err != nil {
					return &exportError{What: what, Detail: "undecodable answer: " + err.Error()}
				}
			}
			s.partialSuccess(m)
		}
	}
	return nil
}

// exportError is an export the collector refused or answered wrongly.
type exportError struct{ What, Detail string }

func (e *exportError) Error() string { return e.What + ": " + e.Detail }

// partialSuccess reports an Export*ServiceResponse's partial_success (field
// 1: rejected count as field 1, error_message as field 2) to the SDK's
// error handler, which logs it.
func (s *sender) partialSuccess(resp []byte) {
	ps := field(resp, 1)
	if ps == nil {
		return
	}
	var rejected uint64
	var message string
	forFields(ps, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) {
		switch {
		case num == 1 && typ == protowire.VarintType:
			rejected = n
		case num == 2 && typ == protowire.BytesType:
			message = string(v)
		}
	})
	if rejected > 0 || message != "" {
		otel.Handle(fmt.Errorf("OTLP partial success: %d %s rejected: %s", rejected, s.what, message))
	}
}

// statusMessage is a google.rpc.Status body's message (field 2), or "".
func statusMessage(b []byte) string {
	return string(field(b, 2))
}

// field returns the last length-delimited field num of a message, or nil.
func field(b []byte, num protowire.Number) []byte {
	var out []byte
	forFields(b, func(n protowire.Number, typ protowire.Type, v []byte, _ uint64) {
		if n == num && typ == protowire.BytesType {
			out = v
		}
	})
	return out
}

// forFields calls f for each field of a protobuf message until the end or
// the first malformed byte: v for length-delimited fields, n for varints.
func forFields(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, n uint64)) {
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return
		}
		b = b[l:]
		switch typ {
		case protowire.BytesType:
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return
			}
			f(num, typ, v, 0)
			b = b[l:]
		case protowire.VarintType:
			n, l := protowire.ConsumeVarint(b)
			if l < 0 {
				return
			}
			f(num, typ, nil, n)
			b = b[l:]
		default:
			l := protowire.ConsumeFieldValue(num, typ, b)
			if l < 0 {
				return
			}
			b = b[l:]
		}
	}
}

// repeated encodes messages as the repeated field 1 of an export request
// (resource_spans, resource_metrics), which is how the request message
// itself encodes.
func repeated(msgs [][]byte) []byte {
	n := 0
	for _, m := range msgs {
		n += protowire.SizeTag(1) + protowire.SizeBytes(len(m))
	}
	b := make([]byte, 0, n)
	for _, m := range msgs {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, m)
	}
	return b
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

func gunzip(b []byte, encoding string) ([]byte, error) {
	if encoding != "gzip" {
		return nil, errors.New("compressed with " + strconv.Quote(encoding))
	}
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(r, maxResponse))
}

// drain reads what is left of a body so the connection can be reused.
func drain(body io.Reader) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxResponse))
}

// grpcCodeName names a gRPC status code.
func grpcCodeName(code string) string {
	names := []string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
		"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
		"OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}
	if n, err := strconv.Atoi(code); err == nil && n >= 0 && n < len(names) {
		return names[n]
	}
	return "unknown code"
}
