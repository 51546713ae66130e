package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Closing a streamable HTTP server's connection sends DELETE with its
// session id, as the spec asks, and mcp-go waits for the answer (up to
// 5 s) before Close returns. Nothing in the answer matters to a client
// that is going away, but the wait did: a -p run's exit waited for every
// server's answer (4-5 ms of a first run's 116 with eleven servers on
// loopback; a round trip each to remote ones, and 5 s for one that
// hangs). leaveDelete hands mcp-go an answer once the DELETE is written:
// the server has the request (the kernel delivers what was written even
// if the process exits next), and the real answer is read and dropped in
// the background, where a process that lives on gets it.

// deleteTimeout bounds the background DELETE, as mcp-go's own wait did.
const deleteTimeout = 5 * time.Second

// leaveDelete is a RoundTripper that answers a DELETE as soon as it is
// sent; every other request goes to base as it is.
type leaveDelete struct{ base http.RoundTripper }

func (t leaveDelete) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodDelete {
		return t.base.RoundTrip(req)
	}
	// The request outlives the caller's context, which mcp-go cancels as
	// Close returns: cancelled, the transport would close the connection,
	// perhaps before the request left.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), deleteTimeout)
	wrote := make(chan struct{})
	var once sync.Once
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		// A failed write is the RoundTrip's error. The transport writes a
		// DELETE again on a new connection only when nothing of it was
		// written (it is not replayable to net/http); one written to a
		// keep-alive connection the server had just closed is lost, as its
		// answer was never looked at anyway.
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				once.Do(func() { close(wrote) })
			}
		},
	})
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer cancel()
		resp, err := t.base.RoundTrip(req.Clone(ctx))
		if err == nil {
			// Read to the end so the connection can be used again.
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		done <- result{resp, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		// Answered before we looked: its status, its body already read.
		return leftAnswer(req, r.resp.StatusCode), nil
	case <-wrote:
		return leftAnswer(req, http.StatusAccepted), nil
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
}

// leftAnswer is the answer handed back for a DELETE: a status and no body.
func leftAnswer(req *http.Request, status int) *http.Response {
	return &http.Response{
		Status: strconv.Itoa(status) + " " + http.StatusText(status), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), ContentLength: 0,
		Request: req,
	}
}
