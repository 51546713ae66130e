// Package telemetry exports a run's traces and metrics over OTLP with the
// official OpenTelemetry SDK, when the user turns it on (config key
// telemetry, AGENT_ENABLE_TELEMETRY=1). Where the data goes is the standard
// variables' business: OTEL_EXPORTER_OTLP_ENDPOINT, _PROTOCOL, _HEADERS,
// _TIMEOUT, _COMPRESSION, _INSECURE, the certificate files and the
// per-signal forms (otlpconfig.go), and for the resource OTEL_SERVICE_NAME
// and OTEL_RESOURCE_ATTRIBUTES (read by the SDK).
//
// The SDK builds the spans and metrics and the official protobuf types
// (go.opentelemetry.io/proto/otlp) encode them; the transport, OTLP over
// http/protobuf or grpc, is this package's own (otlpsend.go), so that the
// binary links neither google.golang.org/grpc nor grpc-gateway, which every
// start of every command would otherwise initialise.
//
// It watches the agent's typed events (Turn.Observe) rather than living in
// the core: package agent knows nothing of OpenTelemetry. Nothing here is
// set up, and no exporter built, unless Start is called.
//
// An unreachable collector never holds a turn: spans go through the batch
// processor (ending a span only queues it), exports have a short timeout and
// are not retried, and Shutdown gives the last export a bounded wait.
// Telemetry stays off the turn's path: the SDK is built in the background
// (Start only reads the settings), a first metrics export at start (made
// only if the collector takes the connection) warms the encoder and the
// connection, the last export starts as the app begins to
// close (Finish) and runs beside the store's close, and a collector that
// refused twice is not sent the last export at all (refused.go).
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ShutdownWait bounds the last export at exit: with the collector down,
// -p returns at most this much later.
const ShutdownWait = 2 * time.Second

// exportTimeout is each export's limit when OTEL_EXPORTER_OTLP_TIMEOUT
// (or the signal's own) says none: the SDK's 10 s would let a collector that
// accepts connections and never answers hold the exporter that long.
const exportTimeout = 5 * time.Second

// Options are what Start needs besides the process environment the
// exporters read.
type Options struct {
	// Getenv reads OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_SDK_DISABLED and
	// OTEL_{TRACES,METRICS}_EXPORTER.
	Getenv func(string) string
	// Version is service.version (OTEL_RESOURCE_ATTRIBUTES may replace it).
	Version string
	// LogContent puts prompts, tool arguments and results and search
	// queries into spans (telemetry_log_content).
	LogContent bool
}

// Telemetry is the running export. A nil *Telemetry is off: every method
// does nothing.
//
// Start builds the SDK in the background: its set-up (providers,
// instruments, the global handlers; 1–2 ms of cold code after
// internal/residency released the binary's pages) runs beside the rest of
// the start, and what needs it waits for ready.
type Telemetry struct {
	logContent bool
	// conns are the exporters' HTTP clients, shared by the two signals.
	conns *clients

	// ready is closed once build has set the fields below.
	ready  chan struct{}
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	reader *sdkmetric.PeriodicReader // nil when metrics are off
	tracer trace.Tracer
	m      instruments

	// pending are the calls made before ready, run by build.
	mu      sync.Mutex
	built   bool
	pending []func()

	// early is closed when build's first metrics export is done.
	early chan struct{}

	// finished is closed when the last export, started by Finish, is done.
	finishOnce sync.Once
	finished   chan struct{}
	finishErr  error
}

// ErrConfig marks a telemetry setting that cannot be used (an unknown
// protocol): the run goes on without telemetry and says why.
var ErrConfig = errors.New("telemetry setting")

