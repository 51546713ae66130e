package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	cpb "go.opentelemetry.io/proto/otlp/common/v1"
	mpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	rpb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// traceClient is the official trace exporter's (otlptrace.New) transport:
// the SDK's exporter turns spans into the official protobuf types, this
// sends them.
type traceClient struct{ s *sender }

func (c traceClient) Start(context.Context) error { return nil }

// Stop has nothing of its own to close: the connection is shared with the
// metrics and closed by Telemetry.Shutdown.
func (c traceClient) Stop(context.Context) error { return nil }

func (c traceClient) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	if err := c.s.notSent(); err != nil {
		return err
	}
	msgs := make([][]byte, 0, len(spans))
	for _, rs := range spans {
		b, err := proto.Marshal(rs)
		if err != nil {
			return err
		}
		msgs = append(msgs, b)
	}
	return c.s.send(ctx, repeated(msgs))
}

// skipDown is the official trace exporter, skipped at once when the
// collector is confirmed down (refused.go): not even converted to the
// protobuf types.
type skipDown struct {
	sdktrace.SpanExporter
	s *sender
}

func (e skipDown) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.s.notSent(); err != nil {
		return err
	}
	return e.SpanExporter.ExportSpans(ctx, spans)
}

// warmTraceTypes encodes a throw-away request that holds every message
// type a span export uses. The protobuf runtime sets up each message
// type's descriptor and coder on its first encoding (about 0.7 ms for the
// trace types, cold): done here, beside the turn, it is not done at exit.
func warmTraceTypes() {
	kv := func(v *cpb.AnyValue) *cpb.KeyValue { return &cpb.KeyValue{Key: "k", Value: v} }
	str := &cpb.AnyValue{Value: &cpb.AnyValue_StringValue{StringValue: "v"}}
	attrs := []*cpb.KeyValue{
		kv(str),
		kv(&cpb.AnyValue{Value: &cpb.AnyValue_BoolValue{BoolValue: true}}),
		kv(&cpb.AnyValue{Value: &cpb.AnyValue_IntValue{IntValue: 1}}),
		kv(&cpb.AnyValue{Value: &cpb.AnyValue_DoubleValue{DoubleValue: 1}}),
		kv(&cpb.AnyValue{Value: &cpb.AnyValue_BytesValue{BytesValue: []byte{1}}}),
		kv(&cpb.AnyValue{Value: &cpb.AnyValue_ArrayValue{ArrayValue: &cpb.ArrayValue{Values: []*cpb.AnyValue{str}}}}),
		kv(&cpb.AnyValue{Value: &cpb.AnyValue_KvlistValue{KvlistValue: &cpb.KeyValueList{Values: []*cpb.KeyValue{kv(str)}}}}),
	}
	rs := &tracepb.ResourceSpans{
		Resource: &rpb.Resource{Attributes: attrs},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &cpb.InstrumentationScope{Name: "warm", Attributes: attrs},
			Spans: []*tracepb.Span{{
				TraceId: make([]byte, 16), SpanId: make([]byte, 8), Name: "warm", Kind: tracepb.Span_SPAN_KIND_CLIENT,
				StartTimeUnixNano: 1, EndTimeUnixNano: 2, Attributes: attrs,
				Events: []*tracepb.Span_Event{{TimeUnixNano: 1, Name: "e", Attributes: attrs}},
				Links:  []*tracepb.Span_Link{{TraceId: make([]byte, 16), SpanId: make([]byte, 8), Attributes: attrs}},
				Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "m"},
			}},
		}},
	}
	_, _ = proto.Marshal(rs)
}

// metricExporter is an sdkmetric.Exporter over the same transport. The
// official OTLP metric exporters keep their conversion to the protobuf
// types internal, so it is done here (toResourceMetrics).
type metricExporter struct {
	s           *sender
	temporality sdkmetric.TemporalitySelector
	aggregation sdkmetric.AggregationSelector

	mu      sync.Mutex
	stopped bool
}

var errStopped = errors.New("telemetry: metric exporter is shut down")

