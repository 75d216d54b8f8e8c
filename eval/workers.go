package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/entropix-eval/entropix-eval/engine"
)

// workerScheduler is what one worker runs on its engine: the generation
// scheduler or the scoring one.
type workerScheduler interface {
	run(ctx context.Context) error
	schedulerStats() *SchedulerStats
}

// runEngines runs one worker per device, each on its own engine with the
// scheduler newSched builds over it. A failing worker does not stop the others:
// they drain the shared queue, so one bad device loses only its in-flight items.
// Cancelling ctx stops every worker. items is the progress display's total.
func (r *Runner) runEngines(ctx context.Context, devices []string, items int, newSched func(w int, eng Engine) (workerScheduler, error)) (workerStats, error) {
	stats := make(workerStats, len(devices))
	var (
		mu   sync.Mutex
		errs []error
		g    errgroup.Group
	)
	if r.Progress != nil {
		r.Progress.Start(devices, items)
		defer r.Progress.Finish()
	}
	for w, dev := range devices {
		g.Go(func() error {
			st, err := r.runOnEngine(ctx, w, dev, newSched)
			stats[w] = st
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait() // workers report through errs so every failure is kept
	return stats, errors.Join(errs...)
}

// runOnEngine opens worker w's engine on dev, runs the scheduler newSched builds
// over it, and closes the engine.
func (r *Runner) runOnEngine(ctx context.Context, w int, dev string, newSched func(w int, eng Engine) (workerScheduler, error)) (SchedulerStats, error) {
	eng, closeEngine, err := r.OpenEngine(ctx, w, dev)
	if err != nil {
		return SchedulerStats{}, fmt.Errorf("worker %d (%s): open engine: %w", w, dev, err)
	}
	defer func() {
		if closeEngine != nil {
			if err := closeEngine(); err != nil {
				r.logger().Warn("close engine", "worker", w, "err", err)
			}
		}
	}()
	s, err := newSched(w, eng)
	if err != nil {
		return SchedulerStats{}, err
	}
	stats := s.schedulerStats()
	if n, ok := eng.(interface{ DeviceName() string }); ok {
		stats.Device = n.DeviceName()
	}
	err = s.run(ctx)
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("worker %d (%s): %w", w, dev, err)
	}
	return *stats, err
}

// prefixSharerOf is the engine's prefix cache, or nil when it has none or the
// options turn it off.
func prefixSharerOf(eng Engine, opts engine.Options) engine.PrefixSharer {
	if ps, ok := eng.(engine.PrefixSharer); ok && opts.PrefixCacheBytes >= 0 {
		return ps
	}
	return nil
}

// freeLive frees every slot that still holds a sequence, when a scheduler stops.
func freeLive[T any](eng Engine, live []*T) {
	for slot, s := range live {
		if s != nil {
			eng.Free(slot)
			live[slot] = nil
		}
	}
}
