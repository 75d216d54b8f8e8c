package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// parseTokenIDsFlag parses the token-id list of flag name, such as "1,2,3"
// (spaces allowed), for every command that takes ids.
func parseTokenIDsFlag(name, s string) ([]int32, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: --%s is empty; give token ids like 1,2,3", errUsage, name)
	}
	parts := strings.Split(s, ",")
	ids := make([]int32, 0, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 32)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%w: --%s entry %d (%q) is not a token id", errUsage, name, i+1, p)
		}
		ids = append(ids, int32(v))
	}
	return ids, nil
}

// greedyDecode appends up to maxTokens tokens chosen by the greedy sampler (the
// argmax, lowest id on ties, as run's greedy) to prompt in slot 0 of eng and
// returns them. It stops after a token in eos (which is included) unless eos is
// nil.
func greedyDecode(ctx context.Context, eng engine.Engine, prompt []int32, maxTokens int, eos []int32) ([]int32, error) {
	var out []engine.Output
	gen := []int32{}
	if maxTokens == 0 {
		return gen, nil
	}
	spec, err := sampler.DefaultConfig("greedy")
	if err != nil {
		return nil, err
	}
	greedy, err := spec.New(nil)
	if err != nil {
		return nil, err
	}
	if err := eng.Step(ctx, []engine.Input{{Slot: 0, Tokens: prompt}}, &out); err != nil {
		return nil, err
	}
	for {
		d, err := greedy.Sample(&out[0].Dist, &out[0].Attn, gen, nil)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", len(gen), err)
		}
		gen = append(gen, d.Token)
		if len(gen) == maxTokens || slices.Contains(eos, d.Token) {
			return gen, nil
		}
		if err := eng.Step(ctx, []engine.Input{{Slot: 0, Tokens: []int32{d.Token}}}, &out); err != nil {
			return nil, err
		}
	}
}

// writeJSONResult prints v as one line of JSON.
func writeJSONResult(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
