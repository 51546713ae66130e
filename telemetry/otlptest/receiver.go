// Package otlptest is a local OTLP receiver for tests: it listens on
// loopback over http/protobuf or grpc, decodes what arrives with the
// official protobuf types (go.opentelemetry.io/proto/otlp) and keeps it.
// It counts the connections it accepts. Its HTTP side answers as the OTLP/HTTP specification says a collector
// does: POST only (405), /v1/traces and /v1/metrics only (404),
// application/x-protobuf only (415), gzip bodies decoded, an undecodable
// body refused with 400 and a google.rpc.Status.
package otlptest

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // gzip-compressed calls (OTEL_EXPORTER_OTLP_COMPRESSION=gzip) are decoded as a collector does
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// Receiver keeps every export request it decoded, and the headers (HTTP)
// or metadata (grpc) each came with.
type Receiver struct {
	// Endpoint is the value for OTEL_EXPORTER_OTLP_ENDPOINT.
	Endpoint string
	// Protocol is the value for OTEL_EXPORTER_OTLP_PROTOCOL.
	Protocol string

	mu      sync.Mutex
	traces  []*coltracepb.ExportTraceServiceRequest
	metrics []*colmetricpb.ExportMetricsServiceRequest
	headers []map[string][]string
	changed chan struct{}
	conns   int
}

// Start starts a receiver speaking protocol ("http/protobuf" or "grpc"),
// stopped when the test ends.
func Start(t testing.TB, protocol string) *Receiver {
	t.Helper()
	r := &Receiver{Protocol: protocol, changed: make(chan struct{})}
	switch protocol {
	case "http/protobuf":
		srv := httptest.NewUnstartedServer(http.HandlerFunc(r.serveHTTP))
		srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				r.countConn()
			}
		}
		srv.Start()
		t.Cleanup(srv.Close)
		r.Endpoint = srv.URL
	case "grpc":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		coltracepb.RegisterTraceServiceServer(s, traceService{r: r})
		colmetricpb.RegisterMetricsServiceServer(s, metricsService{r: r})
		go func() { _ = s.Serve(countingListener{Listener: l, r: r}) }()
		t.Cleanup(s.Stop)
		r.Endpoint = "http://" + l.Addr().String()
	default:
		t.Fatalf("otlptest: unknown protocol %q", protocol)
	}
	return r
}

// Connections is how many connections the receiver accepted.
func (r *Receiver) Connections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns
}

func (r *Receiver) countConn() {
	r.mu.Lock()
	r.conns++
	r.mu.Unlock()
}

type countingListener struct {
	net.Listener
	r *Receiver
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.r.countConn()
	}
	return c, err
}

// Env is the environment that sends an exporter here.
func (r *Receiver) Env() map[string]string {
	return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": r.Endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": r.Protocol}
}

// Down is an endpoint where nothing listens: a loopback port that was free
// a moment ago.
func Down(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

func (r *Receiver) add(f func(), h map[string][]string) {
	r.mu.Lock()
	f()
	r.headers = append(r.headers, h)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// Wait waits until cond holds for what arrived, failing the test after
// timeout.
func (r *Receiver) Wait(t testing.TB, timeout time.Duration, what string, cond func(*Receiver) bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		if cond(r) {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("otlptest: no %s within %s", what, timeout)
		}
	}
}

// Span is a received span with its service's name.
type Span struct {
	*tracepb.Span
	Service string
	// Attrs are the span's attributes as text, ints and bools in their
	// string form.
	Attrs map[string]string
}

// Spans returns every span received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Span
	for _, req := range r.traces {
		for _, rs := range req.GetResourceSpans() {
			service := ""
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.GetKey() == "service.name" {
					service = kv.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					attrs := map[string]string{}
					for _, kv := range s.GetAttributes() {
						attrs[kv.GetKey()] = valueText(kv.GetValue())
					}
					out = append(out, Span{Span: s, Service: service, Attrs: attrs})
				}
			}
		}
	}
	return out
}

// Metrics returns the metrics received so far by name (the last export's
// data point of a cumulative metric holds its total).
func (r *Receiver) Metrics() map[string]*metricpb.Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]*metricpb.Metric{}
	for _, req := range r.metrics {
		for _, rm := range req.GetResourceMetrics() {
			for _, sm := range rm.GetScopeMetrics() {
				for _, m := range sm.GetMetrics() {
					out[m.GetName()] = m
				}
			}
		}
	}
	return out
}

// Headers returns the headers (HTTP) or metadata (grpc) of every request.
func (r *Receiver) Headers() []map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string][]string(nil), r.headers...)
}

// Raw returns every request's bytes as encoded again, to look for a value
// that must not be anywhere in them.
func (r *Receiver) Raw() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]byte
	for _, m := range r.traces {
		b, _ := proto.Marshal(m)
		out = append(out, b)
	}
	for _, m := range r.metrics {
		b, _ := proto.Marshal(m)
		out = append(out, b)
	}
	return out
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(w, "only POST", http.StatusMethodNotAllowed)
		return
	}
	var msg, resp proto.Message
	var keep func()
	switch req.URL.Path {
	case "/v1/traces":
		m := &coltracepb.ExportTraceServiceRequest{}
		msg, resp, keep = m, &coltracepb.ExportTraceServiceResponse{}, func() { r.traces = append(r.traces, m) }
	case "/v1/metrics":
		m := &colmetricpb.ExportMetricsServiceRequest{}
		msg, resp, keep = m, &colmetricpb.ExportMetricsServiceResponse{}, func() { r.metrics = append(r.metrics, m) }
	default:
		http.NotFound(w, req)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "unsupported content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			badRequest(w, err)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	if err == nil {
		err = proto.Unmarshal(b, msg)
	}
	if err != nil {
		badRequest(w, err)
		return
	}
	r.add(keep, req.Header.Clone())
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = io.Copy(w, bytes.NewReader(out))
}

// badRequest answers 400 with a google.rpc.Status, as a collector does.
func badRequest(w http.ResponseWriter, err error) {
	b, _ := proto.Marshal(&status.Status{Code: 3, Message: err.Error()})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.r.add(func() { s.r.traces = append(s.r.traces, req) }, md)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

type metricsService struct {
	colmetricpb.UnimplementedMetricsServiceServer
	r *Receiver
}

func (s metricsService) Export(ctx context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.r.add(func() { s.r.metrics = append(s.r.metrics, req) }, md)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// valueText writes an attribute value as text: strings as they are,
// numbers and bools in Go's notation, arrays as [a b].
func valueText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, valueText(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return ""
}