// newMetricExporter reads OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// (cumulative, delta, lowmemory) and
// OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION
// (explicit_bucket_histogram, base2_exponential_bucket_histogram) as the
// official exporters do.
func newMetricExporter(s *sender, getenv func(string) string) (*metricExporter, error) {
	e := &metricExporter{s: s, temporality: sdkmetric.CumulativeTemporalitySelector, aggregation: sdkmetric.DefaultAggregationSelector}
	const tname = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"
	switch v := getenv(tname); v {
	case "", "cumulative":
	case "delta":
		e.temporality = sdkmetric.DeltaTemporalitySelector
	case "lowmemory":
		e.temporality = sdkmetric.LowMemoryTemporalitySelector
	default:
		return nil, fmt.Errorf("%w: %s=%q: use cumulative, delta or lowmemory", ErrConfig, tname, v)
	}
	const aname = "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION"
	switch v := getenv(aname); v {
	case "", "explicit_bucket_histogram":
	case "base2_exponential_bucket_histogram":
		e.aggregation = func(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
			if k == sdkmetric.InstrumentKindHistogram {
				return sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}
			}
			return sdkmetric.DefaultAggregationSelector(k)
		}
	default:
		return nil, fmt.Errorf("%w: %s=%q: use explicit_bucket_histogram or base2_exponential_bucket_histogram", ErrConfig, aname, v)
	}
	return e, nil
}

func (e *metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return e.temporality(k)
}

func (e *metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return e.aggregation(k)
}

func (e *metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	e.mu.Lock()
	stopped := e.stopped
	e.mu.Unlock()
	if stopped {
		return errStopped
	}
	if err := e.s.notSent(); err != nil {
		return err
	}
	b, err := proto.Marshal(toResourceMetrics(rm))
	if err != nil {
		return err
	}
	return e.s.send(ctx, repeated([][]byte{b}))
}

// ForceFlush has nothing to flush: Export sends at once.
func (e *metricExporter) ForceFlush(ctx context.Context) error { return ctx.Err() }

func (e *metricExporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.stopped = true
	e.mu.Unlock()
	return ctx.Err()
}

func toResourceMetrics(rm *metricdata.ResourceMetrics) *mpb.ResourceMetrics {
	out := &mpb.ResourceMetrics{Resource: &rpb.Resource{Attributes: keyValues(rm.Resource.Attributes())}, SchemaUrl: rm.Resource.SchemaURL()}
	for _, sm := range rm.ScopeMetrics {
		s := &mpb.ScopeMetrics{
			Scope:     &cpb.InstrumentationScope{Name: sm.Scope.Name, Version: sm.Scope.Version, Attributes: keyValues(sm.Scope.Attributes.ToSlice())},
			SchemaUrl: sm.Scope.SchemaURL,
		}
		for _, m := range sm.Metrics {
			if pm := toMetric(m); pm != nil {
				s.Metrics = append(s.Metrics, pm)
			}
		}
		out.ScopeMetrics = append(out.ScopeMetrics, s)
	}
	return out
}

