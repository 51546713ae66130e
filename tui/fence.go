package tui

import (
	"bytes"
	"io"
	"os"
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// Inline, a batch of finished lines leaves the redrawn area (its frame
// shrinks by as many rows) and is then printed above it. The renderer
// prints above the frame it last wrote to the terminal, so the smaller
// frame must be there first: printed above the old, taller one, the lines
// scroll it up and its shrinking then leaves blank rows under the input;
// and when the lines and that frame are taller than the screen, the
// frame's top is pushed off it and what the renderer takes for the screen
// is no longer what the terminal shows (a picker drawn without its title,
// a box's border twice, the status bar gone). A timer of a frame and a bit
// was not enough at load: the renderer's ticker waits for a core.
//
// frameFence says when such a frame is on the terminal. The frame carries
// a window title the frames before it did not ("agent" and "agent "
// alternate, one change per print, which no one sees), the renderer writes
// the title only with the first frame that changes it, and the program's
// output is watched for it: once it is written, so is that frame or a
// later one.
type frameFence struct {
	mu      sync.Mutex
	title   string        // the last title written
	changed chan struct{} // closed, and replaced, when it changes
	done    chan struct{} // closed when the program ends
	stop    func()
}

func newFrameFence() *frameFence {
	f := &frameFence{changed: make(chan struct{}), done: make(chan struct{})}
	f.stop = sync.OnceFunc(func() { close(f.done) })
	return f
}

// titles are the frames' two window titles (see frameFence).
var titles = [2]string{"agent", "agent "}

var setTitle = []byte("\x1b]2;")

// saw records the last window title in bytes written to the terminal.
func (f *frameFence) saw(p []byte) {
	i := bytes.LastIndex(p, setTitle)
	if i < 0 {
		return
	}
	rest := p[i+len(setTitle):]
	end := bytes.IndexByte(rest, ansi.BEL)
	if end < 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := string(rest[:end]); t != f.title {
		f.title = t
		close(f.changed)
		f.changed = make(chan struct{})
	}
}

// wait returns true once a frame titled title is on the terminal, false
// if the program ends first.
func (f *frameFence) wait(title string) bool {
	for {
		f.mu.Lock()
		t, changed := f.title, f.changed
		f.mu.Unlock()
		if t == title {
			return true
		}
		select {
		case <-changed:
		case <-f.done:
			return false
		}
	}
}

// watch wraps the program's output. A terminal stays one (the program
// reads its size and puts it in raw mode through the file).
func (f *frameFence) watch(w io.Writer) io.Writer {
	if file, ok := w.(*os.File); ok {
		return &fencedFile{file: file, f: f}
	}
	return &fencedWriter{w: w, f: f}
}

type fencedWriter struct {
	w io.Writer
	f *frameFence
}

func (w *fencedWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.f.saw(p[:n])
	return n, err
}

// fencedFile is a fencedWriter with the file's descriptor (term.File).
type fencedFile struct {
	file *os.File
	f    *frameFence
}

func (w *fencedFile) Write(p []byte) (int, error) {
	n, err := w.file.Write(p)
	w.f.saw(p[:n])
	return n, err
}

func (w *fencedFile) Read(p []byte) (int, error) { return w.file.Read(p) }
func (w *fencedFile) Close() error               { return w.file.Close() }
func (w *fencedFile) Fd() uintptr                { return w.file.Fd() }
