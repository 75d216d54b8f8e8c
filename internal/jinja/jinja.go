// Package jinja is the one bounded Jinja environment (gonja underneath) for
// every template we render: chat templates from tokenizer_config.json and
// lm-eval task templates (doc_to_text, doc_to_target, ...). Both come from
// files someone else wrote, and plain Jinja can nest, loop, multiply strings
// and pad them without end; here every render is bounded before anything
// large is allocated: source size and nesting depth at compile time; output
// size, string and list sizes (checked before the operator, filter or method
// runs), range() length and total loop steps, and wall time at render time.
// A render past a limit is an error wrapping ErrLimit.
package jinja

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"

	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// The limits. Real chat and task templates stay far below every one.
var (
	// MaxSourceBytes bounds a template's source.
	MaxSourceBytes = 1 << 20
	// MaxDepth bounds the nesting of brackets and of blocks in the source
	// (gonja's parser recurses once per level; 100,000 levels overflowed the
	// goroutine stack, a fatal error no recover catches).
	MaxDepth = 200
	// MaxOutputBytes bounds a rendered text, and MaxStringBytes every string
	// and MaxListLen every list a render builds.
	MaxOutputBytes = 4 << 20
	MaxStringBytes = 4 << 20
	MaxListLen     = 1 << 20
	// MaxRange is Jinja's sandbox MAX_RANGE (transformers renders chat
	// templates in an ImmutableSandboxedEnvironment, which refuses larger
	// ranges too); MaxRangeSteps bounds the elements all range() calls of one
	// render produce (nested loops multiply).
	MaxRange      = 100_000
	MaxRangeSteps = 200_000
	// RenderTimeout bounds one render's wall time.
	RenderTimeout = 3 * time.Second
)

// ErrLimit marks a template refused or stopped by one of the limits (a usage
// error: the template is at fault).
var ErrLimit = usage.New("template exceeded a rendering limit")

// Options are the Jinja settings of one kind of template.
type Options struct {
	// Name names the template in errors (chat_template, doc_to_text).
	Name                            string
	TrimBlocks, LStripBlocks        bool // transformers' chat-template settings
	StrictUndefined, KeepTrailingNL bool // lm-eval's task-template settings
}

// Template is a compiled, bounded template.
type Template struct {
	tpl    *exec.Template
	source string
	name   string
}

// Compile parses source after checking its size and nesting.
func Compile(source string, o Options) (_ *Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: the template engine failed on this template (%v)", o.Name, p)
		}
	}()
	if len(source) > MaxSourceBytes {
		return nil, fmt.Errorf("%w: source of %d bytes (at most %d)", ErrLimit, len(source), MaxSourceBytes)
	}
	if err := checkNesting(source); err != nil {
		return nil, err
	}
	if cycle := recursiveMacros(source); cycle != "" {
		return nil, fmt.Errorf("%w: recursive macro (%s): refused, as gonja would recurse without bound and crash the process", ErrLimit, cycle)
	}
	cfg := config.New()
	cfg.TrimBlocks, cfg.LeftStripBlocks = o.TrimBlocks, o.LStripBlocks
	cfg.StrictUndefined, cfg.KeepTrailingNewline = o.StrictUndefined, o.KeepTrailingNL
	fs, err := loaders.NewFileSystemLoader("")
	if err != nil {
		return nil, err
	}
	loader, err := loaders.NewShiftedLoader(o.Name, strings.NewReader(source), fs)
	if err != nil {
		return nil, err
	}
	tpl, err := exec.NewTemplate(o.Name, cfg, loader, environment())
	if err != nil {
		return nil, errors.New(ShortError(err, source))
	}
	if err := boundOperators(tpl.Root()); err != nil {
		return nil, err
	}
	return &Template{tpl: tpl, source: source, name: o.Name}, nil
}

// Render renders with vars as the template's variables (functions included),
// within the limits.
func (t *Template) Render(vars map[string]any) (string, error) {
	lim := &limits{}
	ctx := make(map[string]any, len(vars)+len(lim.globals()))
	for k, v := range vars {
		ctx[k] = v
	}
	for k, v := range lim.globals() {
		ctx[k] = v
	}
	out := &limitedBuffer{lim: lim}
	done := make(chan error, 1)
	go func() {
		// gonja panics on some inputs; a panic here would end the process.
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("%s: the template engine failed on this template (%v)", t.name, p)
			}
		}()
		done <- t.tpl.Execute(out, exec.NewContext(ctx))
	}()
	timer := time.NewTimer(RenderTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return "", limitError(err)
		}
		return out.String(), nil
	case <-timer.C:
		// The render goroutine stops at its next write, operator, filter,
		// method or range() call.
		lim.stop.Store(true)
		return "", fmt.Errorf("%w: rendering took more than %v", ErrLimit, RenderTimeout)
	}
}

// Source is the template's text.
func (t *Template) Source() string { return t.source }

// ShortError drops the template source gonja embeds in its errors, which can
// be kilobytes long.
func ShortError(err error, source string) string {
	msg := err.Error()
	if source != "" {
		msg = strings.ReplaceAll(msg, "'"+source+"'", "")
	}
	return msg
}

// limitError is a render error past a limit as ErrLimit and the text after
// it: gonja wraps it in "unable to execute template: ..." layers that name
// node internals and quote whole values, and flattens some into strings.
func limitError(err error) error {
	msg := err.Error()
	prefix := ErrLimit.Error() + ": "
	if i := strings.LastIndex(msg, prefix); i >= 0 {
		return fmt.Errorf("%w: %s", ErrLimit, msg[i+len(prefix):])
	}
	return err
}

// limits are one render's counters; stop is set when the render timed out.
type limits struct {
	steps int
	stop  atomic.Bool
}

func (l *limits) check() error {
	if l.stop.Load() {
		return fmt.Errorf("%w: stopped", ErrLimit)
	}
	return nil
}

// limitedBuffer collects the output up to MaxOutputBytes. It is not a
// bytes.Buffer by embedding: gonja writes through io.WriteString, which would
// find an embedded WriteString and bypass the limit.
type limitedBuffer struct {
	buf strings.Builder
	lim *limits
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if err := b.room(len(p)); err != nil {
		return 0, err
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) WriteString(s string) (int, error) {
	if err := b.room(len(s)); err != nil {
		return 0, err
	}
	return b.buf.WriteString(s)
}

func (b *limitedBuffer) room(n int) error {
	if err := b.lim.check(); err != nil {
		return err
	}
	if b.buf.Len()+n > MaxOutputBytes {
		return fmt.Errorf("%w: output of more than %d bytes", ErrLimit, MaxOutputBytes)
	}
	return nil
}

func (b *limitedBuffer) String() string { return b.buf.String() }