// toMetric converts one metric; nil for an aggregation OTLP has no form of
// (none the SDK produces today).
func toMetric(m metricdata.Metrics) *mpb.Metric {
	out := &mpb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
	switch d := m.Data.(type) {
	case metricdata.Gauge[int64]:
		out.Data = &mpb.Metric_Gauge{Gauge: &mpb.Gauge{DataPoints: numberPoints(d.DataPoints)}}
	case metricdata.Gauge[float64]:
		out.Data = &mpb.Metric_Gauge{Gauge: &mpb.Gauge{DataPoints: numberPoints(d.DataPoints)}}
	case metricdata.Sum[int64]:
		out.Data = &mpb.Metric_Sum{Sum: &mpb.Sum{DataPoints: numberPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality), IsMonotonic: d.IsMonotonic}}
	case metricdata.Sum[float64]:
		out.Data = &mpb.Metric_Sum{Sum: &mpb.Sum{DataPoints: numberPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality), IsMonotonic: d.IsMonotonic}}
	case metricdata.Histogram[int64]:
		out.Data = &mpb.Metric_Histogram{Histogram: &mpb.Histogram{DataPoints: histogramPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality)}}
	case metricdata.Histogram[float64]:
		out.Data = &mpb.Metric_Histogram{Histogram: &mpb.Histogram{DataPoints: histogramPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality)}}
	case metricdata.ExponentialHistogram[int64]:
		out.Data = &mpb.Metric_ExponentialHistogram{ExponentialHistogram: &mpb.ExponentialHistogram{DataPoints: expPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality)}}
	case metricdata.ExponentialHistogram[float64]:
		out.Data = &mpb.Metric_ExponentialHistogram{ExponentialHistogram: &mpb.ExponentialHistogram{DataPoints: expPoints(d.DataPoints), AggregationTemporality: temporality(d.Temporality)}}
	case metricdata.Summary:
		out.Data = &mpb.Metric_Summary{Summary: &mpb.Summary{DataPoints: summaryPoints(d.DataPoints)}}
	default:
		return nil
	}
	return out
}

func temporality(t metricdata.Temporality) mpb.AggregationTemporality {
	switch t {
	case metricdata.DeltaTemporality:
		return mpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	case metricdata.CumulativeTemporality:
		return mpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	}
	return mpb.AggregationTemporality_AGGREGATION_TEMPORALITY_UNSPECIFIED
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

func numberPoints[N int64 | float64](dps []metricdata.DataPoint[N]) []*mpb.NumberDataPoint {
	out := make([]*mpb.NumberDataPoint, 0, len(dps))
	for _, dp := range dps {
		p := &mpb.NumberDataPoint{Attributes: keyValues(dp.Attributes.ToSlice()), StartTimeUnixNano: unixNano(dp.StartTime),
			TimeUnixNano: unixNano(dp.Time), Exemplars: exemplars(dp.Exemplars)}
		switch v := any(dp.Value).(type) {
		case int64:
			p.Value = &mpb.NumberDataPoint_AsInt{AsInt: v}
		case float64:
			p.Value = &mpb.NumberDataPoint_AsDouble{AsDouble: v}
		}
		out = append(out, p)
	}
	return out
}

func histogramPoints[N int64 | float64](dps []metricdata.HistogramDataPoint[N]) []*mpb.HistogramDataPoint {
	out := make([]*mpb.HistogramDataPoint, 0, len(dps))
	for _, dp := range dps {
		sum := float64(dp.Sum)
		out = append(out, &mpb.HistogramDataPoint{Attributes: keyValues(dp.Attributes.ToSlice()),
			StartTimeUnixNano: unixNano(dp.StartTime), TimeUnixNano: unixNano(dp.Time), Count: dp.Count, Sum: &sum,
			BucketCounts: dp.BucketCounts, ExplicitBounds: dp.Bounds, Min: extremum(dp.Min), Max: extremum(dp.Max),
			Exemplars: exemplars(dp.Exemplars)})
	}
	return out
}

func expPoints[N int64 | float64](dps []metricdata.ExponentialHistogramDataPoint[N]) []*mpb.ExponentialHistogramDataPoint {
	out := make([]*mpb.ExponentialHistogramDataPoint, 0, len(dps))
	for _, dp := range dps {
		sum := float64(dp.Sum)
		out = append(out, &mpb.ExponentialHistogramDataPoint{Attributes: keyValues(dp.Attributes.ToSlice()),
			StartTimeUnixNano: unixNano(dp.StartTime), TimeUnixNano: unixNano(dp.Time), Count: dp.Count, Sum: &sum,
			Scale: dp.Scale, ZeroCount: dp.ZeroCount, ZeroThreshold: dp.ZeroThreshold,
			Positive: &mpb.ExponentialHistogramDataPoint_Buckets{Offset: dp.PositiveBucket.Offset, BucketCounts: dp.PositiveBucket.Counts},
			Negative: &mpb.ExponentialHistogramDataPoint_Buckets{Offset: dp.NegativeBucket.Offset, BucketCounts: dp.NegativeBucket.Counts},
			Min:      extremum(dp.Min), Max: extremum(dp.Max), Exemplars: exemplars(dp.Exemplars)})
	}
	return out
}

func summaryPoints(dps []metricdata.SummaryDataPoint) []*mpb.SummaryDataPoint {
	out := make([]*mpb.SummaryDataPoint, 0, len(dps))
	for _, dp := range dps {
		p := &mpb.SummaryDataPoint{Attributes: keyValues(dp.Attributes.ToSlice()), StartTimeUnixNano: unixNano(dp.StartTime),
			TimeUnixNano: unixNano(dp.Time), Count: dp.Count, Sum: dp.Sum}
		for _, q := range dp.QuantileValues {
			p.QuantileValues = append(p.QuantileValues, &mpb.SummaryDataPoint_ValueAtQuantile{Quantile: q.Quantile, Value: q.Value})
		}
		out = append(out, p)
	}
	return out
}

func extremum[N int64 | float64](e metricdata.Extrema[N]) *float64 {
	v, ok := e.Value()
	if !ok {
		return nil
	}
	f := float64(v)
	return &f
}

func exemplars[N int64 | float64](exs []metricdata.Exemplar[N]) []*mpb.Exemplar {
	if len(exs) == 0 {
		return nil
	}
	out := make([]*mpb.Exemplar, 0, len(exs))
	for _, ex := range exs {
		e := &mpb.Exemplar{FilteredAttributes: keyValues(ex.FilteredAttributes), TimeUnixNano: unixNano(ex.Time), SpanId: ex.SpanID, TraceId: ex.TraceID}
		switch v := any(ex.Value).(type) {
		case int64:
			e.Value = &mpb.Exemplar_AsInt{AsInt: v}
		case float64:
			e.Value = &mpb.Exemplar_AsDouble{AsDouble: v}
		}
		out = append(out, e)
	}
	return out
}

func keyValues(kvs []attribute.KeyValue) []*cpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]*cpb.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &cpb.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)})
	}
	return out
}

