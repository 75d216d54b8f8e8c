package pyhooks

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

//go:embed bridge.py
var bridgeScript []byte

// Options configure the interpreter a Bridge starts.
type Options struct {
	// Python is the interpreter (a path, or a name looked up on PATH);
	// empty means "python3".
	Python string
	// CallTimeout bounds one request (a batch); 0 means DefaultCallTimeout.
	CallTimeout time.Duration
	// MemoryLimit is the interpreter's address-space limit in bytes
	// (RLIMIT_AS); 0 means DefaultMemoryLimit, negative none.
	MemoryLimit int64
	// Env is added to the interpreter's environment (KEY=value).
	Env []string
}

const (
	DefaultCallTimeout = 2 * time.Minute
	DefaultMemoryLimit = 8 << 30
	// maxLine bounds one protocol line (a doc, a split's header, a result).
	maxLine = 256 << 20
	// stderrTail is how much of the interpreter's stderr errors quote.
	stderrTail = 4 << 10
)

// Interpreter is what the manifest records about the Python that ran hooks.
type Interpreter struct {
	Path, Executable, Version string
	// Datasets and LMEval are the installed versions ("" when absent): with
	// datasets, process_docs gets a real datasets.Dataset.
	Datasets, LMEval string
}

// Bridge is one interpreter serving hook calls, one call at a time. It is
// started on the first call and restarted after a timeout or a crash.
type Bridge struct {
	opts Options

	mu     sync.Mutex
	proc   *process
	interp *Interpreter
	nextID int
	// script is bridge.py written to a private directory.
	scriptDir string
}

// New returns a Bridge; the interpreter starts on the first call.
func New(opts Options) *Bridge {
	if opts.Python == "" {
		opts.Python = "python3"
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	return &Bridge{opts: opts}
}

// Interpreter starts the interpreter if needed and describes it.
func (b *Bridge) Interpreter(ctx context.Context) (Interpreter, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.ensure(ctx); err != nil {
		return Interpreter{}, err
	}
	return *b.interp, nil
}

// Close stops the interpreter and removes the script.
func (b *Bridge) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.proc != nil {
		b.proc.kill()
		b.proc = nil
	}
	if b.scriptDir != "" {
		err := os.RemoveAll(b.scriptDir)
		b.scriptDir = ""
		return err
	}
	return nil
}

// process is one running interpreter.
type process struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's error, once done
}

func (p *process) kill() {
	killGroup(p.cmd)
	<-p.done
}

