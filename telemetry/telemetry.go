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
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
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
type Telemetry struct {
	tp         *sdktrace.TracerProvider
	mp         *sdkmetric.MeterProvider
	tracer     trace.Tracer
	m          instruments
	logContent bool
	// conns are the exporters' HTTP clients, shared by the two signals.
	conns *clients
}

// ErrConfig marks a telemetry setting that cannot be used (an unknown
// protocol): the run goes on without telemetry and says why.
var ErrConfig = errors.New("telemetry setting")

// Start builds the exporters the environment describes. Nothing is
// connected yet: the first export dials. A nil result with a nil error
// means the environment turned the SDK off (OTEL_SDK_DISABLED=true, or
// both OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER are none).
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
	res, rerr := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "agent"), attribute.String("service.version", o.Version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if res == nil {
		return nil, fmt.Errorf("%w: OTEL_RESOURCE_ATTRIBUTES: %v", ErrConfig, rerr)
	}
	// The SDK reports failed exports through the global handler, which
	// writes to stderr by default: print mode's stderr is the user's, so
	// they go to the agent's log file. Their text names the endpoint at
	// most, never a header's value.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { slog.Warn("telemetry", "err", err) }))
	otel.SetLogger(logr.FromSlogHandler(slog.Default().Handler()))

	t := &Telemetry{logContent: o.LogContent, conns: &clients{}}
	tracerOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if traces {
		exp, err := newTraceExporter(ctx, getenv, t.conns)
		if err != nil {
			return nil, err
		}
		tracerOpts = append(tracerOpts, sdktrace.WithBatcher(exp))
	}
	t.tp = sdktrace.NewTracerProvider(tracerOpts...)
	t.tracer = t.tp.Tracer("github.com/agent-dev/agent", trace.WithInstrumentationVersion(o.Version))
	meterOpts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if metrics {
		exp, err := newMetricsExporter(getenv, t.conns)
		if err != nil {
			_ = t.tp.Shutdown(ctx)
			return nil, err
		}
		meterOpts = append(meterOpts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	t.mp = sdkmetric.NewMeterProvider(meterOpts...)
	if t.m, err = newInstruments(t.mp.Meter("github.com/agent-dev/agent", metric.WithInstrumentationVersion(o.Version))); err != nil {
		_ = t.Shutdown(ctx)
		return nil, err
	}
	if rerr != nil {
		// A malformed OTEL_RESOURCE_ATTRIBUTES entry: the rest is used.
		return t, fmt.Errorf("%w: OTEL_RESOURCE_ATTRIBUTES: %v", ErrConfig, rerr)
	}
	return t, nil
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

func newTraceExporter(ctx context.Context, getenv func(string) string, cs *clients) (sdktrace.SpanExporter, error) {
	cfg, err := readSignalConfig(getenv, traceSignal)
	if err != nil {
		return nil, err
	}
	return otlptrace.New(ctx, traceClient{s: &sender{cfg: cfg, http: cs.get(cfg), what: "spans"}})
}

func newMetricsExporter(getenv func(string) string, cs *clients) (sdkmetric.Exporter, error) {
	cfg, err := readSignalConfig(getenv, metricSignal)
	if err != nil {
		return nil, err
	}
	return newMetricExporter(&sender{cfg: cfg, http: cs.get(cfg), what: "data points"}, getenv)
}

// Shutdown flushes what is queued and stops the exporters, waiting at most
// ShutdownWait (or ctx's deadline, if sooner).
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownWait)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- t.mp.Shutdown(ctx) }()
	err := t.tp.Shutdown(ctx)
	err = errors.Join(err, <-done)
	t.conns.close()
	return err
}

// SessionStarted counts a session (agent.session.count): a new one, or a
// resumed one with resumed set.
func (t *Telemetry) SessionStarted(ctx context.Context, provider string, resumed bool) {
	if t == nil {
		return
	}
	t.m.sessions.Add(ctx, 1, metric.WithAttributes(attribute.String(attrProvider, provider), attribute.Bool("agent.session.resumed", resumed)))
}