func anyValue(v attribute.Value) *cpb.AnyValue {
	array := func(vs []*cpb.AnyValue) *cpb.AnyValue {
		return &cpb.AnyValue{Value: &cpb.AnyValue_ArrayValue{ArrayValue: &cpb.ArrayValue{Values: vs}}}
	}
	switch v.Type() {
	case attribute.BOOL:
		return &cpb.AnyValue{Value: &cpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &cpb.AnyValue{Value: &cpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &cpb.AnyValue{Value: &cpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &cpb.AnyValue{Value: &cpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BYTESLICE:
		return &cpb.AnyValue{Value: &cpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}}
	case attribute.BOOLSLICE:
		return array(each(v.AsBoolSlice(), attribute.BoolValue))
	case attribute.INT64SLICE:
		return array(each(v.AsInt64Slice(), attribute.Int64Value))
	case attribute.FLOAT64SLICE:
		return array(each(v.AsFloat64Slice(), attribute.Float64Value))
	case attribute.STRINGSLICE:
		return array(each(v.AsStringSlice(), attribute.StringValue))
	case attribute.SLICE:
		return array(each(v.AsSlice(), func(v attribute.Value) attribute.Value { return v }))
	case attribute.MAP:
		return &cpb.AnyValue{Value: &cpb.AnyValue_KvlistValue{KvlistValue: &cpb.KeyValueList{Values: keyValues(v.AsMap())}}}
	case attribute.EMPTY:
		return &cpb.AnyValue{}
	}
	return &cpb.AnyValue{Value: &cpb.AnyValue_StringValue{StringValue: "INVALID"}}
}

func each[T any](vs []T, value func(T) attribute.Value) []*cpb.AnyValue {
	out := make([]*cpb.AnyValue, 0, len(vs))
	for _, v := range vs {
		out = append(out, anyValue(value(v)))
	}
	return out
}