func (b *Bridge) ensure(ctx context.Context) error {
	if b.proc != nil {
		select {
		case <-b.proc.done:
			b.proc = nil
		default:
			return nil
		}
	}
	if b.scriptDir == "" {
		dir, err := os.MkdirTemp("", "entropix-pyhooks-")
		if err != nil {
			return fmt.Errorf("python hooks: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "bridge.py"), bridgeScript, 0o600); err != nil {
			os.RemoveAll(dir)
			return fmt.Errorf("python hooks: %w", err)
		}
		b.scriptDir = dir
	}
	py, err := exec.LookPath(b.opts.Python)
	if err != nil {
		return fmt.Errorf("python hooks: interpreter %q (--python): %w", b.opts.Python, err)
	}
	limit := max(b.opts.MemoryLimit, 0)
	cmd := exec.Command(py, "-u", filepath.Join(b.scriptDir, "bridge.py"), "--memory-limit", strconv.FormatInt(limit, 10))
	cmd.Env = append(append(os.Environ(), "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1"), b.opts.Env...)
	setProcessGroup(cmd)
	p := &process{cmd: cmd, stderr: &tailBuffer{max: stderrTail}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if p.in, err = cmd.StdinPipe(); err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	p.out = bufio.NewReaderSize(stdout, 1<<16)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("python hooks: start %s: %w", py, err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	b.proc = p
	var hello []json.RawMessage
	if hello, err = b.roundTrip(ctx, request{Op: "hello"}, nil); err != nil {
		return fmt.Errorf("python hooks: %s does not answer: %w", py, err)
	}
	var info struct {
		Protocol            int
		Executable, Version string
		Datasets            *string `json:"datasets"`
		LMEval              *string `json:"lm_eval"`
	}
	if len(hello) != 1 || json.Unmarshal(hello[0], &info) != nil {
		return fmt.Errorf("python hooks: %s: unexpected greeting", py)
	}
	b.interp = &Interpreter{Path: py, Executable: info.Executable, Version: info.Version,
		Datasets: deref(info.Datasets), LMEval: deref(info.LMEval)}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// request is a protocol header; its items follow on their own lines.
type request struct {
	ID      int             `json:"id"`
	Op      string          `json:"op"`
	N       int             `json:"n"`
	Hook    *Hook           `json:"hook,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Columns []string        `json:"columns,omitempty"`
}

type reply struct {
	ID    int        `json:"id"`
	OK    bool       `json:"ok"`
	N     int        `json:"n"`
	Error *HookError `json:"error"`
}

// errDied marks a round trip the interpreter did not finish (it exited, hung
// or broke the protocol): the process is gone and the next call restarts it.
var errDied = errors.New("the Python interpreter stopped")

// roundTrip sends one request with its items and reads the reply's items.
// The caller holds b.mu.
func (b *Bridge) roundTrip(ctx context.Context, req request, items [][]byte) ([]json.RawMessage, error) {
	p := b.proc
	b.nextID++
	req.ID, req.N = b.nextID, len(items)
	ctx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	type result struct {
		items []json.RawMessage
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		items, err := exchange(p, req, items)
		ch <- result{items, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil && !isHookError(r.err) {
			p.kill()
			b.proc = nil
			return nil, b.died(p, r.err)
		}
		return r.items, r.err
	case <-ctx.Done():
		p.kill()
		b.proc = nil
		<-ch
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: no answer within %s (the time bound per call, --python-timeout); it was stopped", errDied, b.opts.CallTimeout)
		}
		return nil, fmt.Errorf("%w: %w", errDied, ctx.Err())
	}
}

func isHookError(err error) bool {
	var he *HookError
	return errors.As(err, &he)
}

// died describes an interpreter that stopped mid-call: how it exited and
// the end of what it wrote to stderr.
func (b *Bridge) died(p *process, cause error) error {
	how := "it stopped answering"
	select {
	case <-p.done:
		if p.err != nil {
			how = "it exited: " + p.err.Error()
		} else {
			how = "it exited"
		}
	default:
	}
	msg := fmt.Sprintf("%v (%s; %v)", errDied, how, cause)
	if tail := bytes.TrimSpace(p.stderr.Bytes()); len(tail) > 0 {
		msg += "; its stderr ends:\n" + string(tail)
	}
	return errors.New(msg)
}

func exchange(p *process, req request, items [][]byte) ([]json.RawMessage, error) {
	hdr, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(p.in, 1<<16)
	w.Write(hdr)
	w.WriteByte('\n')
	for _, it := range items {
		// JSON strings escape their newlines, so a raw one is layout: a space.
		if bytes.ContainsAny(it, "\r\n") {
			it = bytes.Map(func(r rune) rune {
				if r == '\n' || r == '\r' {
					return ' '
				}
				return r
			}, it)
		}
		w.Write(it)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	return readReply(p.out, req.ID)
}

// maxReplyItems bounds the item count a reply header may announce.
const maxReplyItems = 1 << 24

// readReply reads the reply to request id: its header, then the items it
// announces, or the hook's error.
func readReply(r *bufio.Reader, id int) ([]json.RawMessage, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	var rep reply
	if err := json.Unmarshal(line, &rep); err != nil || rep.ID != id || rep.N < 0 || rep.N > maxReplyItems {
		return nil, fmt.Errorf("protocol: unexpected reply %.200q", line)
	}
	if !rep.OK {
		if rep.Error == nil {
			return nil, fmt.Errorf("protocol: a failed reply without an error")
		}
		return nil, rep.Error
	}
	out := make([]json.RawMessage, 0, min(rep.N, 1<<10))
	for range rep.N {
		item, err := readLine(r)
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// readLine reads one protocol line of at most maxLine bytes, without its
// newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("protocol: a line over %d bytes", maxLine)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf)
}