// Start reads the exporters' settings from the environment and builds the
// SDK in the background. Nothing is connected yet. A nil result with a nil
// error means the environment turned the SDK off (OTEL_SDK_DISABLED=true,
// or both OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER are none).
func Start(ctx context.Context, o Options) (*Telemetry, error) {
	getenv := o.Getenv
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	traces, err := signalOn(getenv, "OTEL_TRACES_EXPORTER")
	if err != nil {
		return nil, err
	}
	metrics, err := signalOn(getenv, "OTEL_METRICS_EXPORTER")
	if err != nil {
		return nil, err
	}
	if !traces && !metrics {
		return nil, nil
	}
	// Every setting is read here, so that one the run cannot use is said
	// at once; only the SDK's objects are built in the background.
	t := &Telemetry{logContent: o.LogContent, conns: &clients{}, ready: make(chan struct{}), early: make(chan struct{}),
		finished: make(chan struct{})}
	var spans *sender
	var points *metricExporter
	if traces {
		cfg, err := readSignalConfig(getenv, traceSignal)
		if err != nil {
			return nil, err
		}
		spans = &sender{cfg: cfg, http: t.conns.get(cfg), what: "spans"}
	}
	if metrics {
		cfg, err := readSignalConfig(getenv, metricSignal)
		if err != nil {
			return nil, err
		}
		if points, err = newMetricExporter(&sender{cfg: cfg, http: t.conns.get(cfg), what: "data points"}, getenv); err != nil {
			return nil, err
		}
	}
	res, rerr := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "agent"), attribute.String("service.version", o.Version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if res == nil {
		return nil, fmt.Errorf("%w: OTEL_RESOURCE_ATTRIBUTES: %v", ErrConfig, rerr)
	}
	go t.build(res, spans, points, o.Version)
	if rerr != nil {
		// A malformed OTEL_RESOURCE_ATTRIBUTES entry: the rest is used.
		return t, fmt.Errorf("%w: OTEL_RESOURCE_ATTRIBUTES: %v", ErrConfig, rerr)
	}
	return t, nil
}

// build makes the SDK's providers and instruments, runs the calls made
// before, and then, beside the turn, makes the last export cheap: a first
// metrics export, which sends the session's start at once and opens the
// connection the last export reuses, and the protobuf types' lazy set-up
// (most of telemetry's own CPU). With the collector refusing connections,
// neither is done.
func (t *Telemetry) build(res *resource.Resource, spans *sender, points *metricExporter, version string) {
	// The SDK reports failed exports through the global handler, which
	// writes to stderr by default: print mode's stderr is the user's, so
	// they go to the agent's log file. Their text names the endpoint at
	// most, never a header's value.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { slog.Warn("telemetry", "err", err) }))
	otel.SetLogger(logr.FromSlogHandler(slog.Default().Handler()))
	tracerOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if spans != nil {
		// otlptrace.New starts the client, which does nothing: it cannot fail.
		exp, err := otlptrace.New(context.Background(), traceClient{s: spans})
		if err != nil {
			otel.Handle(err)
		} else {
			tracerOpts = append(tracerOpts, sdktrace.WithBatcher(skipDown{exp, spans}))
		}
	}
	t.tp = sdktrace.NewTracerProvider(tracerOpts...)
	t.tracer = t.tp.Tracer("github.com/agent-dev/agent", trace.WithInstrumentationVersion(version))
	meterOpts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if points != nil {
		t.reader = sdkmetric.NewPeriodicReader(points)
		meterOpts = append(meterOpts, sdkmetric.WithReader(t.reader))
	}
	t.mp = sdkmetric.NewMeterProvider(meterOpts...)
	var err error
	if t.m, err = newInstruments(t.mp.Meter("github.com/agent-dev/agent", metric.WithInstrumentationVersion(version))); err != nil {
		// The instruments' names and options are constants: an error is
		// this package's bug, which the tests catch; the SDK's instruments
		// work all the same.
		otel.Handle(err)
	}
	t.mu.Lock()
	pending := t.pending
	t.pending, t.built = nil, true
	t.mu.Unlock()
	close(t.ready)
	for _, f := range pending {
		f()
	}
	refused := false
	if t.reader != nil {
		// The first export is made only if the collector takes the
		// connection (refused.go), which it then uses.
		if refused = points.s.http.probe(context.Background(), points.s.cfg.url); refused {
			otel.Handle(&exportError{What: "OTLP export to " + points.s.cfg.url, Detail: "the collector refused the connection; the last export asks again"})
		} else if err := t.reader.ForceFlush(context.Background()); err != nil && !errors.Is(err, sdkmetric.ErrReaderShutdown) {
			// Bounded by the export timeout; the last export waits for it
			// (the connection it opens is the one the last export reuses)
			// at most until ShutdownWait, then cancels it.
			otel.Handle(err)
		}
	}
	if spans != nil && !(refused && spans.http == points.s.http) {
		warmTraceTypes()
	}
	close(t.early)
}

