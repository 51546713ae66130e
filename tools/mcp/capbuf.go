package mcp

import "sync"

// The reads' buffer starts small, as most messages are (initialize's
// answer, a notification's, a GET stream's events), and is a large one
// from the read that fills it on, for a long body (a tools/list page, a
// large result). A fixed 32 KB buffer a body was about 1 MB of fresh
// memory in a first run's listing of eleven HTTP servers, each answer
// and GET stream taking one.
//
// The buffers go back to a pool when their body has been read to its end
// (or its error) and the next body takes them: every buffer a process
// takes is memory touched for the first time, a page fault a page (10-30
// µs each on the virtual machines measured, ~4 ms of a first run's CPU
// when each of the eleven listings read into 60 KB of its own, 4, 8, 16
// and 32 KB). A body closed before its end leaves its buffer to the
// collector, as before: Close may run beside a Read, which must never
// find its buffer in another body's hands.
const (
	minRead = 4 << 10
	maxRead = 32 << 10
)

// bufClass says which pool a read buffer came from.
type bufClass int8

const (
	ownBuf   bufClass = iota // allocated for this body alone
	smallBuf                 // minRead, smallBufs
	largeBuf                 // maxRead, largeBufs
)

var (
	smallBufs = sync.Pool{New: func() any { return new([minRead]byte) }}
	largeBufs = sync.Pool{New: func() any { return new([maxRead]byte) }}
)

// readBuf takes a pooled buffer of class k.
func readBuf(k bufClass) ([]byte, bufClass) {
	if k == largeBuf {
		return largeBufs.Get().(*[maxRead]byte)[:], largeBuf
	}
	return smallBufs.Get().(*[minRead]byte)[:], smallBuf
}

// release gives the read buffer back to its pool; a later read takes
// another.
func (c *capReader) release() {
	switch c.buf {
	case smallBuf:
		smallBufs.Put((*[minRead]byte)(c.in))
	case largeBuf:
		largeBufs.Put((*[maxRead]byte)(c.in))
	}
	c.in, c.buf = nil, ownBuf
}

// firstBuf sets the first read's buffer: the whole body when its length
// is known and it is short (and one byte more, so that the read that
// takes it does not look like one that filled the buffer), a large one
// when it is known to be long, else a small one. The length is the
// server's word, up to 2^63-1 (net/http takes any).
func (c *capReader) firstBuf() {
	switch {
	case c.length > 0 && c.length < minRead:
		c.in, c.buf = make([]byte, c.length+1), ownBuf
	case c.length > 0:
		c.in, c.buf = readBuf(largeBuf)
	default:
		c.in, c.buf = readBuf(smallBuf)
	}
}

// pageSpace is where the next read goes while a tools array is being
// diverted (nil when none is): the free end of its page's chunk, a new
// chunk when less than minRead of it is free. The bytes of the array are
// then read into the page where they are kept, and writing them there
// (listPage.writeRun) finds them in place: a tools/list page was read
// into the read buffer and copied from it into the page, two copies of a
// first run's 350 KB of lists, and for each listing the fresh pages of
// its read buffers (the eleven listings read at once: each took its own).
// The reader writes to a page exactly the bytes it takes from the array,
// in order, so a byte is never written before it has been read; what
// follows the array in the same read is taken from there as from any
// buffer (the chunk is cut at the page's end: nothing else reads it).
func (c *capReader) pageSpace() []byte {
	pg := c.div
	if pg == nil {
		return nil
	}
	if cap(pg.cur)-len(pg.cur) < minRead {
		pg.grow()
	}
	return pg.cur[len(pg.cur):cap(pg.cur)]
}