// whenBuilt runs f now if the SDK is built, else right after build.
func (t *Telemetry) whenBuilt(f func()) {
	t.mu.Lock()
	if !t.built {
		t.pending = append(t.pending, f)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	f()
}

// signalOn reads OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER: otlp (the
// default) or none.
func signalOn(getenv func(string) string, name string) (bool, error) {
	switch v := strings.TrimSpace(getenv(name)); v {
	case "", "otlp":
		return true, nil
	case "none":
		return false, nil
	default:
		return false, fmt.Errorf("%w: %s=%q: this agent exports otlp or none", ErrConfig, name, v)
	}
}

// protocol is the signal's OTLP protocol: OTEL_EXPORTER_OTLP_{SIGNAL}_PROTOCOL,
// else OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf (the specification's
// default).
func protocol(getenv func(string) string, signal string) (string, error) {
	name := "OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL"
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		name = "OTEL_EXPORTER_OTLP_PROTOCOL"
		v = strings.TrimSpace(getenv(name))
	}
	switch v {
	case "", "http/protobuf":
		return "http/protobuf", nil
	case "grpc":
		return "grpc", nil
	default:
		return "", fmt.Errorf("%w: %s=%q: use http/protobuf or grpc", ErrConfig, name, v)
	}
}

// Finish starts the last export (what is queued and the metrics) and
// returns: the closers that follow (the store's) run beside it, and
// Shutdown waits for it. Nothing recorded after Finish is exported.
func (t *Telemetry) Finish() {
	if t == nil {
		return
	}
	t.finishOnce.Do(func() {
		go func() {
			<-t.ready // build does not wait on the network
			ctx, cancel := context.WithTimeout(context.Background(), ShutdownWait)
			defer cancel()
			// The first export, if still under way, goes first: the
			// connection it opens (or the probe's) is the one the last
			// export reuses.
			select {
			case <-t.early:
			case <-ctx.Done():
			}
			t.conns.confirmDown(ctx)
			done := make(chan error, 1)
			go func() { done <- t.mp.Shutdown(ctx) }()
			err := t.tp.Shutdown(ctx)
			t.finishErr = errors.Join(err, <-done)
			t.conns.close()
			close(t.finished)
		}()
	})
}

// Shutdown makes the last export (Finish) and waits for it, at most
// ShutdownWait from Finish's start (or until ctx is done).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.Finish()
	bound := time.NewTimer(ShutdownWait + 100*time.Millisecond)
	defer bound.Stop()
	select {
	case <-t.finished:
		return t.finishErr
	case <-bound.C:
		return fmt.Errorf("telemetry: the last export took over %s: %w", ShutdownWait, context.DeadlineExceeded)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SessionStarted counts a session (agent.session.count): a new one, or a
// resumed one with resumed set.
func (t *Telemetry) SessionStarted(ctx context.Context, provider string, resumed bool) {
	if t == nil {
		return
	}
	t.whenBuilt(func() {
		t.m.sessions.Add(ctx, 1, metric.WithAttributes(attribute.String(attrProvider, provider), attribute.Bool("agent.session.resumed", resumed)))
	})
}
